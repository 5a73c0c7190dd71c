/**
 * Counting work instead of milliseconds: a deterministic measure of how much
 * a function does, for "linear, not quadratic" tests that cannot fail by
 * chance on a loaded machine.
 *
 * While `countWork` runs, every call of a Map, Set or Array method counts the
 * elements it may touch (1 for a lookup, the length for a scan, a copy or an
 * iteration), and every property read through `watched` (a membrane over the
 * inputs, results wrapped too) counts 1. The count depends only on what the
 * code does with its data, never on time.
 */

type Counter = { n: number }

const ARRAY_SCANS = [
  'indexOf',
  'lastIndexOf',
  'includes',
  'slice',
  'concat',
  'splice',
  'unshift',
  'shift',
  'find',
  'findIndex',
  'findLast',
  'findLastIndex',
  'filter',
  'map',
  'flatMap',
  'forEach',
  'some',
  'every',
  'reduce',
  'reduceRight',
  'join',
  'reverse',
  'sort',
  'fill',
  'keys',
  'values',
  'entries',
  Symbol.iterator,
] as const
const COLLECTION_SCANS = ['forEach', 'keys', 'values', 'entries', Symbol.iterator] as const

let active: Counter | undefined

function patch(proto: object, key: PropertyKey, cost: (self: unknown) => number): () => void {
  const original = (proto as Record<PropertyKey, unknown>)[key] as ((...args: unknown[]) => unknown) | undefined
  if (typeof original !== 'function') return () => {}
  Object.defineProperty(proto, key, {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function (this: unknown, ...args: unknown[]) {
      if (active) active.n += cost(this)
      return original.apply(this, args)
    },
  })
  return () =>
    Object.defineProperty(proto, key, { configurable: true, writable: true, enumerable: false, value: original })
}

/** Run `fn` and count its work (see the module comment). Not reentrant. */
export function countWork<T>(fn: (watch: <V>(value: V) => V) => T): { result: T; work: number } {
  if (active) throw new Error('countWork is not reentrant')
  const counter: Counter = { n: 0 }
  const restore: (() => void)[] = []
  const size = (self: unknown) => ((self as { size?: number }).size ?? 0) + 1
  const length = (self: unknown) => ((self as { length?: number }).length ?? 0) + 1
  for (const proto of [Map.prototype, Set.prototype]) {
    for (const key of ['get', 'set', 'has', 'add', 'delete']) restore.push(patch(proto, key, () => 1))
    for (const key of COLLECTION_SCANS) restore.push(patch(proto, key, size))
  }
  for (const key of ['push', 'pop', 'at']) restore.push(patch(Array.prototype, key, () => 1))
  for (const key of ARRAY_SCANS) restore.push(patch(Array.prototype, key, length))
  const cache = new WeakMap<object, unknown>()
  const watch = <V>(value: V): V => {
    if (value === null || typeof value !== 'object') return value
    const cached = cache.get(value as object)
    if (cached) return cached as V
    const proxy = new Proxy(value as object, {
      get(target, key) {
        counter.n++
        const found = Reflect.get(target, key, target)
        // Methods run on the real object (Map and Set need it); what they return is watched too.
        if (typeof found === 'function')
          return (...args: unknown[]) => watch((found as (...a: unknown[]) => unknown).apply(target, args))
        return watch(found)
      },
    })
    cache.set(value as object, proxy)
    return proxy as V
  }
  active = counter
  try {
    const result = fn(watch)
    return { result, work: counter.n }
  } finally {
    active = undefined
    for (const undo of restore.reverse()) undo()
  }
}
