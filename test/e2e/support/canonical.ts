/**
 * JSON with every object's keys sorted (arrays keep their order): two values
 * that a provider receives as the same bytes up to key order compare equal.
 * The request checks of the KV-cache prefix compare with it.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(sorted(value))
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) out[key] = sorted((value as Record<string, unknown>)[key])
  return out
}
