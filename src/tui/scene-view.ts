/**
 * The tree scene as lines of text, pure: the header, the outline window, the
 * preview of the selected node (beside the outline from 140 columns, below it
 * under that), an overlay (a prompt, a choice, the restore preview, a text
 * page), the status line and the key footer. Every line is cut to the
 * terminal's width in cells, so nothing wraps at 80 columns; only the rows in
 * the window are built, so a 20,000-node tree costs what a screenful costs.
 */
import {
  foldedTool,
  gutter,
  rowKind,
  rowText,
  type Glyph,
  type Layout,
  type Row,
  type TreeIndex,
} from '../outline/index.ts'
import type { CompareResult } from '../service/compare-wire.ts'
import type { CompareNode } from '../tree/compare-types.ts'
import { renderTextDiff } from '../tool/compare-text.ts'
import { cellWidth, clip, fit, flatLine, wrap } from './cells.ts'
import { word, type TuiLang, type WordKey } from './i18n.ts'
import { FILES_CHOICES, SUMMARY_KINDS, type Overlay, type SceneState } from './scene-state.ts'

/** A run of text with one style; colors are dsh-TUI theme keys. */
export interface Segment {
  readonly text: string
  readonly color?: 'suggestion' | 'subtle' | 'error' | 'warning' | 'success'
  readonly bold?: boolean
  readonly dim?: boolean
  readonly inverse?: boolean
}

export type Line = readonly Segment[]

export interface Frame {
  readonly lines: readonly Line[]
  /** Outline rows the window shows (for PgUp/PgDn and scrolling). */
  readonly outlineHeight: number
}

/** From this width the preview sits beside the outline; below it, under the outline. */
export const SIDE_BY_SIDE = 140

export interface FrameInput {
  readonly index: TreeIndex | undefined
  readonly layout: Layout | undefined
  readonly state: SceneState
  readonly columns: number
  readonly rows: number
  readonly lang: TuiLang
  readonly loading?: boolean
}

/** A frame whose tree has loaded: what the outline and the preview draw from. */
export type LoadedFrame = FrameInput & { readonly index: TreeIndex; readonly layout: Layout }

const GLYPH: Record<Glyph, string> = { pipe: '│ ', tee: '├─', elbow: '└─', blank: '  ' }

/** Lines the footer and status take at a width. */
function chromeHeight(columns: number): number {
  return columns < 100 ? 4 : 3
}

/** How many outline rows fit (the preview takes the lower part below `SIDE_BY_SIDE`). */
export function outlineHeight(columns: number, rows: number): number {
  const body = Math.max(1, rows - 1 - chromeHeight(columns))
  if (columns >= SIDE_BY_SIDE) return body
  return Math.max(1, body - previewHeight(body))
}

function previewHeight(body: number): number {
  return Math.max(3, Math.min(10, Math.floor(body * 0.35)))
}

export function renderFrame(input: FrameInput): Frame {
  const { columns, rows, lang } = input
  const width = Math.max(20, columns)
  const body = Math.max(1, rows - 1 - chromeHeight(width))
  const lines: Line[] = [header(input, width)]
  const height = outlineHeight(width, rows)
  const overlayLines = overlay(input, body)
  if (overlayLines) {
    lines.push(...pad(overlayLines, body, width))
  } else if (input.loading || !input.index || !input.layout) {
    lines.push(...pad([[{ text: word(lang, 'loading'), color: 'subtle' }]], body, width))
  } else {
    const loaded: LoadedFrame = { ...input, index: input.index, layout: input.layout }
    if (width >= SIDE_BY_SIDE) {
      const left = Math.floor(width * 0.58)
      const right = width - left - 3
      const outline = outlineLines(loaded, left, height)
      const preview = previewLines(loaded, right, body)
      for (let i = 0; i < body; i++) {
        lines.push([
          ...fitLine(outline[i] ?? [], left),
          { text: ' │ ', color: 'subtle' },
          ...fitLine(preview[i] ?? [], right),
        ])
      }
    } else {
      lines.push(...pad(outlineLines(loaded, width, height), height, width))
      const previewRows = body - height
      const rule: Line = [{ text: clip(`── ${word(lang, 'preview')} ${'─'.repeat(width)}`, width), color: 'subtle' }]
      lines.push(rule, ...pad(previewLines(loaded, width, previewRows - 1), previewRows - 1, width))
    }
  }
  lines.push(statusLine(input, width), ...footer(input, width))
  return { lines: lines.map((line) => fitLine(line, width)), outlineHeight: height }
}

