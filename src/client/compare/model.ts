/**
 * The compare view's pure half: which nodes can be picked (branch heads, the
 * cursor, the selected node), the default pair, and a service comparison
 * turned into display rows — each side's cells as marked segments (the left
 * side shows common and removed words, the right common and added), with the
 * first differing row as the divergence — plus keyboard moves. No React, no
 * DOM: unit-tested on its own.
 */
import type { CompareNode, CompareResult, CompareRow, TextDiff, ToolCallDiff, ToolResultDiff } from '../../types.ts'

/** A node the user can pick for either side. */
export interface CompareTarget {
  readonly nodeId: string
  /** `branch` heads, the `cursor`, the `selected` node, the node `picked` to compare it with. */
  readonly kind: 'branch' | 'cursor' | 'selected' | 'picked'
  /** The branch name for a head. */
  readonly name?: string
}

/** What the picker needs of the tree (a `SessionTreeOutline` fits). */
export interface PickSource {
  readonly cursor: string | null
  readonly branches: readonly { readonly name: string; readonly headId: string }[]
}

/**
 * The pickable targets: the selected node first (when there is one), then the node picked to
 * compare it with ("Compare with…"), then the cursor, then each branch head.
 */
export function compareTargets(
  source: PickSource,
  selected: string | null,
  picked: string | null = null,
): CompareTarget[] {
  const out: CompareTarget[] = []
  if (selected !== null) out.push({ nodeId: selected, kind: 'selected' })
  if (picked !== null) out.push({ nodeId: picked, kind: 'picked' })
  if (source.cursor !== null) out.push({ nodeId: source.cursor, kind: 'cursor' })
  for (const branch of source.branches) out.push({ nodeId: branch.headId, kind: 'branch', name: branch.name })
  return out
}

/** Target keys are unique even when one node is several targets (a head that is also the cursor). */
export function targetKey(target: CompareTarget): string {
  return target.kind === 'branch' ? `branch:${target.name}` : `${target.kind}:${target.nodeId}`
}

/** The default pair: A the selected node (else the cursor), B the first target at another node. */
export function defaultPair(targets: readonly CompareTarget[]): [CompareTarget, CompareTarget] | undefined {
  const a = targets[0]
  if (!a) return undefined
  const b = targets.find((target) => target.nodeId !== a.nodeId)
  return b ? [a, b] : undefined
}

/** A run of text in a cell. */
export interface Segment {
  readonly text: string
  readonly mark: 'same' | 'removed' | 'added' | 'elided'
}

/** One side of a display row. */
export interface Cell {
  readonly nodeId: string
  readonly role: string
  /** The text, then each tool call and result on its own line. */
  readonly lines: readonly (readonly Segment[])[]
}

export type DisplayKind = 'same' | 'changed' | 'only_a' | 'only_b'

export interface DisplayRow {
  readonly key: string
  readonly kind: DisplayKind
  readonly left?: Cell
  readonly right?: Cell
}

export interface CompareDisplay {
  readonly rows: readonly DisplayRow[]
  /** Index of the first row that differs (the divergence), -1 when none does. */
  readonly divergence: number
  /** Indexes of the rows that differ, in order (for next/previous change). */
  readonly changes: readonly number[]
}

function roleOf(node: CompareNode): string {
  return node.type === 'tool_call' || node.type === 'tool_result' ? 'tool' : (node.role ?? node.type)
}

function json(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
}

/** The segments of one side of a text diff. */
function sideOf(diff: TextDiff, side: 'a' | 'b'): Segment[] {
  if (diff.kind === 'whole') return [{ text: side === 'a' ? diff.a : diff.b, mark: side === 'a' ? 'removed' : 'added' }]
  const out: Segment[] = []
  for (const part of diff.parts) {
    if (part.kind === 'same') {
      if (part.elided) {
        const cut = part.text.indexOf('…')
        out.push(
          { text: part.text.slice(0, cut), mark: 'same' },
          { text: `…${part.elided}…`, mark: 'elided' },
          { text: part.text.slice(cut + 1), mark: 'same' },
        )
      } else out.push({ text: part.text, mark: 'same' })
    } else if ((part.kind === 'removed') === (side === 'a')) out.push({ text: part.text, mark: part.kind })
  }
  return out
}

function callLine(call: ToolCallDiff, side: 'a' | 'b'): Segment[] | undefined {
  switch (call.kind) {
    case 'same':
      return [{ text: `${call.name}(…)`, mark: 'same' }]
    case 'only_a':
      return side === 'a' ? [{ text: `${call.name}(${json(call.arguments)})`, mark: 'removed' }] : undefined
    case 'only_b':
      return side === 'b' ? [{ text: `${call.name}(${json(call.arguments)})`, mark: 'added' }] : undefined
    case 'changed': {
      const mark = side === 'a' ? 'removed' : 'added'
      const name = side === 'a' ? call.nameA : call.nameB
      const out: Segment[] = [
        { text: name, mark: call.nameA === call.nameB ? 'same' : mark },
        { text: '(', mark: 'same' },
      ]
      call.arguments.forEach((change, i) => {
        if (i > 0) out.push({ text: ', ', mark: 'same' })
        if (change.kind === 'removed' && side === 'b') return
        if (change.kind === 'added' && side === 'a') return
        out.push({ text: `${change.path || '(arguments)'}: `, mark: 'same' })
        if (change.kind === 'changed' && change.text) out.push(...sideOf(change.text, side))
        else
          out.push({
            text: json(
              change.kind === 'added'
                ? change.b
                : change.kind === 'removed'
                  ? change.a
                  : side === 'a'
                    ? change.a
                    : change.b,
            ),
            mark,
          })
      })
      out.push({ text: ')', mark: 'same' })
      return out
    }
  }
}

