/**
 * What comparing two nodes of a tree answers: where their paths part, the two
 * paths after that point side by side, and how corresponding messages differ
 * (words), how tool calls differ (name, arguments by key), and what each side
 * cost. Plain JSON throughout: the same shapes travel through the service,
 * the `/tree compare` text and the panel.
 */
import type { JsonValue, Role, TreeEntryType } from './types.ts'

/** One run of a word diff. Concatenating `same` and `removed` runs gives text A; `same` and `added`, text B. */
export type TextDiffPart =
  | {
      readonly kind: 'same'
      readonly text: string
      /** Set only by bounded views (the service): characters left out of the middle of a long common run (`text` holds its start and end). */
      readonly elided?: number
    }
  | { readonly kind: 'removed'; readonly text: string }
  | { readonly kind: 'added'; readonly text: string }

/**
 * A text diff at word granularity (tokens are words, whitespace runs and
 * punctuation runs; CJK characters one each). `whole` when the texts are too
 * large to diff within the bounds: both texts stand as they are.
 */
export type TextDiff =
  | {
      readonly kind: 'words'
      readonly parts: readonly TextDiffPart[]
      /** Tokens only in A, only in B (a minimal edit: nothing cheaper turns A into B). */
      readonly removed: number
      readonly added: number
    }
  | {
      readonly kind: 'whole'
      /** `size`: more differing tokens than a diff reads; `edits`: more edits than a diff computes; `budget`: the compare's work budget ran out. */
      readonly reason: 'size' | 'edits' | 'budget'
      readonly a: string
      readonly b: string
    }

/** One argument (a key path into the arguments JSON) that differs between two calls. */
export type ArgumentChange =
  | { readonly kind: 'removed'; readonly path: string; readonly a: JsonValue }
  | { readonly kind: 'added'; readonly path: string; readonly b: JsonValue }
  | {
      readonly kind: 'changed'
      readonly path: string
      readonly a: JsonValue
      readonly b: JsonValue
      readonly text?: TextDiff
    }

/** A tool call of one node against the call at the same place of the other. */
export type ToolCallDiff =
  | { readonly kind: 'same'; readonly name: string }
  | {
      readonly kind: 'changed'
      readonly nameA: string
      readonly nameB: string
      /** Differing arguments, keys compared structurally (order of keys never matters); empty when only the name differs. */
      readonly arguments: readonly ArgumentChange[]
    }
  | { readonly kind: 'only_a'; readonly name: string; readonly arguments: JsonValue }
  | { readonly kind: 'only_b'; readonly name: string; readonly arguments: JsonValue }

/** A tool result of one node against the result at the same place of the other. */
export type ToolResultDiff =
  | { readonly kind: 'same' }
  | { readonly kind: 'changed'; readonly text: TextDiff; readonly errorA: boolean; readonly errorB: boolean }
  | { readonly kind: 'only_a'; readonly content: string }
  | { readonly kind: 'only_b'; readonly content: string }

/** A node as a compare shows it: what it says, not where it sits. */
export interface CompareNode {
  readonly nodeId: string
  readonly type: TreeEntryType
  readonly role?: Role
  /** The node's text: its text parts, or the message the model reads. */
  readonly text: string
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: JsonValue }[]
  readonly toolResults?: readonly { readonly content: string; readonly isError?: boolean }[]
  readonly label?: string
  readonly model?: string
  /** Tokens this node's usage records (input + output + cache), when it records any. */
  readonly tokens?: number
  readonly cost?: number
}

/** How two corresponding nodes differ. */
export interface NodeDiff {
  /** True when text, calls and results are all the same. */
  readonly same: boolean
  readonly text: TextDiff
  readonly toolCalls: readonly ToolCallDiff[]
  readonly toolResults: readonly ToolResultDiff[]
}

/**
 * One row of the side-by-side view. Nodes correspond when they are of the
 * same kind (type and role) at the same place of the aligned paths.
 */
export type CompareRow =
  | { readonly kind: 'pair'; readonly a: CompareNode; readonly b: CompareNode; readonly diff: NodeDiff }
  | { readonly kind: 'only_a'; readonly a: CompareNode }
  | { readonly kind: 'only_b'; readonly b: CompareNode }

/** Token and cost totals of one side after the common ancestor. */
export interface SideTotals {
  readonly nodes: number
  /** Nodes the model reads (they carry a message). */
  readonly messages: number
  /** Summed usage per key (`inputTokens`, `outputTokens`, ...), over the nodes that record usage. */
  readonly usage: Readonly<Record<string, number>>
  /** input + output + cache tokens, or null when no node of the side records usage (unknown, not zero). */
  readonly tokens: number | null
  /** Summed cost, or null when no node records one. */
  readonly cost: number | null
  /** How many nodes record usage; fewer than the side's assistant messages means the totals are partial. */
  readonly nodesWithUsage: number
  readonly assistantMessages: number
}

/** One side of a compare: the node asked for and its path after the common ancestor. */
export interface CompareSide {
  readonly nodeId: string
  /** Display lane of the node (the branch whose path holds it; '' when none does). */
  readonly branch: string
  /** Node ids after the common ancestor, down to and including `nodeId` (empty when `nodeId` is the ancestor). */
  readonly path: readonly string[]
  readonly totals: SideTotals
}

/** The answer of `compare(tree, a, b)`. */
export interface Comparison {
  /** Last node both paths hold; null when the two nodes are under different roots. */
  readonly ancestor: string | null
  /** Nodes root → ancestor (the shared prefix). */
  readonly commonLength: number
  readonly a: CompareSide
  readonly b: CompareSide
  /** The two paths after the ancestor, aligned (the first `maxRows` of them). */
  readonly rows: readonly CompareRow[]
  /** Aligned rows after the first `maxRows`, left out (0 when none). */
  readonly omittedRows: number
  /** Rows that differ (pairs that are not the same, and lone nodes), the omitted ones included. */
  readonly changedRows: number
}

/** Bounds of a compare (defaults in `compare.ts`; tests shrink them). */
export interface CompareLimits {
  /** Most differing tokens per side a text diff reads (after the common start and end are cut). */
  readonly maxTokens?: number
  /** Most edits a text diff computes; beyond, the texts are shown whole. */
  readonly maxEdits?: number
  /** Work (tokens × edits) all text diffs of one compare may spend. */
  readonly budget?: number
  /** Rows diffed and returned; the rest are only counted (default: all). */
  readonly maxRows?: number
}