function header(input: FrameInput, width: number): Line {
  const { lang, state, index } = input
  const parts: Segment[] = [{ text: ` ${word(lang, 'title')} `, bold: true, inverse: true }]
  // A search being typed comes first: on a narrow terminal the rest is cut, never the query.
  if (state.query !== '') parts.push({ text: `  ${word(lang, 'search')}: ${state.query}▏`, color: 'warning' })
  if (index) {
    parts.push({ text: `  ⎇ ${index.view.activeBranch || '—'}`, color: 'suggestion' })
    const total = input.layout?.total ?? index.rowTotal
    const shown = input.layout?.shown ?? total
    parts.push({ text: `  ${index.byId.size} ${word(lang, 'nodes')}` })
    if (shown !== total) parts.push({ text: ` · ${shown} ${word(lang, 'shown')}`, color: 'subtle' })
    parts.push({
      text: `  ${word(lang, 'filter')}: ${word(lang, `filter.${state.filter}` as WordKey)}`,
      color: 'subtle',
    })
  }
  if (state.query === '')
    parts.push({ text: `  ${word(lang, 'search')}: ${word(lang, 'search.hint')}`, color: 'subtle' })
  return fitLine(parts, width)
}

function roleWord(lang: TuiLang, row: Row): string {
  return word(lang, `role.${rowKind(row.node)}` as WordKey)
}

/** The outline rows in the window: gutter, id, role, first line, then marks. */
export function outlineLines(frame: LoadedFrame, width: number, height: number): Line[] {
  const { index, layout, state, lang } = frame
  const rows = layout.rows
  if (rows.length === 0) {
    const empty = index.byId.size === 0 ? word(lang, 'empty') : word(lang, 'no-match')
    return [[{ text: empty, color: 'subtle' }]]
  }
  const selected = state.selected === null ? -1 : (layout.indexOf.get(state.selected) ?? -1)
  const cursor = index.view.cursor
  const out: Line[] = []
  const end = Math.min(rows.length, state.top + height)
  for (let i = Math.max(0, state.top); i < end; i++) {
    const row = rows[i]!
    const onPath = index.cursorPath.has(row.id)
    const { glyphs, clipped } = gutter(row, 10)
    const segments: Segment[] = []
    segments.push({ text: i === selected ? '▶' : ' ', color: 'suggestion', bold: true })
    if (clipped > 0) segments.push({ text: `…${clipped}`, color: 'subtle' })
    segments.push({ text: glyphs.map((g) => GLYPH[g]).join(''), color: 'subtle' })
    segments.push({
      text: onPath ? '● ' : '○ ',
      ...(onPath ? { color: 'success' as const } : { color: 'subtle' as const }),
    })
    segments.push({ text: `${row.id} `, color: 'subtle' })
    segments.push({
      text: `${roleWord(lang, row)} `,
      bold: rowKind(row.node) === 'user',
      ...(rowKind(row.node) === 'tool' ? { color: 'warning' as const } : {}),
    })
    const marks: Segment[] = []
    if (row.node.label !== undefined) marks.push({ text: ` [${row.node.label}]`, color: 'warning' })
    for (const head of index.headsAt.get(row.id) ?? []) marks.push({ text: ` ⎇${head}`, color: 'suggestion' })
    if (row.forkCount > 1) marks.push({ text: ` ⑂${row.forkCount}`, color: 'subtle' })
    if (row.hidden !== undefined) marks.push({ text: ` ⊞ +${row.hidden} ${word(lang, 'folded')}`, color: 'warning' })
    if (state.compareFrom === row.id) marks.push({ text: ' ⇄', color: 'warning', bold: true })
    if (row.id === cursor) marks.push({ text: ` ◀ ${word(lang, 'here')}`, color: 'success', bold: true })
    const used = cellWidth(segments.map((s) => s.text).join('')) + cellWidth(marks.map((s) => s.text).join(''))
    const text = flatLine(rowText(row.node))
    segments.push({ text: clip(text, Math.max(8, width - used)), ...(onPath ? {} : { dim: true }) })
    const line = [...segments, ...marks]
    out.push(i === selected ? line.map((s) => ({ ...s, inverse: true })) : line)
  }
  return out
}

