import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 300_000,
    // The e2e suites boot real harness processes; keep the 2-core machine calm.
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
