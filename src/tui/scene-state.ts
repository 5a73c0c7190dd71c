/**
 * The tree scene's state and its keyboard, pure: a key press becomes the next
 * state plus, for an action, one `SceneEffect` the component runs against the
 * service, so every key is tested as data (`test/unit/tui/tui-scene.test.ts`). The
 * keys follow Pi's `/tree`: docs/tui.md, "Keys".
 */
import type { FilterMode, Layout, TreeIndex } from '../outline/index.ts'
import { FILTER_MODES, leavesPath, unfoldTo } from '../outline/index.ts'
import type { HostKey } from './host.ts'

export type SummaryKind = 'none' | 'summarize' | 'custom'
export type FilesChoice = 'conversation' | 'files' | 'both'

/** A move the scene is about to make, collected over the prompts that precede it. */
export type PendingMove =
  | { readonly kind: 'jump'; readonly nodeId: string; readonly summary?: SummaryKind; readonly instructions?: string }
  | {
      readonly kind: 'fork'
      readonly nodeId: string
      readonly branch?: string
      readonly summary?: SummaryKind
      readonly instructions?: string
    }

/** What the component does for an action (each one service call, then a fresh outline). */
export type SceneEffect =
  | {
      readonly kind: 'jump'
      readonly nodeId: string
      readonly summary: SummaryKind
      readonly instructions?: string
      readonly files?: FilesChoice
    }
  | {
      readonly kind: 'fork'
      readonly nodeId: string
      readonly branch: string
      readonly summary: SummaryKind
      readonly instructions?: string
    }
  | { readonly kind: 'back' }
  | { readonly kind: 'forward' }
  | { readonly kind: 'label'; readonly nodeId: string; readonly text: string | null }
  | { readonly kind: 'summarize'; readonly branch: string }
  | { readonly kind: 'compare'; readonly a: string; readonly b: string }
  | { readonly kind: 'new-session'; readonly nodeId: string }
  | { readonly kind: 'restore-preview'; readonly nodeId: string; readonly files: 'files' | 'both' }
  | {
      readonly kind: 'restore'
      readonly nodeId: string
      readonly files: 'files' | 'both'
      readonly decisions: Readonly<Record<string, 'keep' | 'overwrite'>>
    }
  | { readonly kind: 'close' }

/** One file of a restore preview, as the scene lists it. */
export interface RestoreLine {
  readonly path: string
  readonly action: string
  readonly conflict: boolean
  readonly blocked?: string
  readonly stat?: string
}

/** What covers the outline, if anything (one at a time). */
export type Overlay =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'input'
      readonly purpose: 'fork' | 'label' | 'instructions'
      readonly value: string
      readonly move?: PendingMove
      readonly nodeId?: string
    }
  | { readonly kind: 'choose-summary'; readonly index: number; readonly move: PendingMove }
  | { readonly kind: 'choose-files'; readonly index: number; readonly nodeId: string }
  | {
      readonly kind: 'restore'
      readonly nodeId: string
      readonly files: 'files' | 'both'
      readonly lines: readonly RestoreLine[]
      readonly decisions: Readonly<Record<string, 'keep' | 'overwrite'>>
      readonly index: number
    }
  | { readonly kind: 'text'; readonly title: string; readonly lines: readonly string[]; readonly scroll: number }

export interface SceneState {
  /** The selected row's node id (kept across relayouts; `null` before the first outline). */
  readonly selected: string | null
  /** Index of the first outline row on screen. */
  readonly top: number
  readonly query: string
  readonly filter: FilterMode
  readonly folded: ReadonlySet<string>
  /** First node of a compare, waiting for the second. */
  readonly compareFrom: string | null
  readonly overlay: Overlay
  /** One status line (the last action's outcome, or an error). */
  readonly status: { readonly text: string; readonly error: boolean } | null
  /** An action is running: keys wait. */
  readonly busy: boolean
}

export const INITIAL_SCENE: SceneState = {
  selected: null,
  top: 0,
  query: '',
  filter: 'all',
  folded: new Set(),
  compareFrom: null,
  overlay: { kind: 'none' },
  status: null,
  busy: false,
}

export const SUMMARY_KINDS: readonly SummaryKind[] = ['none', 'summarize', 'custom']
export const FILES_CHOICES: readonly FilesChoice[] = ['conversation', 'files', 'both']

/** What a key press needs to know about the tree as drawn. */
export interface SceneView {
  readonly index: TreeIndex
  readonly layout: Layout
  /** Outline rows that fit on screen. */
  readonly height: number
}

export interface Step {
  readonly state: SceneState
  readonly effect?: SceneEffect
}

