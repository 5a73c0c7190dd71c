/** Labels from other tools made acceptable to the tree (printable, trimmed, at most 200 characters), and put on it. */
import type { SessionTree } from '../../tree/session-tree.ts'
import { MAX_LABEL_LENGTH } from '../../tree/validate.ts'
import type { InterchangeNode } from '../model.ts'

// C0 and C1 control characters, the ones the tree refuses in names.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g

export function sanitizeLabel(label: string): string {
  const clean = label.replace(CONTROLS, ' ').trim()
  const text = clean === '' ? 'label' : clean
  return text.length <= MAX_LABEL_LENGTH ? text : `${text.slice(0, MAX_LABEL_LENGTH - 1)}…`
}

/**
 * The source's labels on the built tree (`dsh`: source node id → tree node id), after every node is
 * written: the last change per target wins; labels are unique in a DSH tree, so a repeated one gets a
 * suffix. What changed or was not kept goes to `notes`.
 */
export function applyLabels(
  tree: SessionTree,
  nodes: readonly InterchangeNode[],
  dsh: ReadonlyMap<string, string>,
  notes: string[],
): void {
  const effective = new Map<string, string | null>()
  for (const node of nodes) {
    if (node.entry.kind === 'label' && dsh.has(node.entry.target)) effective.set(node.entry.target, node.entry.label)
  }
  for (const [target, label] of effective) {
    if (label === null) continue
    const clean = sanitizeLabel(label)
    for (let n = 1; ; n++) {
      const text = n === 1 ? clean : sanitizeLabel(`${clean} (${n})`)
      const result = tree.label(dsh.get(target)!, text)
      if (result.ok) {
        if (text !== label) notes.push(`label ${JSON.stringify(label)} on ${target} is ${JSON.stringify(text)} in DSH`)
        break
      }
      if (result.error.code !== 'LABEL_EXISTS' || n > 100) {
        notes.push(`label ${JSON.stringify(label)} on ${target} was not kept: ${result.error.message}`)
        break
      }
    }
  }
}
