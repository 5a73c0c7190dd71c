/**
 * What every e2e suite (web-suite.ts, tui-suite.ts) does around its tests: its set-up as the one
 * `beforeAll`, the handles that set-up makes (there once it ran), and whether anything of the suite
 * failed (its set-up or a test), which decides whether its temp dirs are kept.
 */
import { afterEach, beforeAll } from 'vitest'

/** A handle of the suite's set-up; throws, naming `what`, while the set-up has not run or failed. */
export function there<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not there (the suite's set-up has not run or failed)`)
  return value
}

export interface SuiteLife {
  /** Whether the set-up or a test of the suite failed so far (or `fail()` was called). */
  readonly failed: boolean
  /** Count the suite as failed (what its tear-down finds failed besides its own tests). */
  fail(): void
}

/** Register `setUp` as the suite's `beforeAll` and watch its tests (call it before the suite's `afterAll`). */
export function suiteLife(setUp: () => Promise<void>): SuiteLife {
  let failed = false
  beforeAll(async () => {
    try {
      await setUp()
    } catch (error) {
      failed = true
      throw error
    }
  }, 600_000)
  afterEach((context) => {
    if (context.task.result?.state === 'fail') failed = true
  })
  return {
    get failed() {
      return failed
    },
    fail() {
      failed = true
    },
  }
}

/** `methods` with `handles` as read-only properties beside them: each reads its handle when it is used. */
export function withHandles<M extends object, H extends object>(
  methods: M,
  handles: { readonly [K in keyof H]: () => H[K] },
): M & H {
  for (const key of Object.keys(handles) as (keyof H & string)[])
    Object.defineProperty(methods, key, { get: handles[key], enumerable: true })
  return methods as M & H
}
