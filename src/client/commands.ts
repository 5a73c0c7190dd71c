/**
 * What the user can do, pure: which actions a node offers, input validation
 * for branch names and labels (the tree's own rules, checked before a round
 * trip), and the keyboard map (arrows move, Enter jumps, `f` forks, `l`
 * labels, `/` searches, ...) as a function from a key to a command.
 */
import { MAX_LABEL_LENGTH, MAX_NAME_LENGTH, nameProblem } from '../tree/validate.ts'
import type { SessionStatus } from '../types.ts'
import type { Layout, TreeIndex } from '../outline/index.ts'

/** Per-node and per-session actions offered in the preview. */
export interface NodeActions {
  /** The node is not the cursor. */
  readonly jump: boolean
  readonly fork: boolean
  readonly label: boolean
  /** The branch to summarize (the node's lane), or null when it is on no named branch. */
  readonly summarize: string | null
  readonly back: boolean
  readonly forward: boolean
  readonly export: boolean
}

/**
 * The actions valid for a node. `summarize` names the branch whose lane holds
 * the node. Back/forward follow the session's navigation history.
 */
export function availableActions(
  index: TreeIndex | undefined,
  nodeId: string | null,
  status: SessionStatus | undefined,
): NodeActions {
  const node = nodeId === null ? undefined : index?.byId.get(nodeId)
  const branch = node?.branch && index?.branchNames.has(node.branch) ? node.branch : null
  // Another process writes this session's tree (`readOnly`): nothing that changes it is offered here.
  const writable = status?.readOnly === undefined
  return {
    jump: writable && node !== undefined && index?.view.cursor !== node.nodeId,
    fork: writable && node !== undefined,
    label: writable && node !== undefined,
    summarize: writable ? branch : null,
    back: writable && status?.canGoBack === true,
    forward: writable && status?.canGoForward === true,
    export: index !== undefined,
  }
}

/** Validation failures, as i18n keys. */
export type InputProblem =
  | 'nameRequired'
  | 'nameTooLong'
  | 'nameInvalid'
  | 'nameBidi'
  | 'nameExists'
  | 'labelTooLong'
  | 'labelInvalid'
  | 'labelBidi'
  | 'labelExists'

/** Branch names: the tree's rules (trimmed, 1–100 printable characters), not an existing branch. */
export function validateBranchName(
  raw: string,
  existing: ReadonlySet<string>,
): { value: string } | { problem: InputProblem } {
  const value = raw.trim()
  if (value === '') return { problem: 'nameRequired' }
  const problem = typingProblem('fork', value)
  if (problem) return { problem }
  if (existing.has(value)) return { problem: 'nameExists' }
  return { value }
}

/**
 * Labels: the tree's rules (trimmed, 1–200 printable characters), unique in the tree (the node's
 * own label may be kept). An empty label clears it (`value: null`).
 */
export function validateLabel(
  raw: string,
  nodeId: string,
  labels: ReadonlyMap<string, string>,
): { value: string | null } | { problem: InputProblem } {
  const value = raw.trim()
  if (value === '') return { value: null }
  const problem = typingProblem('label', value)
  if (problem) return { problem }
  const owner = labels.get(value)
  if (owner !== undefined && owner !== nodeId) return { problem: 'labelExists' }
  return { value }
}

/**
 * What is wrong with a name or label while it is typed (or pasted): only the
 * problems more typing cannot fix (too long, forbidden characters), so an
 * input is never cut silently and an empty field is not an error yet.
 */
export function typingProblem(kind: 'fork' | 'label', raw: string): InputProblem | undefined {
  const problem = nameProblem(raw.trim(), kind === 'fork' ? MAX_NAME_LENGTH : MAX_LABEL_LENGTH)
  return problem === undefined || problem === 'empty' ? undefined : RULE_PROBLEMS[kind][problem]
}

/** The tree's rules a branch name or label breaks, as i18n keys (an empty field means something else to each). */
const RULE_PROBLEMS = {
  fork: { tooLong: 'nameTooLong', control: 'nameInvalid', bidi: 'nameBidi' },
  label: { tooLong: 'labelTooLong', control: 'labelInvalid', bidi: 'labelBidi' },
} as const satisfies Record<'fork' | 'label', Record<'tooLong' | 'control' | 'bidi', InputProblem>>

/** A suggested name for a new branch at a node: `branch-N`, the first free N. */
export function suggestBranchName(existing: ReadonlySet<string>): string {
  for (let n = existing.size + 1; ; n++) if (!existing.has(`branch-${n}`)) return `branch-${n}`
}

