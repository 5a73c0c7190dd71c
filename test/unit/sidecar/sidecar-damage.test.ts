/**
 * A damaged sidecar of every kind, loaded by the service in a real Context
 * with the harness `SessionStore` (real files, real links): each loads with
 * exactly one warning that names the file and the damage, and the
 * conversation is intact (the tree the log alone gives, plus whatever the
 * damaged sidecar still validly holds). What can be repaired is repaired on
 * the next write (kept aside first, nothing deleted); what is not ours to
 * touch — a link, a directory, another session's file — stays and refuses
 * writes with SIDECAR_IO.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  statSync,
  cpSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore from '@deepseek-ai/dsh-session'
import { TypertLookupFailure } from '@deepseek-ai/dsh-typert-protocol'
import { afterEach, describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import { JOURNAL_FILE, OVERLAY_FILE, TreeSidecar } from '../../../src/sidecar/index.ts'
import { LogBuilder } from '../../support/log-builder.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function boot(root: string) {
  const ctx = new Context()
  ctx.plugin(SessionStore)
  await ctx.plugin(SessionTreeService, { sidecarRoot: root, surfaceMode: 'projection' })
  await new Promise((r) => setTimeout(r, 0))
  const service = (ctx as unknown as { sessionTree: SessionTreeService }).sessionTree
  return { ctx, service, stop: () => ctx.fiber.dispose() }
}

/** A session with a labeled node and a fork, written by a first process; its log and sidecar directory. */
async function written(id: string, root: string, compact = false) {
  const first = await boot(root)
  const session = first.ctx.sessions.create(id as never)
  new LogBuilder(session).userTurn('q1', 'a1').userTurn('q2', 'a2')
  const nodes = (await first.service.list(session.id)).nodes
  await first.service.label(session.id, nodes[1]!.nodeId, 'kept')
  await first.service.fork(session.id, nodes[1]!.nodeId, 'alt')
  if (compact) {
    // Enough records to fold the journal into an overlay.
    for (let i = 0; i < 210; i++) await first.service.label(session.id, nodes[3]!.nodeId, i % 2 === 0 ? `n${i}` : null)
  }
  const events = structuredClone([...session.events])
  await first.stop()
  return { events, dir: new TreeSidecar(root).dirFor(id) }
}

type Damage = {
  readonly name: string
  /** Which file the warning must name. */
  readonly file: 'journal' | 'overlay' | 'dir'
  readonly words: RegExp
  /** After the damage, a label still saves (repaired) or is refused (not ours to touch). */
  readonly writes: 'repaired' | 'refused'
  readonly compact?: boolean
  apply(dir: string, root: string): void
}

const journal = (dir: string) => join(dir, JOURNAL_FILE)
const overlay = (dir: string) => join(dir, OVERLAY_FILE)
/** The damage that replaces the file `of(dir)` with a symbolic link to a file holding `text` outside the sidecar. */
const linkedOutside =
  (of: (dir: string) => string, text: string): Damage['apply'] =>
  (dir, root) => {
    rmSync(of(dir))
    writeFileSync(join(root, '..', 'elsewhere'), text)
    symlinkSync(join(root, '..', 'elsewhere'), of(dir))
  }

const DAMAGES: readonly Damage[] = [
  {
    name: 'journal truncated mid-record',
    file: 'journal',
    words: /torn last line dropped/,
    writes: 'repaired',
    apply: (dir) => truncateSync(journal(dir), statSync(journal(dir)).size - 7),
  },
  {
    name: 'journal of garbage',
    file: 'journal',
    words: /bad line.*no checksum prefix/,
    writes: 'repaired',
    apply: (dir) => writeFileSync(journal(dir), 'garbage\nmore garbage\n'),
  },
  {
    name: 'journal of 0 bytes',
    file: 'journal',
    words: /journal is empty/,
    writes: 'repaired',
    apply: (dir) => writeFileSync(journal(dir), ''),
  },
  {
    name: 'journal a directory',
    file: 'journal',
    words: /is a directory/,
    writes: 'refused',
    apply: (dir) => {
      rmSync(journal(dir))
      mkdirSync(journal(dir))
    },
  },
  {
    name: 'journal a symbolic link',
    file: 'journal',
    words: /is a symbolic link/,
    writes: 'refused',
    apply: linkedOutside(journal, 'x\n'),
  },
  {
    name: "another session's journal",
    file: 'journal',
    words: /belongs to another session/,
    writes: 'refused',
    apply: (dir, root) => cpSync(journal(new TreeSidecar(root).dirFor('other session')), journal(dir)),
  },
  {
    name: 'overlay of garbage',
    file: 'overlay',
    words: /overlay ignored: unparsable JSON/,
    writes: 'repaired',
    compact: true,
    apply: (dir) => writeFileSync(overlay(dir), '{"version":1,"sess'),
  },
  {
    name: 'overlay a symbolic link',
    file: 'overlay',
    words: /is a symbolic link/,
    writes: 'refused',
    compact: true,
    apply: linkedOutside(overlay, '{}'),
  },
  {
    name: 'session directory a symbolic link',
    file: 'dir',
    words: /sidecar directory .*is a symbolic link/,
    writes: 'refused',
    apply: (dir, root) => {
      rmSync(dir, { recursive: true })
      mkdirSync(join(root, '..', 'elsewhere-dir'))
      symlinkSync(join(root, '..', 'elsewhere-dir'), dir)
    },
  },
]