/** The overlay closed, with what closing it asks for (if anything). */
function closed(state: SceneState, effect?: SceneEffect): Step {
  const next: SceneState = { ...state, overlay: { kind: 'none' } }
  return effect === undefined ? { state: next } : { state: next, effect }
}

/** The selected row's index in the layout (the nearest row when the selected node is filtered out). */
export function selectedRow(state: SceneState, view: SceneView): number {
  const rows = view.layout.rows
  if (rows.length === 0) return -1
  if (state.selected !== null) {
    const at = view.layout.indexOf.get(state.selected)
    if (at !== undefined) return at
  }
  return Math.min(Math.max(0, state.top), rows.length - 1)
}

/** The state with the selection on row `row` (clamped) and the window scrolled to show it. */
export function selectRow(state: SceneState, view: SceneView, row: number): SceneState {
  const rows = view.layout.rows
  if (rows.length === 0) return state
  const at = Math.min(Math.max(0, row), rows.length - 1)
  return { ...state, selected: rows[at]!.id, top: reveal(state.top, at, view.height, rows.length) }
}

function reveal(top: number, row: number, height: number, count: number): number {
  const h = Math.max(1, height)
  let next = top
  if (row < next) next = row
  if (row >= next + h) next = row - h + 1
  return Math.max(0, Math.min(next, Math.max(0, count - h)))
}

/** Select the cursor ("you are here"), unfolding what hides it. */
export function selectCursor(state: SceneState, view: SceneView): SceneState {
  const cursor = view.index.view.cursor
  if (cursor === null) return state
  return { ...state, selected: cursor, folded: unfoldTo(view.index, state.folded, cursor) }
}

/** After a relayout: keep the selected node, else the row it was at; keep the window inside the rows. */
export function settle(state: SceneState, view: SceneView): SceneState {
  const rows = view.layout.rows
  if (rows.length === 0) return { ...state, top: 0 }
  const row = selectedRow(state, view)
  return { ...state, selected: rows[row]!.id, top: reveal(state.top, row, view.height, rows.length) }
}

const isPrintable = (input: string, key: HostKey): boolean =>
  input.length > 0 &&
  !key.ctrl &&
  !key.meta &&
  !key.return &&
  !key.escape &&
  !key.tab &&
  // eslint-disable-next-line no-control-regex
  !/[\u0000-\u001f\u007f]/.test(input)

/** Upper-case letters are actions; everything else printable types into the search. */
const ACTION_LETTERS = new Set(['F', 'B', 'R', 'L', 'S', 'C', 'N', 'T', 'G'])

/**
 * A chunk of input as key presses: a burst read at once (fast typing, a paste,
 * text followed by Enter) arrives as one string; its line breaks are Enter.
 */
export function keyPresses(input: string, key: HostKey): Array<readonly [string, HostKey]> {
  // eslint-disable-next-line no-control-regex
  if (input.length <= 1 || !/[\r\n]/.test(input)) return [[input, key]]
  const out: Array<readonly [string, HostKey]> = []
  let text = ''
  for (const char of input) {
    if (char === '\r' || char === '\n') {
      if (text !== '') out.push([text, {}])
      text = ''
      out.push(['', { return: true }])
    } else text += char
  }
  if (text !== '') out.push([text, {}])
  return out
}

/** One key press. */
export function press(state: SceneState, view: SceneView, input: string, key: HostKey): Step {
  if (state.busy) return { state }
  switch (state.overlay.kind) {
    case 'input':
      return pressInput(state, state.overlay, view, input, key)
    case 'choose-summary':
      return pressSummary(state, state.overlay, input, key)
    case 'choose-files':
      return pressFiles(state, state.overlay, key)
    case 'restore':
      return pressRestore(state, state.overlay, input, key)
    case 'text':
      return pressText(state, state.overlay, view, key)
    case 'none':
      return pressOutline(state, view, input, key)
  }
}