// ---------------------------------------------------------------------------
// Keyboard

export interface KeyInput {
  readonly key: string
  readonly altKey?: boolean
  readonly ctrlKey?: boolean
  readonly metaKey?: boolean
  readonly shiftKey?: boolean
}

/** What a key asks for. `select` moves the selection; the others act on `id` (or the session). */
export type KeyCommand =
  | { readonly kind: 'select'; readonly id: string }
  /** Select a node that is not a visible row now (inside a fold): the panel opens the folds above it. */
  | { readonly kind: 'reveal'; readonly id: string }
  | { readonly kind: 'jump'; readonly id: string }
  | { readonly kind: 'fork'; readonly id: string }
  | { readonly kind: 'label'; readonly id: string }
  | { readonly kind: 'summarize'; readonly id: string }
  | { readonly kind: 'fold'; readonly id: string }
  | { readonly kind: 'unfold'; readonly id: string }
  | { readonly kind: 'search' }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }
  | { readonly kind: 'escape' }

/** The keys, for the help line: [key, i18n key of what it does]. */
export const KEY_HELP: ReadonlyArray<readonly [string, string]> = [
  ['↑ ↓', 'keys.move'],
  ['← →', 'keys.parentChild'],
  ['− +', 'keys.fold'],
  ['Enter', 'keys.jump'],
  ['f', 'keys.fork'],
  ['l', 'keys.label'],
  ['s', 'keys.summarize'],
  ['/', 'keys.search'],
  ['[ ]', 'keys.backForward'],
  ['c', 'keys.cursor'],
]

/**
 * Map one key press in the tree to a command, or null (the key is not ours:
 * the caller lets the browser have it). `selected` is the selected node id;
 * when it is not a visible row, movement starts from the top.
 */
export function keyCommand(
  layout: Layout,
  selected: string | null,
  cursor: string | null,
  input: KeyInput,
  pageSize = 10,
): KeyCommand | null {
  if (input.ctrlKey || input.metaKey) return null
  const rows = layout.rows
  const at = selected === null ? -1 : (layout.indexOf.get(selected) ?? -1)
  const select = (index: number): KeyCommand | null => {
    if (rows.length === 0) return null
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))]!
    return { kind: 'select', id: row.id }
  }
  const current = at >= 0 ? rows[at] : undefined
  if (input.altKey) {
    if (input.key === 'ArrowLeft') return { kind: 'back' }
    if (input.key === 'ArrowRight') return { kind: 'forward' }
    return null
  }
  switch (input.key) {
    case 'ArrowDown':
    case 'j':
      return select(at < 0 ? 0 : at + 1)
    case 'ArrowUp':
    case 'k':
      return select(at < 0 ? 0 : at - 1)
    case 'Home':
      return select(0)
    case 'End':
      return select(rows.length - 1)
    case 'PageDown':
      return select(at < 0 ? 0 : at + pageSize)
    case 'PageUp':
      return select(at < 0 ? 0 : at - pageSize)
    // As in an ARIA tree view: ← folds an open fork point, → opens a folded one.
    case 'ArrowLeft':
      if (!current) return select(0)
      if (current.foldable && current.hidden === undefined) return { kind: 'fold', id: current.id }
      return current.parentId !== null && layout.indexOf.has(current.parentId)
        ? { kind: 'select', id: current.parentId }
        : null
    case '-':
      return current?.foldable && current.hidden === undefined ? { kind: 'fold', id: current.id } : null
    case '+':
    case '=':
      return current?.hidden !== undefined ? { kind: 'unfold', id: current.id } : null
    case 'ArrowRight': {
      if (!current) return select(0)
      if (current.hidden !== undefined) return { kind: 'unfold', id: current.id }
      const next = rows[at + 1]
      return next && next.parentId === current.id ? { kind: 'select', id: next.id } : null
    }
    case 'Enter':
      return current ? { kind: 'jump', id: current.id } : null
    case 'f':
      return current ? { kind: 'fork', id: current.id } : null
    case 'l':
      return current ? { kind: 'label', id: current.id } : null
    case 's':
      return current ? { kind: 'summarize', id: current.id } : null
    case 'c':
      if (cursor === null) return null
      return layout.indexOf.has(cursor) ? { kind: 'select', id: cursor } : { kind: 'reveal', id: cursor }
    case '/':
      return { kind: 'search' }
    case '[':
      return { kind: 'back' }
    case ']':
      return { kind: 'forward' }
    case 'Escape':
      return { kind: 'escape' }
    default:
      return null
  }
}
