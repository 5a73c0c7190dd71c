/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, so
 * CI logs can be read without knowing vitest's own format.
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      // A module that failed outside its tests (an import or beforeAll error) counts as one failure.
      if (module.state() === 'failed' && ![...module.children.allTests()].some((t) => t.result().state === 'failed'))
        failed++
    }
    const tail = skipped > 0 ? `, ${skipped} skipped` : ''
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${tail}\n`)
  }
}