/** The selected node in full: id, role, branch, label, its text, a tool call with its result. */
export function previewLines(frame: LoadedFrame, width: number, height: number): Line[] {
  const { index, layout, state, lang } = frame
  if (height <= 0) return []
  const id = state.selected
  const node = id === null ? undefined : index.byId.get(id)
  if (!node || id === null) return []
  const row = layout.rows[layout.indexOf.get(id) ?? -1]
  const out: Line[] = []
  const kind = row ? roleWord(lang, row) : node.type
  const head: Segment[] = [{ text: `${id} · ${kind}`, bold: true }]
  if (node.branch) head.push({ text: ` · ${word(lang, 'branch')} ${node.branch}`, color: 'suggestion' })
  if (id === index.view.cursor) head.push({ text: ` · ◀ ${word(lang, 'here')}`, color: 'success' })
  out.push(head)
  if (node.label !== undefined) out.push([{ text: `${word(lang, 'label')}: ${node.label}`, color: 'warning' }])
  const heads = index.headsAt.get(id)
  if (heads) out.push([{ text: `${word(lang, 'heads')}: ${heads.join(', ')}`, color: 'suggestion' }])
  // A compaction says what it stands for (the Tree tab's "Replaces"), so a jump before it can be chosen knowingly.
  if (node.replaces !== undefined && node.replaces.length > 0)
    out.push([
      {
        text: word(lang, 'replaces', {
          count: node.replaces.length,
          first: node.replaces[0]!,
          last: node.replaces.at(-1)!,
        }),
        color: 'warning',
      },
    ])
  const tool = foldedTool(node)
  if (tool) {
    out.push([{ text: `${word(lang, 'call')}: ${tool.name}`, color: 'warning' }])
    for (const line of wrap(tool.args, width - 2, 6)) out.push([{ text: `  ${line}`, color: 'subtle' }])
    if (tool.result !== undefined) {
      out.push([
        {
          text: `${word(lang, 'result')}:`,
          ...(tool.isError ? { color: 'error' as const } : { color: 'success' as const }),
        },
      ])
      for (const line of wrap(tool.result, width - 2, Math.max(1, height - out.length)))
        out.push([{ text: `  ${line}` }])
    }
  } else {
    const text = node.message?.content ?? rowText(node)
    for (const line of wrap(text, width, Math.max(1, height - out.length))) out.push([{ text: line }])
  }
  return out.slice(0, height)
}

