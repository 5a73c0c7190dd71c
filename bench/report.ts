/**
 * What every bench section shares: its result shape (a table, notes, budget
 * checks) and the median and number formatting they print with.
 */

export type Cell = string | number
export interface Row {
  readonly [column: string]: Cell
}

export interface Check {
  readonly name: string
  readonly pass: boolean | 'skip'
  readonly detail: string
}

export interface SectionResult {
  readonly title: string
  readonly columns: readonly string[]
  readonly rows: readonly Row[]
  readonly notes: readonly string[]
  readonly checks: readonly Check[]
}

export interface BenchSection {
  readonly name: string
  run(config: BenchConfig): SectionResult | Promise<SectionResult>
}

export interface BenchConfig {
  readonly runs: number
  readonly sizes: readonly number[]
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return String(value)
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}
