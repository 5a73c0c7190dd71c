/**
 * dsh-session-tree: a conversation tree for DeepSeek Harness sessions.
 * The package root re-exports the pure tree; the harness plugin entry lands
 * with the service.
 */
export * from './tree/index.ts'