function pressOutline(state: SceneState, view: SceneView, input: string, key: HostKey): Step {
  const rows = view.layout.rows
  const row = selectedRow(state, view)
  const node = row >= 0 ? rows[row] : undefined
  const cleared = { ...state, status: null }
  if (key.upArrow) return { state: selectRow(cleared, view, row - 1) }
  if (key.downArrow) return { state: selectRow(cleared, view, row + 1) }
  if (key.pageUp) return { state: selectRow(cleared, view, row - Math.max(1, view.height - 1)) }
  if (key.pageDown) return { state: selectRow(cleared, view, row + Math.max(1, view.height - 1)) }
  if (key.home) return { state: selectRow(cleared, view, 0) }
  if (key.end) return { state: selectRow(cleared, view, rows.length - 1) }
  if (key.tab) {
    const at = FILTER_MODES.indexOf(state.filter)
    const next = FILTER_MODES[(at + (key.shift ? FILTER_MODES.length - 1 : 1)) % FILTER_MODES.length]!
    return { state: { ...cleared, filter: next } }
  }
  if (key.escape) {
    if (state.compareFrom !== null) return { state: { ...cleared, compareFrom: null } }
    if (state.query !== '') return { state: { ...cleared, query: '' } }
    return { state, effect: { kind: 'close' } }
  }
  if (key.backspace || key.delete) {
    return { state: { ...cleared, query: [...state.query].slice(0, -1).join('') } }
  }
  if (key.leftArrow || key.rightArrow) {
    if (!node) return { state }
    if (node.foldable) {
      const folded = new Set(state.folded)
      if (key.leftArrow) folded.add(node.id)
      else folded.delete(node.id)
      return { state: { ...cleared, folded } }
    }
    // Not a fork point: ← goes to the visible parent, → to the first child.
    if (key.leftArrow && node.parentId !== null) {
      const parent = view.layout.indexOf.get(node.parentId)
      return { state: parent === undefined ? state : selectRow(cleared, view, parent) }
    }
    if (key.rightArrow && node.childCount > 0) return { state: selectRow(cleared, view, row + 1) }
    return { state }
  }
  if (key.return) {
    if (!node) return { state }
    const move: PendingMove = { kind: 'jump', nodeId: node.id }
    return leavesPath(view.index, node.id)
      ? { state: { ...cleared, overlay: { kind: 'choose-summary', index: 0, move } } }
      : { state: cleared, effect: { kind: 'jump', nodeId: node.id, summary: 'none' } }
  }
  if (input.length === 1 && ACTION_LETTERS.has(input) && !key.ctrl && !key.meta) {
    return action(cleared, view, input, node?.id)
  }
  if (isPrintable(input, key)) return { state: { ...cleared, query: state.query + input } }
  return { state }
}

function action(state: SceneState, view: SceneView, letter: string, nodeId: string | undefined): Step {
  switch (letter) {
    case 'B':
      return { state, effect: { kind: 'back' } }
    case 'R':
      return { state, effect: { kind: 'forward' } }
    case 'G':
      return { state: selectCursor(state, view) }
  }
  if (nodeId === undefined) return { state }
  switch (letter) {
    case 'F':
      return {
        state: { ...state, overlay: { kind: 'input', purpose: 'fork', value: '', move: { kind: 'fork', nodeId } } },
      }
    case 'L': {
      const current = view.index.byId.get(nodeId)?.label ?? ''
      return { state: { ...state, overlay: { kind: 'input', purpose: 'label', value: current, nodeId } } }
    }
    case 'S': {
      const branch = view.index.byId.get(nodeId)?.branch || view.index.view.activeBranch
      return { state, effect: { kind: 'summarize', branch } }
    }
    case 'C':
      if (state.compareFrom === null) return { state: { ...state, compareFrom: nodeId } }
      return { state: { ...state, compareFrom: null }, effect: { kind: 'compare', a: state.compareFrom, b: nodeId } }
    case 'N':
      return { state, effect: { kind: 'new-session', nodeId } }
    case 'T':
      return { state: { ...state, overlay: { kind: 'choose-files', index: 0, nodeId } } }
  }
  return { state }
}

function pressInput(
  state: SceneState,
  overlay: Extract<Overlay, { kind: 'input' }>,
  view: SceneView,
  input: string,
  key: HostKey,
): Step {
  if (key.escape) return closed(state)
  if (key.backspace || key.delete)
    return { state: { ...state, overlay: { ...overlay, value: [...overlay.value].slice(0, -1).join('') } } }
  if (key.return) {
    const value = overlay.value.trim()
    switch (overlay.purpose) {
      case 'label':
        return overlay.nodeId === undefined
          ? closed(state)
          : closed(state, { kind: 'label', nodeId: overlay.nodeId, text: value === '' ? null : value })
      case 'fork': {
        if (value === '' || overlay.move?.kind !== 'fork') return { state }
        const move: PendingMove = { ...overlay.move, branch: value }
        return leavesPath(view.index, move.nodeId)
          ? { state: { ...state, overlay: { kind: 'choose-summary', index: 0, move } } }
          : closed(state, { kind: 'fork', nodeId: move.nodeId, branch: value, summary: 'none' })
      }
      case 'instructions': {
        if (value === '' || overlay.move === undefined) return { state }
        return closed(state, moveEffect(overlay.move, 'custom', value))
      }
    }
  }
  if (isPrintable(input, key)) return { state: { ...state, overlay: { ...overlay, value: overlay.value + input } } }
  return { state }
}

