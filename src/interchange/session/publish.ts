/**
 * Publishing a built session, all or nothing:
 *
 * 1. the log is validated the way a resume validates it (a detached harness
 *    `Session` seeded with every event);
 * 2. the sidecar (overlay + provenance) is written into a private temp root,
 *    and the tree is rebuilt from log + that sidecar by the plugin's own sync
 *    and compared with the built one — a mismatch publishes nothing;
 * 3. the sidecar directory is renamed into the real sidecar root (atomic, same
 *    file system), then the log goes to the harness persistence in ONE append
 *    (the JSONL backend publishes header + batch atomically); if that fails the
 *    sidecar directory is removed again.
 *
 * A crash between 3a and 3b leaves a sidecar directory for a session that does
 * not exist: nothing shows, nothing is half a session.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Session, SessionId } from '@deepseek-ai/dsh-session'
import { SessionTreeStore } from '../../tree/store.ts'
import type { JsonObject } from '../../tree/types.ts'
import type { SessionTree } from '../../tree/session-tree.ts'
import { TreeSync } from '../../harness/sync.ts'
import { TreeSidecar } from '../../sidecar/index.ts'
import { InterchangeError } from '../errors.ts'
import type { InterchangeTree } from '../model.ts'
import type { BuiltSession } from './build.ts'
import { writeProvenance, type ProvenanceHeader } from './provenance.ts'

/** The part of `ctx.sessionPersistence` a publication uses. */
export interface PersistenceTarget {
  create(meta: unknown): Promise<void>
  append(id: never, events: readonly never[]): Promise<void>
}

export interface PublishOptions {
  readonly persistence: PersistenceTarget
  /** Sidecar root of the plugin (`session-tree` row's `sidecarRoot`); without one, tree-only state is not kept. */
  readonly sidecarRoot?: string
  readonly cwd?: string
  readonly createdAt: number
}

export interface Published {
  readonly sessionId: string
  readonly events: number
  readonly sidecar: boolean
}

export async function publishSession(built: BuiltSession, source: InterchangeTree, options: PublishOptions): Promise<Published> {
  const header = {
    version: 0,
    id: built.sessionId,
    createdAt: options.createdAt,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  }
  try {
    // A restore takes the events as they are (validated, frozen in place): no second copy of the log.
    Session.fromRestore(SessionId(built.sessionId), built.events as never, { ...header } as never)
  } catch (error) {
    throw new InterchangeError('WRITE_FAILED', `the harness refuses the session log: ${(error as Error).message}`)
  }
  let published: string | undefined
  if (options.sidecarRoot !== undefined) published = await stageSidecar(built, source, options.sidecarRoot)
  try {
    await options.persistence.create(header)
    await options.persistence.append(built.sessionId as never, built.events as never)
  } catch (error) {
    if (published !== undefined) rmSync(published, { recursive: true, force: true })
    throw new InterchangeError('WRITE_FAILED', `the session log could not be written: ${(error as Error).message}`)
  }
  return { sessionId: built.sessionId, events: built.events.length, sidecar: published !== undefined }
}

/** Write, verify and move the sidecar directory into place; returns its final path. */
async function stageSidecar(built: BuiltSession, source: InterchangeTree, sidecarRoot: string): Promise<string> {
  const root = path.resolve(sidecarRoot)
  mkdirSync(root, { recursive: true })
  const staging = mkdtempSync(path.join(root, '.import-'))
  try {
    const sidecar = new TreeSidecar(staging)
    const folded = sidecar.compact(built.sessionId, { n: 0, w: Math.max(0, built.watermark), state: built.overlay as unknown as JsonObject })
    if (!folded.ok) throw new InterchangeError('WRITE_FAILED', `sidecar: ${folded.error.message}`)
    const dir = sidecar.dirFor(built.sessionId)
    const header: ProvenanceHeader = { v: 1, kind: 'header', meta: source.meta, importedAt: new Date().toISOString(), cursor: source.cursor }
    await writeProvenance(dir, header, source.nodes, built.nodeIds)
    verifyRebuild(built, staging)
    const final = new TreeSidecar(root).dirFor(built.sessionId)
    try {
      renameSync(dir, final)
    } catch (error) {
      throw new InterchangeError('WRITE_FAILED', `sidecar directory ${final} could not be created: ${(error as Error).message}`)
    }
    return final
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/** The plugin rebuilds the tree from log + sidecar exactly as built, or nothing is published. */
function verifyRebuild(built: BuiltSession, sidecarRoot: string): void {
  const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(sidecarRoot))
  const state = sync.attach({ id: built.sessionId, events: built.events })
  const problems = [...state.warnings.map((w) => w.message), ...state.projector.quarantine.map((q) => `event ${q.seq}: ${q.reason}`)]
  const difference = problems[0] ?? firstDifference(built.tree, state.projector.tree)
  if (difference !== undefined) throw new InterchangeError('WRITE_FAILED', `the plugin would not rebuild the imported tree: ${difference}`)
}

/** Where two trees differ (nodes field by field, cursor, branches, labels), without serializing either. */
function firstDifference(expected: SessionTree, actual: SessionTree): string | undefined {
  if (expected.nodeCount !== actual.nodeCount) return `${actual.nodeCount} nodes instead of ${expected.nodeCount}`
  if (expected.cursor !== actual.cursor) return `cursor ${String(actual.cursor)} instead of ${String(expected.cursor)}`
  if (JSON.stringify(expected.branchHeadList()) !== JSON.stringify(actual.branchHeadList())) return 'different branches'
  const theirs = actual.list()
  let i = 0
  for (const node of expected.list()) {
    const other = theirs[i++]!
    for (const key of ['nodeId', 'parentId', 'type', 'summary', 'label', 'model', 'provider', 'createdAt'] as const) {
      if (node[key] !== other[key]) return `node ${node.nodeId}: ${key} ${JSON.stringify(other[key])} instead of ${JSON.stringify(node[key])}`
    }
    if (node.message?.role !== other.message?.role || node.message?.content !== other.message?.content) return `node ${node.nodeId}: a different message`
    if ((node.replaces ?? []).join() !== (other.replaces ?? []).join()) return `node ${node.nodeId}: replaces different nodes`
  }
  return undefined
}