function overlay(input: FrameInput, body: number): Line[] | undefined {
  const { lang, state } = input
  const o: Overlay = state.overlay
  switch (o.kind) {
    case 'none':
      return undefined
    case 'input': {
      const title =
        o.purpose === 'fork'
          ? word(lang, 'ask.fork')
          : o.purpose === 'label'
            ? word(lang, 'ask.label')
            : word(lang, 'ask.instructions')
      const node = o.move?.nodeId ?? o.nodeId
      return [
        [{ text: title + (node ? ` (${node})` : ''), bold: true }],
        [],
        [
          { text: '› ', color: 'suggestion' },
          { text: `${o.value}▏`, inverse: false },
        ],
      ]
    }
    case 'choose-summary':
      return [
        [{ text: `${word(lang, 'ask.summary')} (${o.move.nodeId})`, bold: true }],
        [],
        ...SUMMARY_KINDS.map((kind, i): Line => [
          {
            text: `${i === o.index ? '▶' : ' '} ${i + 1}. ${word(lang, `summary.${kind}` as WordKey)}`,
            ...(i === o.index ? { inverse: true } : {}),
          },
        ]),
      ]
    case 'choose-files':
      return [
        [{ text: `${word(lang, 'ask.files')} (${o.nodeId})`, bold: true }],
        [],
        ...FILES_CHOICES.map((choice, i): Line => [
          {
            text: `${i === o.index ? '▶' : ' '} ${i + 1}. ${word(lang, `files.${choice}` as WordKey)}`,
            ...(i === o.index ? { inverse: true } : {}),
          },
        ]),
      ]
    case 'restore': {
      const out: Line[] = [[{ text: `${word(lang, 'files.preview')} → ${o.nodeId}`, bold: true }], []]
      if (o.lines.length === 0) out.push([{ text: word(lang, 'files.none'), color: 'subtle' }])
      const window = Math.max(1, body - 3)
      const start = Math.max(0, Math.min(o.index - Math.floor(window / 2), o.lines.length - window))
      for (let i = start; i < Math.min(o.lines.length, start + window); i++) {
        const line = o.lines[i]!
        const decision = o.decisions[line.path]
        const mark = line.blocked
          ? { text: ` ✗ ${word(lang, 'files.blocked')}: ${line.blocked}`, color: 'error' as const }
          : line.conflict
            ? {
                text: ` ⚠ ${word(lang, 'files.conflict')} → ${decision === undefined ? '?' : word(lang, decision === 'keep' ? 'key.keep' : 'key.overwrite')}`,
                color: 'warning' as const,
              }
            : { text: line.stat ? ` ${line.stat}` : '', color: 'subtle' as const }
        const segs: Segment[] = [{ text: `${i === o.index ? '▶' : ' '} ${line.action.padEnd(7)} ${line.path}` }, mark]
        out.push(i === o.index ? segs.map((s) => ({ ...s, inverse: true })) : segs)
      }
      return out
    }
    case 'text':
      return [
        [{ text: o.title, bold: true }],
        ...o.lines.slice(o.scroll, o.scroll + body - 1).map((l): Line => [{ text: l }]),
      ]
  }
}

function statusLine(input: FrameInput, width: number): Line {
  const { state, lang } = input
  if (state.busy) return [{ text: word(lang, 'busy'), color: 'warning' }]
  if (state.compareFrom !== null)
    return [{ text: `${word(lang, 'compare.pick')} (${state.compareFrom} ⇄ …)`, color: 'warning' }]
  if (state.status)
    return [{ text: clip(flatLine(state.status.text), width), color: state.status.error ? 'error' : 'success' }]
  return []
}

/** The key footer: one key per action, in the language of the TUI. */
export function footerKeys(overlay: Overlay['kind'], lang: TuiLang): ReadonlyArray<readonly [string, string]> {
  const w = (key: WordKey): string => word(lang, key)
  // How every question overlay ends.
  const answer = [
    ['Enter', w('key.confirm')],
    ['Esc', w('key.cancel')],
  ] as const
  switch (overlay) {
    case 'input':
      return answer
    case 'choose-summary':
    case 'choose-files':
      return [['↑↓ 1-3', w('key.choose')], ...answer]
    case 'restore':
      return [['↑↓', w('key.move')], ['k', w('key.keep')], ['o', w('key.overwrite')], ...answer]
    case 'text':
      return [
        ['↑↓ PgUp PgDn', w('key.scroll')],
        ['Esc', w('key.close')],
      ]
    case 'none':
      return [
        ['↑↓', w('key.move')],
        ['←→', w('key.fold')],
        ['Enter', w('key.jump')],
        ['F', w('key.fork')],
        ['B', w('key.back')],
        ['R', w('key.forward')],
        ['L', w('key.label')],
        ['S', w('key.summarize')],
        ['C', w('key.compare')],
        ['N', w('key.new')],
        ['T', w('key.files')],
        ['G', w('key.here')],
        ['Tab', w('key.filter')],
        ['Esc', w('key.close')],
      ]
  }
}

