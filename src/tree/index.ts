/**
 * `dsh-session-tree/tree`: the pure conversation tree. Imports nothing from
 * the harness; usable in any runtime (node, browser, tests).
 */
export * from './types.ts'
export * from './errors.ts'
export { SessionTree, MAIN_BRANCH, HISTORY_LIMIT, SUMMARIZE_TIMEOUT_MS, type TreeCheckpoint, type SessionTreeOptions } from './session-tree.ts'
export { SessionTreeStore, sessionTreeStore, checkSessionId } from './store.ts'
export { oneLine, renderMessages, fallbackSummary } from './text.ts'
