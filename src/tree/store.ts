/** A keyed store: one tree per session id (each `TreeSync` holds one; there is no process-wide instance). */
import { fail, ok, SessionTreeError, type TreeResult } from './errors.ts'
import { SessionTree } from './session-tree.ts'
import type { SessionTreeOptions, SessionTreeSnapshot, TreeEntry } from './types.ts'
import { isRecord } from './validate.ts'

const MAX_SESSION_ID_LENGTH = 1024

/** Session ids are opaque, but must be printable, bounded strings. */
export function checkSessionId(sessionId: unknown): TreeResult<string> {
  if (typeof sessionId !== 'string' || sessionId === '')
    return fail('INVALID_ARGUMENT', 'sessionId must be a non-empty string')
  if (sessionId.length > MAX_SESSION_ID_LENGTH)
    return fail('INVALID_ARGUMENT', `sessionId must be at most ${MAX_SESSION_ID_LENGTH} characters`)
  if (sessionId.includes('\u0000')) return fail('INVALID_ARGUMENT', 'sessionId must not contain NUL')
  return ok(sessionId)
}

export class SessionTreeStore {
  private readonly trees = new Map<string, SessionTree>()
  private readonly options: SessionTreeOptions

  constructor(options: SessionTreeOptions = {}) {
    this.options = options
  }

  /** Look up a tree without creating one. */
  get(sessionId: string): SessionTree | undefined {
    return this.trees.get(sessionId)
  }

  /** Look up a tree, or `SESSION_NOT_FOUND`. */
  require(sessionId: string): TreeResult<SessionTree> {
    const tree = this.trees.get(sessionId)
    return tree
      ? ok(tree)
      : fail('SESSION_NOT_FOUND', `no tree for session ${JSON.stringify(sessionId)}`, { sessionId })
  }

  /**
   * Create an empty tree (seed 001's signature: it returns the tree).
   * @throws SessionTreeError `SESSION_ALREADY_EXISTS` (an existing tree is never silently reset) or `INVALID_ARGUMENT`.
   */
  create(sessionId: string): SessionTree {
    const created = this.add(sessionId)
    if (!created.ok) throw new SessionTreeError(created.error)
    return created.value
  }

  /** `create` as a result: `SESSION_ALREADY_EXISTS` when a tree exists, never a reset. */
  add(sessionId: string): TreeResult<SessionTree> {
    const id = checkSessionId(sessionId)
    if (!id.ok) return id
    if (this.trees.has(sessionId)) {
      return fail('SESSION_ALREADY_EXISTS', `a tree for session ${JSON.stringify(sessionId)} already exists`, {
        sessionId,
      })
    }
    const tree = new SessionTree(sessionId, undefined, this.options)
    this.trees.set(sessionId, tree)
    return ok(tree)
  }

  /** The existing tree, or a new empty one. */
  ensure(sessionId: string): TreeResult<SessionTree> {
    const tree = this.trees.get(sessionId)
    return tree ? ok(tree) : this.add(sessionId)
  }

  /**
   * Copy the source's active path (root..cursor) into a new session with fresh
   * node ids. Each copy records where it came from (`origin.source = 'clone'`),
   * labels on the path come along, and the source is untouched.
   */
  clone(sourceSessionId: string, targetSessionId: string): TreeResult<{ sessionId: string; nodeCount: number }> {
    const source = this.require(sourceSessionId)
    if (!source.ok) return source
    const id = checkSessionId(targetSessionId)
    if (!id.ok) return id
    if (this.trees.has(targetSessionId)) {
      return fail('SESSION_ALREADY_EXISTS', `a tree for session ${JSON.stringify(targetSessionId)} already exists`, {
        sessionId: targetSessionId,
      })
    }
    const path = source.value.path()
    if (!path.ok) return path
    const target = new SessionTree(targetSessionId, undefined, this.options)
    for (const entry of path.value) {
      const appended = target.append(
        entry.message ?? null,
        cloneOptions(entry, sourceSessionId, source.value.activeBranch),
      )
      if (!appended.ok) return appended
    }
    // Provenance of the whole tree: a fresh snapshot carries it durably.
    const snapshot = { ...target.snapshot(), clonedFrom: { sessionId: sourceSessionId, nodeId: source.value.cursor } }
    this.trees.set(targetSessionId, new SessionTree(targetSessionId, snapshot, this.options))
    return ok({ sessionId: targetSessionId, nodeCount: path.value.length })
  }

  /** Install an already-built tree under its own session id (replacing any existing one). */
  replace(sessionId: string, tree: SessionTree): TreeResult<{ sessionId: string }> {
    if (!(tree instanceof SessionTree)) return fail('INVALID_ARGUMENT', 'tree must be a SessionTree')
    if (tree.sessionId !== sessionId) {
      return fail(
        'INVALID_ARGUMENT',
        `tree belongs to session ${JSON.stringify(tree.sessionId)}, not ${JSON.stringify(sessionId)}`,
      )
    }
    this.trees.set(sessionId, tree)
    return ok({ sessionId })
  }

  /** Validate a snapshot and install it (replacing any existing tree); nothing changes on failure. */
  load(snapshot: SessionTreeSnapshot | unknown): TreeResult<{ sessionId: string }> {
    if (!isRecord(snapshot)) return fail('INVALID_SNAPSHOT', 'snapshot must be an object')
    const id = checkSessionId(snapshot.sessionId)
    if (!id.ok) return fail('INVALID_SNAPSHOT', `snapshot.sessionId: ${id.error.message}`)
    try {
      const tree = new SessionTree(id.value, snapshot, this.options)
      this.trees.set(id.value, tree)
      return ok({ sessionId: id.value })
    } catch (error) {
      if (error instanceof SessionTreeError) return { ok: false, error: error.error }
      throw error
    }
  }

  /** Forget a tree in this process (its durable state, if any, stays on disk). */
  drop(sessionId: string): boolean {
    return this.trees.delete(sessionId)
  }

  /** Session ids with a live tree, in creation order. */
  list(): string[] {
    return [...this.trees.keys()]
  }
}

function cloneOptions(entry: TreeEntry, sourceSessionId: string, branch: string) {
  return {
    type: entry.type,
    branch,
    summary: entry.summary,
    createdAt: entry.createdAt,
    origin: { source: 'clone', sessionId: sourceSessionId, ref: entry.nodeId },
    ...(entry.content ? { content: entry.content } : {}),
    ...(entry.model !== undefined ? { model: entry.model } : {}),
    ...(entry.provider !== undefined ? { provider: entry.provider } : {}),
    ...(entry.usage ? { usage: entry.usage as Record<string, never> } : {}),
    ...(entry.cost !== undefined ? { cost: entry.cost } : {}),
    ...(entry.error !== undefined ? { error: entry.error } : {}),
    ...(entry.metadata ? { metadata: entry.metadata as Record<string, never> } : {}),
    ...(entry.label !== undefined ? { label: entry.label } : {}),
  }
}
