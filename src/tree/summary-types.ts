/**
 * A branch summary: what a digest of a branch holds, who wrote it (a model,
 * the extractive fallback, a caller), what it cost, and where it went.
 */

/** A digest of one branch, with a pointer back to the full data (nothing is dropped). */
export interface BranchSummary {
  readonly branch: string
  /** Head of the branch when the summary was written. */
  readonly nodeId: string
  readonly summary: string
  /** Model that wrote it; absent for a fallback or caller-written summary. */
  readonly model?: string
  /** Provider route of the model that wrote it (a model-written summary). */
  readonly provider?: string
  /** True when the summarizer failed and the text is the deterministic fallback. */
  readonly fallback?: boolean
  /** Why the model's summary was not used (then the text is the extractive digest, `fallback` set). */
  readonly failure?: SummaryFailure
  /** Tokens the model call spent (also when it failed after answering). */
  readonly usage?: SummaryUsage
  /** The user's own instructions the model was given. */
  readonly instructions?: string
  /** The node the summarized part left from (absent: it starts at the root). */
  readonly fromNodeId?: string
  /** The model-visible node that carries this summary on a new path (a jump or fork that carried it). */
  readonly carriedNodeId?: string
  readonly createdAt: string
}

/** Why a model-written summary fell back: `TIMEOUT`, `NO_MODEL`, or the model stack's own failure code. */
export interface SummaryFailure {
  readonly code: string
  readonly message: string
}

/** Token usage of one summary call (the harness's `TokenUsage`: input counts are disjoint). */
export interface SummaryUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly reasoningTokens?: number
}
