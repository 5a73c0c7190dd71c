/**
 * Poll `probe` every 100 ms until it gives a value (not `undefined`/`false`);
 * past `timeoutMs` (a hang guard, not a budget) fail with what was awaited,
 * the probe's last error and, when given, `describeLast()`'s account of the page.
 */
export type Probe<T> = () => Promise<T | undefined | false> | T | undefined | false

export async function until<T>(
  what: string,
  probe: Probe<T>,
  timeoutMs: number,
  describeLast?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const value = await probe()
      if (value !== undefined && value !== false) return value
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) {
      const detail = describeLast ? `\n${await describeLast().catch(String)}` : ''
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}${detail}`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
