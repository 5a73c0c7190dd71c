/**
 * Collects the nodes a reader recognises and turns them into a valid tree:
 * duplicate ids refused, parents ordered before children, orphans promoted to
 * roots and cycles broken (each with a note), and the import report counted.
 */
import { InterchangeError } from './errors.ts'
import type { ImportReport, InterchangeNode, InterchangeTree, SessionMeta, SkippedLine } from './model.ts'
import type { JsonValue } from '../tree/types.ts'

/**
 * Where the source records of accepted nodes go instead of staying on the
 * nodes (an import spools them to its provenance file; a dry run drops them),
 * so a large file's records are never all held at once.
 */
export type RawSink = (id: string, raw: readonly JsonValue[]) => void

export class TreeBuilder {
  private readonly collected: InterchangeNode[] = []
  private readonly ids = new Set<string>()
  private readonly skippedLines: SkippedLine[] = []
  private readonly opaqueTypes = new Map<string, number>()
  private readonly ignoredTypes = new Map<string, number>()
  private readonly noteList: string[] = []
  /** Source lines read (the last line number seen). */
  lines = 0
  recovered = 0
  private readonly sink: RawSink | undefined

  constructor(sink?: RawSink) {
    this.sink = sink
  }

  get size(): number {
    return this.collected.length
  }

  has(id: string): boolean {
    return this.ids.has(id)
  }

  /** Add a node; a second node with the same id is skipped (the first one wins). */
  add(node: InterchangeNode): boolean {
    if (this.ids.has(node.id)) {
      this.skip(node.line, `duplicate id ${JSON.stringify(node.id)} (the first record with that id is kept)`)
      return false
    }
    this.ids.add(node.id)
    if (this.sink !== undefined && node.raw !== undefined) {
      this.sink(node.id, node.raw)
      const { raw: _raw, ...kept } = node
      this.collected.push(kept)
    } else this.collected.push(node)
    return true
  }

  skip(line: number, reason: string): void {
    this.skippedLines.push({ line, reason })
  }

  opaque(type: string): void {
    this.opaqueTypes.set(type, (this.opaqueTypes.get(type) ?? 0) + 1)
  }

  ignore(type: string): void {
    this.ignoredTypes.set(type, (this.ignoredTypes.get(type) ?? 0) + 1)
  }

  note(text: string): void {
    this.noteList.push(text)
  }

  /** Order, repair and count. `cursor` undefined: the last node in source order. */
  finish(
    meta: SessionMeta & { readonly format: ImportReport['format'] },
    cursor?: string | null,
  ): { tree: InterchangeTree; report: ImportReport } {
    const nodes = orderParentsFirst(this.collected, (text) => this.note(text))
    if (nodes.length === 0)
      throw new InterchangeError('EMPTY_SESSION', 'the session holds no conversation entries', { lines: this.lines })
    const at = cursor === undefined ? nodes.reduce((last, node) => (node.line >= last.line ? node : last)).id : cursor
    if (at !== null && !this.ids.has(at))
      throw new InterchangeError('TREE_CORRUPT', `the active leaf ${JSON.stringify(at)} is not in the tree`)
    const tree: InterchangeTree = { meta, nodes, cursor: at }
    return { tree, report: this.report(tree, meta.format) }
  }

  private report(tree: InterchangeTree, format: ImportReport['format']): ImportReport {
    const parents = new Set<string>()
    const labels = new Map<string, string | null>()
    let compactions = 0
    for (const node of tree.nodes) {
      if (node.parentId !== null) parents.add(node.parentId)
      if (node.entry.kind === 'label' && this.ids.has(node.entry.target))
        labels.set(node.entry.target, node.entry.label)
      if (node.entry.kind === 'compaction') compactions++
    }
    return {
      format,
      version: tree.meta.version,
      lines: this.lines,
      nodes: tree.nodes.length,
      branches: tree.nodes.filter((node) => !parents.has(node.id)).length,
      labels: [...labels.values()].filter((label) => label !== null).length,
      compactions,
      skipped: this.skippedLines,
      opaque: Object.fromEntries(this.opaqueTypes),
      ignored: Object.fromEntries(this.ignoredTypes),
      recovered: this.recovered,
      notes: this.noteList,
    }
  }
}

/**
 * Source order, except that a node waits for its parent. A parent that never
 * appears makes its child a root; nodes left waiting on each other (a cycle)
 * are released from the earliest one, made a root.
 */
export function orderParentsFirst(nodes: readonly InterchangeNode[], note: (text: string) => void): InterchangeNode[] {
  const known = new Set(nodes.map((node) => node.id))
  const out: InterchangeNode[] = []
  const placed = new Set<string>()
  const waiting = new Map<string, InterchangeNode[]>()
  const release = (first: InterchangeNode) => {
    const stack = [first]
    while (stack.length > 0) {
      const node = stack.pop()!
      out.push(node)
      placed.add(node.id)
      const children = waiting.get(node.id)
      if (children) {
        waiting.delete(node.id)
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
      }
    }
  }
  let orphans = 0
  for (const original of nodes) {
    let node = original
    if (node.parentId === node.id || (node.parentId !== null && !known.has(node.parentId))) {
      orphans++
      node = { ...node, parentId: null }
    }
    if (node.parentId === null || placed.has(node.parentId)) release(node)
    else {
      const list = waiting.get(node.parentId) ?? []
      list.push(node)
      waiting.set(node.parentId, list)
    }
  }
  if (orphans > 0) note(`${orphans} node(s) whose parent is missing became roots`)
  let cycles = 0
  while (waiting.size > 0) {
    // Everything still waiting sits on a cycle (or below one): cut it at its earliest node.
    const rest = [...waiting.values()].flat().sort((a, b) => a.line - b.line)
    const first = rest[0]!
    waiting.set(
      first.parentId!,
      waiting.get(first.parentId!)!.filter((node) => node !== first),
    )
    if (waiting.get(first.parentId!)!.length === 0) waiting.delete(first.parentId!)
    cycles++
    release({ ...first, parentId: null })
  }
  if (cycles > 0) note(`${cycles} parent cycle(s) broken: the earliest node of each became a root`)
  return out
}
