/** Length of the longest common subsequence (quadratic DP): the reference the diff properties check against. */
export function lcs<T>(a: readonly T[], b: readonly T[]): number {
  const row = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!)
      diagonal = up
    }
  }
  return row[b.length]!
}