function footer(input: FrameInput, width: number): Line[] {
  const keys = footerKeys(input.state.overlay.kind, input.lang)
  const lines: Segment[][] = [[]]
  let used = 0
  for (const [key, label] of keys) {
    const item = `${key} ${label}`
    const cost = cellWidth(item) + 2
    if (used + cost > width && used > 0) {
      if (lines.length === chromeHeight(width) - 1) break
      lines.push([])
      used = 0
    }
    const line = lines[lines.length - 1]!
    line.push({ text: key, bold: true, color: 'suggestion' }, { text: ` ${label}  `, color: 'subtle' })
    used += cost
  }
  // Always the same height: the outline does not jump when the footer is short.
  while (lines.length < chromeHeight(width) - 1) lines.push([])
  return lines
}

/** The compare of two nodes as a text page: side by side from `SIDE_BY_SIDE` columns, stacked under it. */
export function compareLines(result: CompareResult, width: number, lang: TuiLang): string[] {
  const side = width >= SIDE_BY_SIDE
  const half = Math.floor((width - 3) / 2)
  const out: string[] = [
    `A ${result.a.nodeId}${result.a.branch ? ` (${result.a.branch})` : ''} ⇄ B ${result.b.nodeId}${result.b.branch ? ` (${result.b.branch})` : ''} · ${word(lang, 'compare.parted')} ${result.ancestor ?? '—'}`,
    '',
  ]
  const said = (node: CompareNode): string => {
    const calls = node.toolCalls?.map((call) => `${call.name}(…)`).join(' ') ?? ''
    return flatLine(`${node.nodeId} ${node.role ?? node.type}: ${node.text}${calls ? ` ${calls}` : ''}`)
  }
  for (const row of result.rows) {
    const a = row.kind === 'only_b' ? '' : said(row.a)
    const b = row.kind === 'only_a' ? '' : said(row.b)
    const status =
      row.kind === 'pair' ? word(lang, row.diff.same ? 'compare.same' : 'compare.changed') : word(lang, 'compare.only')
    if (side) {
      out.push(`${fit(a, half)} │ ${fit(b, half)}`)
      if (row.kind === 'pair' && !row.diff.same) out.push(`  ${clip(renderTextDiff(row.diff.text), width - 2)}`)
    } else {
      out.push(`── ${row.kind === 'only_b' ? 'B' : row.kind === 'only_a' ? 'A' : 'A/B'} ${status}`)
      if (a) out.push(...wrap(`A ${a}`, width, 3))
      if (b) out.push(...wrap(`B ${b}`, width, 3))
      if (row.kind === 'pair' && !row.diff.same) out.push(...wrap(renderTextDiff(row.diff.text), width, 4))
    }
  }
  if (result.omittedRows > 0) out.push(`… +${result.omittedRows}`)
  return out
}

function fitLine(line: Line, width: number): Line {
  const out: Segment[] = []
  let used = 0
  for (const seg of line) {
    if (used >= width) break
    const room = width - used
    const text = cellWidth(seg.text) <= room ? seg.text : clip(seg.text, room)
    out.push({ ...seg, text })
    used += cellWidth(text)
  }
  if (used < width) out.push({ text: ' '.repeat(width - used) })
  return out
}

function pad(lines: readonly Line[], height: number, width: number): Line[] {
  const out = lines.slice(0, Math.max(0, height)).map((l) => fitLine(l, width))
  while (out.length < height) out.push(fitLine([], width))
  return out
}
