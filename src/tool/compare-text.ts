/**
 * `/tree compare <a> <b>` and the `tree` tool's compare: two nodes (ids,
 * labels or branch names) compared through the service, rendered as a
 * compact text diff — one line per aligned row, words removed and added
 * marked `[-old-]{+new+}`, long common stretches shortened.
 */
import type {
  CompareNode,
  CompareRow,
  SideTotals,
  TextDiff,
  ToolCallDiff,
  ToolResultDiff,
} from '../tree/compare-types.ts'
import { fail, ok, type TreeResult } from '../tree/errors.ts'
import type { SessionTree } from '../tree/session-tree.ts'
import type { JsonValue } from '../tree/types.ts'
import type { CompareResult } from '../service/compare-wire.ts'
import type { FilesComparison } from '../service/workspace-wire.ts'
import type { FileState } from '../workspace/types.ts'
import { resolveNode } from './render.ts'
import { notFound } from './wording.ts'

/** Rows a rendering shows; characters of common text kept around an edit. */
export const COMPARE_TEXT_ROWS = 40
const CONTEXT = 40
const MAX_LINE = 600

/** A node id, a label, or a branch name (its head), in that order. */
export function resolveCompareTarget(tree: SessionTree, text: string): string | undefined {
  const node = resolveNode(tree, text)
  if (node !== undefined) return node
  const wanted = text.trim()
  return tree.branchHeadList().find(([name]) => name === wanted)?.[1]
}

/** Resolve both targets (each a node id, label or branch name). */
export function resolvePair(tree: SessionTree, a: string, b: string): TreeResult<[string, string]> {
  if (typeof a !== 'string' || a.trim() === '' || typeof b !== 'string' || b.trim() === '')
    return fail('INVALID_ARGUMENT', 'compare needs two nodes (ids, labels or branch names)')
  const ra = resolveCompareTarget(tree, a)
  if (ra === undefined) return notFound(a, true)
  const rb = resolveCompareTarget(tree, b)
  if (rb === undefined) return notFound(b, true)
  return ok([ra, rb])
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ')
}

/** A common stretch, shortened in the middle when long (`keepStart`/`keepEnd`: whether its ends touch an edit). */
function common(text: string, touchesBefore: boolean, touchesAfter: boolean): string {
  const flat = oneLine(text)
  const keep = (touchesBefore ? CONTEXT : 0) + (touchesAfter ? CONTEXT : 0)
  if (flat.length <= keep + 10 || flat.length <= 2 * CONTEXT) return flat
  const head = touchesBefore ? flat.slice(0, CONTEXT) : ''
  const tail = touchesAfter ? flat.slice(-CONTEXT) : ''
  return `${head}…${tail}`
}

/** Why a diff shows the texts whole, per reason (a table, so a new reason cannot fall into another's words). */
const WHOLE_BECAUSE: Readonly<Record<Extract<TextDiff, { kind: 'whole' }>['reason'], string>> = {
  size: 'too large to diff',
  edits: 'too many changes to diff',
  budget: 'the compare ran out of diff budget',
}

/** `same [-removed-]{+added+} same`, common text shortened around the edits. */
export function renderTextDiff(diff: TextDiff): string {
  if (diff.kind === 'whole') {
    return `(${WHOLE_BECAUSE[diff.reason]}, shown whole) [-${clip(oneLine(diff.a))}-]{+${clip(oneLine(diff.b))}+}`
  }
  const parts = diff.parts
  return parts
    .map((part, i) => {
      if (part.kind === 'removed') return `[-${oneLine(part.text)}-]`
      if (part.kind === 'added') return `{+${oneLine(part.text)}+}`
      const text = part.elided ? part.text.replace('…', `…(${part.elided} characters)…`) : part.text
      return common(text, i > 0, i < parts.length - 1)
    })
    .join('')
}

function clip(text: string, max = MAX_LINE): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function json(value: JsonValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value))
}

function callText(call: ToolCallDiff): string {
  switch (call.kind) {
    case 'same':
      return `${call.name}(…same)`
    case 'only_a':
      return `[-${call.name}(${json(call.arguments)})-]`
    case 'only_b':
      return `{+${call.name}(${json(call.arguments)})+}`
    case 'changed': {
      const name = call.nameA === call.nameB ? call.nameA : `[-${call.nameA}-]{+${call.nameB}+}`
      const args = call.arguments.map((change) => {
        const at = change.path === '' ? '' : `${change.path}: `
        if (change.kind === 'removed') return `${at}[-${json(change.a)}-]`
        if (change.kind === 'added') return `${at}{+${json(change.b)}+}`
        return `${at}${change.text ? renderTextDiff(change.text) : `[-${json(change.a)}-]{+${json(change.b)}+}`}`
      })
      return `${name}(${args.join('; ')})`
    }
  }
}

function resultText(result: ToolResultDiff): string {
  switch (result.kind) {
    case 'same':
      return '→ same result'
    case 'only_a':
      return `→ [-${oneLine(result.content)}-]`
    case 'only_b':
      return `→ {+${oneLine(result.content)}+}`
    case 'changed':
      return `→ ${result.errorA !== result.errorB ? `${result.errorA ? '[-error-]' : '{+error+}'} ` : ''}${renderTextDiff(result.text)}`
  }
}

