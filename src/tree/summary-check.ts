/**
 * Checking a branch summary read from outside (a snapshot, the journal, a
 * caller): every field validated, keys rebuilt in canonical order so a
 * round trip is byte-identical.
 */
import type { BranchSummary, SummaryUsage } from './types.ts'
import { checkBranchName, checkNodeId, checkTime, Invalid, isRecord, str, type Mutable } from './validate.ts'

/** Rebuild a branch summary with its keys in canonical order. */
export function canonicalSummary(summary: BranchSummary): BranchSummary {
  return {
    branch: summary.branch,
    nodeId: summary.nodeId,
    summary: summary.summary,
    ...(summary.model === undefined ? {} : { model: summary.model }),
    ...(summary.provider === undefined ? {} : { provider: summary.provider }),
    ...(summary.fallback === undefined ? {} : { fallback: summary.fallback }),
    ...(summary.failure === undefined
      ? {}
      : { failure: { code: summary.failure.code, message: summary.failure.message } }),
    ...(summary.usage === undefined ? {} : { usage: { ...summary.usage } }),
    ...(summary.instructions === undefined ? {} : { instructions: summary.instructions }),
    ...(summary.fromNodeId === undefined ? {} : { fromNodeId: summary.fromNodeId }),
    ...(summary.carriedNodeId === undefined ? {} : { carriedNodeId: summary.carriedNodeId }),
    createdAt: summary.createdAt,
  }
}

export function checkSummary(value: unknown, where: string): BranchSummary {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  const summary: Mutable<BranchSummary> = {
    branch: checkBranchName(value.branch, `${where}.branch`),
    nodeId: checkNodeId(value.nodeId, `${where}.nodeId`),
    summary: str(value.summary, `${where}.summary`),
    createdAt: checkTime(value.createdAt, `${where}.createdAt`),
  }
  if (value.model !== undefined) summary.model = str(value.model, `${where}.model`)
  if (value.fallback !== undefined) {
    if (typeof value.fallback !== 'boolean') throw new Invalid(`${where}.fallback must be a boolean`)
    summary.fallback = value.fallback
  }
  if (value.provider !== undefined) summary.provider = str(value.provider, `${where}.provider`)
  if (value.failure !== undefined) {
    if (!isRecord(value.failure)) throw new Invalid(`${where}.failure must be an object`)
    summary.failure = {
      code: str(value.failure.code, `${where}.failure.code`),
      message: str(value.failure.message, `${where}.failure.message`),
    }
  }
  if (value.usage !== undefined) summary.usage = checkUsage(value.usage, `${where}.usage`)
  if (value.instructions !== undefined) summary.instructions = str(value.instructions, `${where}.instructions`)
  if (value.fromNodeId !== undefined) summary.fromNodeId = checkNodeId(value.fromNodeId, `${where}.fromNodeId`)
  if (value.carriedNodeId !== undefined)
    summary.carriedNodeId = checkNodeId(value.carriedNodeId, `${where}.carriedNodeId`)
  return canonicalSummary(summary)
}

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const

function checkUsage(value: unknown, where: string): SummaryUsage {
  if (!isRecord(value)) throw new Invalid(`${where} must be an object`)
  const out: Record<string, number> = {}
  for (const key of USAGE_KEYS) {
    const n = value[key]
    if (n === undefined) continue
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw new Invalid(`${where}.${key} must be a non-negative integer`)
    out[key] = n
  }
  if (out.inputTokens === undefined || out.outputTokens === undefined)
    throw new Invalid(`${where} needs inputTokens and outputTokens`)
  return out as unknown as SummaryUsage
}
