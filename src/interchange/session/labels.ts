/** Labels from other tools made acceptable to the tree: printable, trimmed, at most 200 characters. */
import { MAX_LABEL_LENGTH } from '../../tree/validate.ts'

// C0 and C1 control characters, the ones the tree refuses in names.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g

export function sanitizeLabel(label: string): string {
  const clean = label.replace(CONTROLS, ' ').trim()
  const text = clean === '' ? 'label' : clean
  return text.length <= MAX_LABEL_LENGTH ? text : `${text.slice(0, MAX_LABEL_LENGTH - 1)}…`
}