function who(node: CompareNode): string {
  return node.type === 'tool_call' || node.type === 'tool_result' ? 'tool' : (node.role ?? node.type)
}

function lone(node: CompareNode): string {
  const calls = (node.toolCalls ?? []).map((call) => `${call.name}(${json(call.arguments)})`)
  const results = (node.toolResults ?? []).map((result) => `→ ${oneLine(result.content)}`)
  return [oneLine(node.text), ...calls, ...results].filter((text) => text !== '').join(' ')
}

function rowLine(row: CompareRow): string {
  switch (row.kind) {
    case 'only_a':
      return `- ${row.a.nodeId} | —  ${who(row.a)}: ${clip(lone(row.a))}`
    case 'only_b':
      return `+ — | ${row.b.nodeId}  ${who(row.b)}: ${clip(lone(row.b))}`
    case 'pair': {
      const head = `${row.diff.same ? '=' : '~'} ${row.a.nodeId} | ${row.b.nodeId}  ${who(row.a)}: `
      if (row.diff.same) return head + clip(lone(row.a), 100)
      const bits = [
        ...(row.diff.text.kind === 'words' && row.diff.text.removed === 0 && row.diff.text.added === 0
          ? row.a.text === ''
            ? []
            : [common(row.a.text, false, false)]
          : [renderTextDiff(row.diff.text)]),
        ...row.diff.toolCalls.map(callText),
        ...row.diff.toolResults.map(resultText),
      ]
      return head + clip(bits.join(' '))
    }
  }
}

function totalsText(totals: SideTotals): string {
  const tokens =
    totals.tokens === null
      ? 'tokens unknown (no usage recorded)'
      : `${totals.tokens} tokens${totals.nodesWithUsage < totals.assistantMessages ? ` (usage recorded on ${totals.nodesWithUsage} of ${totals.assistantMessages} answers)` : ''}`
  const cost = totals.cost === null ? 'cost unknown' : `cost ${Number(totals.cost.toPrecision(6))}`
  return `${totals.nodes} node${totals.nodes === 1 ? '' : 's'}, ${tokens}, ${cost}`
}

/** The whole rendering: header, totals, one line per row (at most `maxRows`). */
export function renderComparison(result: CompareResult, maxRows = COMPARE_TEXT_ROWS): string {
  const { a, b } = result
  const name = (side: typeof a) => `${side.nodeId}${side.branch ? ` (branch ${JSON.stringify(side.branch)})` : ''}`
  const where =
    result.ancestor === null
      ? 'they share no ancestor (different roots)'
      : `they part after ${result.ancestor} (${result.commonLength} node${result.commonLength === 1 ? '' : 's'} in common)`
  const lines = [
    `Compare A ${name(a)} with B ${name(b)}: ${where}.`,
    `A: ${totalsText(a.totals)}. B: ${totalsText(b.totals)}.`,
  ]
  if (result.rows.length === 0) {
    lines.push(
      a.nodeId === b.nodeId ? 'Both are the same node: nothing differs.' : 'Nothing after the common ancestor.',
    )
    return lines.join('\n')
  }
  lines.push(
    `${result.changedRows} of ${result.rows.length + result.omittedRows} rows differ (= same, ~ changed, - only in A, + only in B; [-removed-]{+added+}):`,
  )
  const shown = result.rows.slice(0, maxRows)
  for (const row of shown) lines.push(rowLine(row))
  const more = result.rows.length - shown.length + result.omittedRows
  if (more > 0) lines.push(`… ${more} more row${more === 1 ? '' : 's'} (compare nodes further down to see them).`)
  return lines.join('\n')
}

/** Files a files comparison lists in text. */
export const COMPARE_FILES_ROWS = 50

function stateWord(state: FileState | undefined): string {
  if (state === undefined) return 'unknown'
  if (state.kind === 'absent') return 'absent'
  if (state.kind === 'skipped') return `not checkpointed (${state.reason})`
  return `${state.binary === true ? 'binary ' : ''}${state.size} B ${state.hash.slice(0, 8)}`
}

/** The workspace files that differ between two nodes, one line each: `path: <at a> → <at b>`. */
export function renderFilesComparison(c: FilesComparison): string {
  const name = (n: string | null) => n ?? 'the start'
  if (c.files.length === 0)
    return `Files: none of the ${c.tracked} tracked file${c.tracked === 1 ? '' : 's'} differs between ${name(c.a)} and ${name(c.b)}.`
  const lines = [
    `Files that differ between ${name(c.a)} and ${name(c.b)}: ${c.files.length} of ${c.tracked} tracked.`,
    ...c.files.slice(0, COMPARE_FILES_ROWS).map((f) => `  ${f.path}: ${stateWord(f.a)} → ${stateWord(f.b)}`),
  ]
  const more = c.files.length - COMPARE_FILES_ROWS
  if (more > 0) lines.push(`  … ${more} more file${more === 1 ? '' : 's'}.`)
  return lines.join('\n')
}
