/**
 * A branch summary carried into the model's history: an ordinary harness
 * `user/message` (appended, never a replacement, so DSH's Chat shows it as a
 * "Context injection" row) with a plugin `notice` source. The source also
 * holds `branchSummary`, which is how the log alone tells our summary apart
 * from any other injected context (a rebuild without the sidecar recognises
 * it, and knows who wrote it). Source fields are never sent to the model.
 */
import type { BranchSummary } from '../tree/types.ts'
import { isRecord } from '../tree/validate.ts'
import { PLUGIN_ID } from './marker.ts'

/** The harness's bound on a `notice` source's one-line summary (`CONTEXT_SUMMARY_MAX_CHARS`). */
export const NOTICE_SUMMARY_MAX = 120

/** What the model reads before the summary text (Pi's wording). */
export const CARRIED_PREFIX = 'The following is a summary of a branch that this conversation came back from:'

/** What the model reads before a summary carried with another branch's file changes (`carry`). */
export const CARRIED_WORK_PREFIX =
  'The following is a summary of another branch of this conversation, whose file changes were carried here:'

/** What the log keeps about the summary (in the message's source, model-invisible). */
export interface CarriedSummaryFacts {
  readonly v: 1
  /** The branch that was summarized, and its node the summary was written at. */
  readonly branch: string
  readonly of: string
  readonly fromNodeId?: string
  readonly writer?: { readonly provider?: string; readonly model: string }
  readonly fallback?: boolean
  readonly usage?: BranchSummary['usage']
}

/** The harness message that carries `summary` (its `id` from the caller). */
export function carriedSummaryMessage(
  id: string,
  summary: BranchSummary,
  lead: string = CARRIED_PREFIX,
): Record<string, unknown> {
  const facts: CarriedSummaryFacts = {
    v: 1,
    branch: summary.branch,
    of: summary.nodeId,
    ...(summary.fromNodeId === undefined ? {} : { fromNodeId: summary.fromNodeId }),
    ...(summary.model === undefined
      ? {}
      : {
          writer: { model: summary.model, ...(summary.provider === undefined ? {} : { provider: summary.provider }) },
        }),
    ...(summary.fallback ? { fallback: true } : {}),
    ...(summary.usage === undefined ? {} : { usage: summary.usage }),
  }
  return {
    id,
    role: 'user',
    content: [{ type: 'text', text: `${lead}\n\n${summary.summary}` }],
    source: { kind: 'plugin', plugin: PLUGIN_ID, form: 'notice', summary: noticeLine(summary), branchSummary: facts },
  }
}

/** The facts of a carried summary, when `message` is one; undefined for any other message. */
export function carriedSummaryOf(
  message: unknown,
): { readonly line: string; readonly facts: CarriedSummaryFacts } | undefined {
  if (!isRecord(message) || !isRecord(message.source)) return undefined
  const source = message.source
  if (source.kind !== 'plugin' || source.plugin !== PLUGIN_ID || !isRecord(source.branchSummary)) return undefined
  const facts = source.branchSummary
  if (facts.v !== 1 || typeof facts.branch !== 'string' || typeof facts.of !== 'string') return undefined
  return {
    line: typeof source.summary === 'string' ? source.summary : '',
    facts: facts as unknown as CarriedSummaryFacts,
  }
}

/** The collapsed row's line: "Branch summary (<branch>): …", within the harness's bound. */
function noticeLine(summary: BranchSummary): string {
  const line = `Branch summary (${summary.branch}): ${summary.summary.replace(/\s+/g, ' ').trim()}`
  const chars = [...line]
  return chars.length <= NOTICE_SUMMARY_MAX ? line : `${chars.slice(0, NOTICE_SUMMARY_MAX - 1).join('')}…`
}