function moveEffect(move: PendingMove, summary: SummaryKind, instructions?: string): SceneEffect {
  const extra = instructions === undefined ? {} : { instructions }
  return move.kind === 'jump'
    ? { kind: 'jump', nodeId: move.nodeId, summary, ...extra }
    : { kind: 'fork', nodeId: move.nodeId, branch: move.branch ?? '', summary, ...extra }
}

function choose(index: number, count: number, key: HostKey, input: string): number | 'pick' | 'cancel' | undefined {
  if (key.escape) return 'cancel'
  if (key.return) return 'pick'
  if (key.upArrow) return (index + count - 1) % count
  if (key.downArrow || key.tab) return (index + 1) % count
  const digit = Number(input)
  if (input.length === 1 && Number.isInteger(digit) && digit >= 1 && digit <= count) return digit - 1
  return undefined
}

function pressSummary(
  state: SceneState,
  overlay: Extract<Overlay, { kind: 'choose-summary' }>,
  input: string,
  key: HostKey,
): Step {
  const picked = choose(overlay.index, SUMMARY_KINDS.length, key, input)
  if (picked === undefined) return { state }
  if (picked === 'cancel') return closed(state)
  if (picked !== 'pick') {
    // A digit picks at once; arrows only move.
    if (/^[1-9]$/.test(input)) return pressSummary(state, { ...overlay, index: picked }, '', { return: true })
    return { state: { ...state, overlay: { ...overlay, index: picked } } }
  }
  const kind = SUMMARY_KINDS[overlay.index]!
  if (kind === 'custom')
    return { state: { ...state, overlay: { kind: 'input', purpose: 'instructions', value: '', move: overlay.move } } }
  return closed(state, moveEffect(overlay.move, kind))
}

function pressFiles(state: SceneState, overlay: Extract<Overlay, { kind: 'choose-files' }>, key: HostKey): Step {
  const picked = choose(overlay.index, FILES_CHOICES.length, key, '')
  if (picked === undefined) return { state }
  if (picked === 'cancel') return closed(state)
  if (picked !== 'pick') return { state: { ...state, overlay: { ...overlay, index: picked } } }
  const files = FILES_CHOICES[overlay.index]!
  if (files === 'conversation') return closed(state, { kind: 'jump', nodeId: overlay.nodeId, summary: 'none' })
  return closed(state, { kind: 'restore-preview', nodeId: overlay.nodeId, files })
}

/** The restore preview: each conflict is decided (k keep mine, o overwrite) before Enter applies it. */
function pressRestore(
  state: SceneState,
  overlay: Extract<Overlay, { kind: 'restore' }>,
  input: string,
  key: HostKey,
): Step {
  const count = overlay.lines.length
  if (key.escape) return closed(state)
  if (key.upArrow && count > 0)
    return { state: { ...state, overlay: { ...overlay, index: (overlay.index + count - 1) % count } } }
  if (key.downArrow && count > 0)
    return { state: { ...state, overlay: { ...overlay, index: (overlay.index + 1) % count } } }
  const line = overlay.lines[overlay.index]
  if ((input === 'k' || input === 'o') && line?.conflict) {
    const decisions = { ...overlay.decisions, [line.path]: input === 'k' ? ('keep' as const) : ('overwrite' as const) }
    return { state: { ...state, overlay: { ...overlay, decisions } } }
  }
  if (key.return) {
    const undecided = overlay.lines.filter((l) => l.conflict && overlay.decisions[l.path] === undefined)
    if (undecided.length > 0) {
      const at = overlay.lines.indexOf(undecided[0]!)
      return { state: { ...state, overlay: { ...overlay, index: at } } }
    }
    return closed(state, {
      kind: 'restore',
      nodeId: overlay.nodeId,
      files: overlay.files,
      decisions: overlay.decisions,
    })
  }
  return { state }
}

function pressText(
  state: SceneState,
  overlay: Extract<Overlay, { kind: 'text' }>,
  view: SceneView,
  key: HostKey,
): Step {
  const page = Math.max(1, view.height - 1)
  const last = Math.max(0, overlay.lines.length - view.height)
  const scrollTo = (scroll: number): Step => ({
    state: { ...state, overlay: { ...overlay, scroll: Math.max(0, Math.min(last, scroll)) } },
  })
  if (key.escape || key.return) return closed(state)
  if (key.upArrow) return scrollTo(overlay.scroll - 1)
  if (key.downArrow) return scrollTo(overlay.scroll + 1)
  if (key.pageUp) return scrollTo(overlay.scroll - page)
  if (key.pageDown) return scrollTo(overlay.scroll + page)
  if (key.home) return scrollTo(0)
  if (key.end) return scrollTo(last)
  return { state }
}