function resultLine(result: ToolResultDiff, side: 'a' | 'b', node: CompareNode, i: number): Segment[] | undefined {
  const arrow: Segment = { text: '→ ', mark: 'same' }
  switch (result.kind) {
    case 'same':
      return [arrow, { text: node.toolResults?.[i]?.content ?? '', mark: 'same' }]
    case 'only_a':
      return side === 'a' ? [arrow, { text: result.content, mark: 'removed' }] : undefined
    case 'only_b':
      return side === 'b' ? [arrow, { text: result.content, mark: 'added' }] : undefined
    case 'changed':
      return [arrow, ...sideOf(result.text, side)]
  }
}

/** A cell of a node that stands alone (every line marked as only on its side). */
function loneCell(node: CompareNode, mark: 'removed' | 'added'): Cell {
  const lines: Segment[][] = []
  if (node.text !== '') lines.push([{ text: node.text, mark }])
  for (const call of node.toolCalls ?? []) lines.push([{ text: `${call.name}(${json(call.arguments)})`, mark }])
  for (const result of node.toolResults ?? [])
    lines.push([
      { text: '→ ', mark: 'same' },
      { text: result.content, mark },
    ])
  return { nodeId: node.nodeId, role: roleOf(node), lines }
}

function pairCell(row: Extract<CompareRow, { kind: 'pair' }>, side: 'a' | 'b'): Cell {
  const node = side === 'a' ? row.a : row.b
  const lines: Segment[][] = []
  const text = sideOf(row.diff.text, side)
  if (text.some((segment) => segment.text !== '')) lines.push(text)
  for (const call of row.diff.toolCalls) {
    const line = callLine(call, side)
    if (line) lines.push(line)
  }
  row.diff.toolResults.forEach((result, i) => {
    const line = resultLine(result, side, node, i)
    if (line) lines.push(line)
  })
  return { nodeId: node.nodeId, role: roleOf(node), lines }
}

/** The comparison as display rows. */
export function displayRows(result: CompareResult): CompareDisplay {
  const rows: DisplayRow[] = result.rows.map((row): DisplayRow => {
    switch (row.kind) {
      case 'pair':
        return {
          key: `${row.a.nodeId}|${row.b.nodeId}`,
          kind: row.diff.same ? 'same' : 'changed',
          left: pairCell(row, 'a'),
          right: pairCell(row, 'b'),
        }
      case 'only_a':
        return { key: `${row.a.nodeId}|`, kind: 'only_a', left: loneCell(row.a, 'removed') }
      case 'only_b':
        return { key: `|${row.b.nodeId}`, kind: 'only_b', right: loneCell(row.b, 'added') }
    }
  })
  const changes = rows.flatMap((row, i) => (row.kind === 'same' ? [] : [i]))
  return { rows, divergence: changes[0] ?? -1, changes }
}

/** Keys of the compare view. */
export type CompareKey =
  'up' | 'down' | 'first' | 'last' | 'nextChange' | 'previousChange' | 'close' | 'pageUp' | 'pageDown'

export function compareKey(
  key: string,
  modifiers: { readonly ctrl?: boolean; readonly meta?: boolean; readonly alt?: boolean } = {},
): CompareKey | undefined {
  if (modifiers.ctrl || modifiers.meta || modifiers.alt) return undefined
  switch (key) {
    case 'ArrowUp':
    case 'k':
      return 'up'
    case 'ArrowDown':
    case 'j':
      return 'down'
    case 'Home':
      return 'first'
    case 'End':
      return 'last'
    case 'PageUp':
      return 'pageUp'
    case 'PageDown':
      return 'pageDown'
    case 'n':
      return 'nextChange'
    case 'p':
    case 'N':
      return 'previousChange'
    case 'Escape':
      return 'close'
    default:
      return undefined
  }
}

/** The row focused after a key (`page`: rows per page). */
export function moveFocus(
  display: CompareDisplay,
  focus: number,
  key: Exclude<CompareKey, 'close'>,
  page: number,
): number {
  const last = display.rows.length - 1
  if (last < 0) return -1
  const clamp = (i: number) => Math.max(0, Math.min(last, i))
  switch (key) {
    case 'up':
      return clamp(focus - 1)
    case 'down':
      return clamp(focus + 1)
    case 'first':
      return 0
    case 'last':
      return last
    case 'pageUp':
      return clamp(focus - page)
    case 'pageDown':
      return clamp(focus + page)
    case 'nextChange':
      return display.changes.find((i) => i > focus) ?? focus
    case 'previousChange':
      return [...display.changes].reverse().find((i) => i < focus) ?? focus
  }
}
