/**
 * `dsh-session-tree/tree`: the pure conversation tree. Imports nothing from
 * the harness; usable in any runtime (node, browser, tests).
 */
export * from './types.ts'
export {
  TREE_ERROR_CODES,
  SessionTreeError,
  type ErrorCode,
  type ErrorCodeRegistry,
  type TreeErrorCode,
  type TreeError,
  type TreeResult,
} from './errors.ts'
export { SessionTree } from './session-tree.ts'
export type { TreeCheckpoint } from './journal.ts'
export type { SessionTreeOptions } from './types.ts'
export { MAIN_BRANCH, HISTORY_LIMIT } from './state.ts'
export { SUMMARIZE_TIMEOUT_MS } from './summarize.ts'
export type { ToolResult } from './entry.ts'
export { SessionTreeStore } from './store.ts'
export type * from './compare-types.ts'
export { compare, COMPARE_BUDGET } from './compare.ts'
export { diffWords, tokenize } from './diff.ts'
export { MOVE_SPECS, describeBare, landing, type CursorMove, type Landing, type MoveKind, type Moved } from './move.ts'
export { runCommand, type TreeCommand, type AnswerOf } from './command.ts'
