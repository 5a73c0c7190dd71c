/**
 * Shared fixtures of the client tests: a fake of the generated `sessionTree`
 * namespace backed by a real SessionTree (so views are exactly what the
 * service serves), and large trees built the same way.
 */
import { SessionTree, type TreeResult } from '../../src/tree/index.ts'
import { compare } from '../../src/tree/compare.ts'
import { boundedComparison } from '../../src/service/compare-wire.ts'
import type { Result, TreeRemote } from '../../src/client/controller.ts'
import type { MoveKind } from '../../src/tree/move.ts'
import type {
  ForkResult,
  MoveResult,
  SessionStatus,
  SessionTreeOutline,
  SessionTreeOutlineChanges,
} from '../../src/types.ts'
import { user, assistant, value } from './messages.ts'

/** A tree result as the remote answers it: the value, or the error's code and message only. */
export const wrap = <T>(r: TreeResult<T>): Result<T> =>
  r.ok ? { ok: true, value: r.value } : { ok: false, error: { code: r.error.code, message: r.error.message } }

/** What `session` answers for `tree` in stock mode with `surfaceNote`: nothing quarantined, no sidecar warnings. */
export function stockStatus(tree: SessionTree, surfaceNote: string): SessionStatus {
  return {
    ...tree.info(),
    surfaceMode: 'stock',
    surfaceNote,
    revision: `1:${tree.logSeq}`,
    quarantine: [],
    sidecarWarnings: [],
  }
}

export interface FakeRemote {
  readonly remote: TreeRemote
  readonly calls: string[]
  /** The next call of `method` (a move: its kind, `jumpWith`/`forkWith` with a summary) answers this error instead. */
  failNext(
    method: keyof TreeRemote | MoveKind | 'jumpWith' | 'forkWith',
    error: { code: string; message: string },
  ): void
  status: Partial<SessionStatus>
}

export function fakeRemote(tree: SessionTree): FakeRemote {
  const calls: string[] = []
  const failures = new Map<string, { code: string; message: string }>()
  const fake: FakeRemote = {
    remote: undefined as unknown as TreeRemote,
    calls,
    failNext: (method, error) => failures.set(method, error),
    status: {},
  }
  const guard = <T>(method: string, run: () => Result<T>): Promise<Result<T>> => {
    calls.push(method)
    const error = failures.get(method)
    if (error) {
      failures.delete(method)
      return Promise.resolve({ ok: false, error })
    }
    return Promise.resolve(run())
  }
  const move = (r: TreeResult<unknown>): Result<MoveResult> =>
    r.ok
      ? {
          ok: true,
          value: {
            cursor: tree.cursor,
            messages: tree.messages(),
            branch: tree.activeBranch,
            mode: 'stock',
            switch: { appendedEvents: 7, copies: 0, shadowed: 1, noop: false },
          },
        }
      : wrap(r as TreeResult<never>)
  const fork = (nodeId: string, branch: string): Result<ForkResult> => {
    const forked = tree.fork(nodeId, branch)
    return forked.ok ? { ok: true, value: { ...forked.value, messages: tree.messages(), mode: 'stock' } } : wrap(forked)
  }
  ;(fake as { remote: TreeRemote }).remote = {
    session: () =>
      guard('session', () => ({
        ok: true,
        value: { ...stockStatus(tree, 'Jumps rewrite the model history.'), ...fake.status } as SessionStatus,
      })),
    outlineChanges: (_a, since) => guard('outlineChanges', () => ({ ok: true, value: tree.outlineChanges(since) })),
    export: () => guard('export', () => wrap(tree.linearExport())),
    // One method for every move, as the panel sends it; the guard is named for the move's kind (`jumpWith`/
    // `forkWith` when it asks for a summary, `none` being none as the service reads it, which is not this fake's business: the move itself is).
    moveBrief: (_a, m) => {
      const summarizes = m.summary !== undefined && m.summary.kind !== 'none' ? 'With' : ''
      return guard(`${m.kind}${m.kind === 'jump' || m.kind === 'fork' ? summarizes : ''}`, () =>
        m.kind === 'jump'
          ? move(tree.jump(m.nodeId ?? null))
          : m.kind === 'fork'
            ? fork(m.nodeId!, m.branch!)
            : move(m.kind === 'back' ? tree.back() : tree.forward()),
      )
    },
    compare: (_a, a, b) =>
      guard('compare', () => {
        const compared = compare(tree, a, b)
        return compared.ok ? { ok: true, value: boundedComparison(compared.value) } : wrap(compared)
      }),
    label: (_a, nodeId, label) => guard('label', () => wrap(tree.label(nodeId, label))),
    summarize: (_a, branch) =>
      guard('summarize', () => ({
        ok: true,
        value: { branch, nodeId: tree.cursor ?? '', summary: 'digest', createdAt: new Date(0).toISOString() },
      })),
  }
  return fake
}

