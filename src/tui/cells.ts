/**
 * Terminal cells: how wide a string draws (East Asian wide and emoji take two
 * cells, combining marks none) and cutting a string to a width, so a row
 * never wraps at 80 columns and Chinese text lines up like English.
 */

const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
]

function codeWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f))
    return 0
  if (code < 0x1100) return 1
  for (const [from, to] of WIDE) if (code >= from && code <= to) return 2
  return 1
}

/** Cells `text` takes on one terminal line (control characters count nothing). */
export function cellWidth(text: string): number {
  let width = 0
  for (const char of text) width += codeWidth(char.codePointAt(0)!)
  return width
}

/** One line: control characters and line breaks become spaces, runs of blanks one space. */
export function flatLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/ {2,}/g, ' ')
}

/** `text` cut to at most `width` cells, ending in `…` when cut. */
export function clip(text: string, width: number): string {
  if (width <= 0) return ''
  if (cellWidth(text) <= width) return text
  let out = ''
  let used = 0
  for (const char of text) {
    const w = codeWidth(char.codePointAt(0)!)
    if (used + w > width - 1) break
    out += char
    used += w
  }
  return `${out}…`
}

/** `text` cut or padded with spaces to exactly `width` cells. */
export function fit(text: string, width: number): string {
  const cut = clip(text, width)
  return cut + ' '.repeat(Math.max(0, width - cellWidth(cut)))
}

/** Break `text` into lines of at most `width` cells (at spaces when it can), keeping its own line breaks. */
export function wrap(text: string, width: number, maxLines = Infinity): string[] {
  const out: string[] = []
  if (width <= 0) return out
  for (const raw of text.split('\n')) {
    let line = flatLine(raw)
    if (line === '') {
      out.push('')
      if (out.length >= maxLines) return out
      continue
    }
    while (line !== '') {
      if (cellWidth(line) <= width) {
        out.push(line)
        break
      }
      let cut = ''
      let used = 0
      let lastSpace = -1
      for (const char of line) {
        const w = codeWidth(char.codePointAt(0)!)
        if (used + w > width) break
        if (char === ' ') lastSpace = cut.length
        cut += char
        used += w
      }
      if (cut === '') cut = [...line][0]!
      const at = lastSpace > 0 ? lastSpace : cut.length
      out.push(line.slice(0, at).trimEnd())
      line = line.slice(at).trimStart()
      if (out.length >= maxLines) return out
    }
    if (out.length >= maxLines) return out
  }
  return out
}

/**
 * A text page's lines wrapped to `width` cells: a line that fits stays as it is (its spacing too); a
 * longer one wraps at spaces, its continuations hung two cells under its own indent, so a listing's
 * tree indentation still reads and no line is cut at the right edge.
 */
export function wrapPage(lines: readonly string[], width: number): string[] {
  return lines.flatMap((raw) => {
    const line = raw.replace(/\s+$/, '')
    if (cellWidth(line) <= width) return [line]
    const indent = /^ */.exec(line)![0]
    const hang = `${indent}  `
    const [first = '', ...rest] = wrap(line.slice(indent.length), Math.max(1, width - hang.length))
    return [indent + first, ...rest.map((part) => hang + part)]
  })
}