describe('a damaged sidecar of every kind', () => {
  for (const damage of DAMAGES) {
    it(`${damage.name}: one warning naming the file and the damage; the conversation is intact`, async () => {
      const base = mkdtempSync(join(tmpdir(), 'tree-damage-'))
      cleanups.push(() => rmSync(base, { recursive: true, force: true }))
      const root = join(base, 'root')
      const id = 'damaged session'
      if (damage.name === "another session's journal") await written('other session', root)
      const { events, dir } = await written(id, root, damage.compact)
      // What the log alone gives: a fresh sidecar root, the same events.
      const clean = await boot(join(base, 'clean-root'))
      const fromLog = await clean.service.list(clean.ctx.sessions.create(id as never, { seed: events as never }).id)
      await clean.stop()

      damage.apply(dir, root)
      const files = readdirSync(base).sort()
      const second = await boot(root)
      cleanups.push(second.stop)
      const session = second.ctx.sessions.create(id as never, { seed: events as never })
      const status = await second.service.session(session.id)
      const named = damage.file === 'dir' ? dir : damage.file === 'journal' ? journal(dir) : overlay(dir)
      expect(status.sidecarWarnings, JSON.stringify(status.sidecarWarnings)).toHaveLength(1)
      expect(status.sidecarWarnings![0]!.message).toMatch(damage.words)
      expect(status.sidecarWarnings![0]!.message).toContain(named)
      expect(status.quarantine).toEqual([])
      // The conversation: every message the log holds, in the same shape.
      const view = await second.service.list(session.id)
      const shape = (v: typeof view) => v.nodes.map((n) => [n.nodeId, n.parentId, n.message?.content])
      expect(shape(view)).toEqual(shape(fromLog))
      // The next write: repaired (the damaged bytes kept aside) or refused without effect.
      const a2 = view.nodes[3]!.nodeId
      if (damage.writes === 'repaired') {
        expect((await second.service.label(session.id, a2, 'after the damage')).label).toBe('after the damage')
        const third = await boot(root)
        cleanups.push(third.stop)
        const again = third.ctx.sessions.create(id as never, { seed: events as never })
        expect((await third.service.session(again.id)).sidecarWarnings).toEqual([])
        expect((await third.service.list(again.id)).nodes.find((n) => n.nodeId === a2)?.label).toBe('after the damage')
        // Garbage is kept aside, never deleted.
        if (/garbage/.test(damage.name)) {
          const aside = readdirSync(dir).filter((name) =>
            name.startsWith(`${damage.file === 'journal' ? JOURNAL_FILE : OVERLAY_FILE}.corrupt-`),
          )
          expect(aside).toHaveLength(1)
          expect(readFileSync(join(dir, aside[0]!), 'utf8')).toMatch(/garbage|"sess/)
        }
      } else {
        const refused = await second.service.label(session.id, a2, 'after the damage').then(
          () => 'ok',
          (error: unknown) => (error as TypertLookupFailure<{ code: string }>).failure.code,
        )
        expect(refused).toBe('SIDECAR_IO')
        expect(await second.service.list(session.id)).toEqual(view)
      }
      // Nothing outside the sidecar root was written (the planted targets are unchanged).
      expect(readdirSync(base).sort()).toEqual(files)
      for (const name of files.filter((f) => f.startsWith('elsewhere') && !f.endsWith('-dir')))
        expect(readFileSync(join(base, name), 'utf8')).toMatch(/^(x\n|\{\})$/)
      if (files.includes('elsewhere-dir')) expect(readdirSync(join(base, 'elsewhere-dir'))).toEqual([])
    })
  }
})
