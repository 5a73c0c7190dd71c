/**
 * Helpers for interchange tests: a real cordis Context with the harness
 * `SessionStore` and the published JSONL persistence backend in a temp
 * DSH_HOME, and the model's view of a session or tree path as comparable
 * role/text pairs.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { Session, SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { TreeSync } from '../../src/harness/sync.ts'
import { SessionTreeStore } from '../../src/tree/store.ts'
import type { SessionTree } from '../../src/tree/session-tree.ts'
import { TreeSidecar } from '../../src/sidecar/index.ts'

export interface Home {
  readonly home: string
  readonly sessionsRoot: string
  readonly sidecarRoot: string
  readonly persistence: {
    create(meta: unknown): Promise<void>
    append(id: never, events: readonly never[]): Promise<void>
    load(id: unknown): Promise<{ events: readonly unknown[]; meta: unknown }>
  }
}

export async function dshHome(): Promise<Home> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(JsonlSessionPersistence, { root: join(home, 'sessions') })
  for (let i = 0; i < 100 && !(ctx as unknown as { sessionPersistence?: unknown }).sessionPersistence; i++)
    await new Promise((r) => setTimeout(r, 5))
  return {
    home,
    sessionsRoot: join(home, 'sessions'),
    sidecarRoot: join(home, 'session-tree'),
    persistence: (ctx as unknown as { sessionPersistence: Home['persistence'] }).sessionPersistence,
  }
}

/** Load a stored session the way the plugin does on resume: log + sidecar → tree. */
export async function loadTree(
  home: Home,
  sessionId: string,
): Promise<{ tree: SessionTree; events: readonly unknown[]; warnings: readonly string[] }> {
  const loaded = await home.persistence.load(SessionId(sessionId))
  const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(home.sidecarRoot))
  const state = sync.attach({ id: sessionId, events: loaded.events })
  return {
    tree: state.projector.tree,
    events: loaded.events,
    warnings: [...state.warnings.map((w) => w.message), ...state.projector.quarantine.map((q) => q.reason)],
  }
}

export type ModelMessage = { role: string; text: string }

type Block = { type: string; text?: string; name?: string; content?: Block[] }

/** What the DSH model receives for this log: `deriveMessages()` of a real harness Session. */
export function dshModelView(sessionId: string, events: readonly unknown[]): ModelMessage[] {
  const session = Session.create(SessionId(sessionId), events as never)
  return session.deriveMessages().map((message) => {
    const blocks = message.content as unknown as Block[]
    const role = blocks[0]?.type === 'tool-result' ? 'tool' : message.role
    return { role, text: blocks.map(blockText).join('') }
  })
}

function blockText(block: Block): string {
  if (block.type === 'text') return (block.text ?? '').replace(/\[image: [^\]]*\]/g, '[image]')
  if (block.type === 'tool-call') return `call:${block.name}`
  if (block.type === 'tool-result') return (block.content ?? []).map(blockText).join('')
  return ''
}

/** The model history of a tree path, in the same form (what a switch to `nodeId` would send). */
export function treeModelView(tree: SessionTree, nodeId: string | null): ModelMessage[] {
  const history = tree.historyPath(nodeId)
  if (!history.ok) throw new Error(history.error.message)
  return history.value.map((entry) => {
    if (entry.type === 'tool_call' || entry.type === 'tool_result') {
      const result = entry.content?.find((p) => p.type === 'tool_result')
      return { role: 'tool', text: result?.type === 'tool_result' ? result.content : '' }
    }
    const parts = entry.content ?? []
    const text =
      parts.length > 0
        ? parts
            .map((p) =>
              p.type === 'text'
                ? p.text.replace(/\[image: [^\]]*\]/g, '[image]')
                : p.type === 'tool_call'
                  ? `call:${p.name}`
                  : '',
            )
            .join('')
        : (entry.message?.content ?? '')
    return { role: entry.message?.role ?? 'user', text }
  })
}