/** q1 → a1 → q2 → call(read → banana) → a2; cursor at a2. */
export function smallTree(): { tree: SessionTree; ids: Record<'q1' | 'a1' | 'q2' | 'call' | 'a2', string> } {
  const tree = new SessionTree('s')
  const q1 = value(tree.append(user('first question'))).nodeId
  const a1 = value(tree.append(assistant('first answer'))).nodeId
  const q2 = value(tree.append(user('please read notes'))).nodeId
  const call = value(
    tree.append(null, {
      type: 'tool_call',
      content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: { file_path: 'notes.txt' } }],
      summary: 'read({"file_path":"notes.txt"})',
    }),
  ).nodeId
  value(tree.attachToolResult('c1', { content: 'banana' }))
  const a2 = value(tree.append(assistant('the file says banana'))).nodeId
  return { tree, ids: { q1, a1, q2, call, a2 } }
}

/**
 * A 10,000-node-class tree built with the real SessionTree, so its `view()`
 * is exactly what `list` serves (including every branch's root-to-head
 * `nodeIds`): a main line of turns (user prompt, a tool call folded with its
 * result, an answer) and `sides` side branches of six nodes spread along it
 * (default: 15% of the nodes).
 */
export function realBigView(n: number, sides: number = Math.floor((n * 0.15) / 6)): SessionTreeOutline {
  const tree = new SessionTree('big')
  const mainLength = n - sides * 6
  const every = Math.max(1, Math.floor(mainLength / Math.max(1, sides)))
  const forkPoints: string[] = []
  let count = 0
  while (count < mainLength) {
    const turn = Math.floor(count / 3)
    let id: string
    if (count % 3 === 0) id = value(tree.append(user(`question ${turn}: what about part ${turn} of the plan?`))).nodeId
    else if (count % 3 === 1) {
      id = value(
        tree.append(null, {
          type: 'tool_call',
          content: [{ type: 'tool_call', id: `c${count}`, name: 'read', arguments: { file_path: `part-${turn}.md` } }],
          summary: `read({"file_path":"part-${turn}.md"})`,
        }),
      ).nodeId
      value(tree.attachToolResult(`c${count}`, { content: `contents of part ${turn}` }))
    } else id = value(tree.append(assistant(`answer ${turn}: part ${turn} is done`))).nodeId
    count += 1
    if (count % every === 0 && forkPoints.length < sides) forkPoints.push(id)
  }
  const head = tree.cursor!
  forkPoints.forEach((at, branch) => {
    value(tree.fork(at, `idea-${branch + 1}`))
    for (let k = 0; k < 6; k++)
      value(
        tree.append(
          k % 2 === 0 ? user(`side question ${branch + 1}.${k}`) : assistant(`side answer ${branch + 1}.${k}`),
        ),
      )
  })
  value(tree.jump(head))
  return tree.outline()
}

/** A fixed outline as a whole `outlineChanges` answer (a fake remote serving a view no tree holds). */
export function wholeOutline(view: SessionTreeOutline): SessionTreeOutlineChanges {
  const { nodes, ...position } = view
  return { ...position, version: 'fixed:1', base: null, nodeCount: nodes.length, changedAt: [], nodes }
}
