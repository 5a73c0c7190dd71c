import ts from 'typescript'
import { defineConfig, type Plugin } from 'vitest/config'

/**
 * Standard (TC39) decorators such as typert's `@Remote` are not lowered by
 * vite's own transform; lower those files with TypeScript itself, exactly as
 * `npm run build` does.
 */
function lowerDecorators(): Plugin {
  return {
    name: 'lower-standard-decorators',
    enforce: 'pre',
    transform(code, id) {
      if (!/\.tsx?$/.test(id) || id.includes('/node_modules/') || !/^\s*@[A-Za-z]/m.test(code)) return null
      const out = ts.transpileModule(code, {
        fileName: id,
        compilerOptions: {
          target: ts.ScriptTarget.ES2023,
          module: ts.ModuleKind.ESNext,
          sourceMap: true,
          verbatimModuleSyntax: true,
          rewriteRelativeImportExtensions: false,
        },
      })
      return { code: out.outputText, map: out.sourceMapText ?? null }
    },
  }
}

export default defineConfig({
  plugins: [lowerDecorators()],
  test: {
    include: ['test/**/*.test.ts'],
    // Hang guards, not budgets: a loaded 2-core machine runs tests several times slower
    // than a quiet one (speed is measured in `npm run bench`).
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // The e2e suites boot real harness processes; keep the 2-core machine calm.
    maxWorkers: 2,
    // Every import the suite makes rebuilds its tree the way opening does and compares (src/interchange/session/verify.ts).
    env: { DSH_SESSION_TREE_IMPORT_CHECK: 'rebuild' },
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
})
