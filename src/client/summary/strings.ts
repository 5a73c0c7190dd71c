/** The summary views' strings, English and Chinese (kept beside them, so the shared dictionaries need no edit). */
import type { Locale } from '../i18n.ts'

export interface SummaryStrings {
  readonly atHead: (branch: string) => string
  readonly leftFrom: (branch: string) => string
  readonly carried: (branch: string) => string
  readonly inHistory: string
  readonly model: (model: string) => string
  readonly extractive: string
  readonly caller: string
  readonly stub: string
  readonly fallback: (code: string) => string
  readonly tokens: (input: number, output: number) => string
  readonly writing: string
}

const en: SummaryStrings = {
  atHead: (branch) => `Summary of “${branch}” (written at its head)`,
  leftFrom: (branch) => `Summary of “${branch}”, which leaves from here`,
  carried: (branch) => `Summary of “${branch}”, carried into the model’s history`,
  inHistory: 'the model reads it on the new path',
  model: (model) => `written by ${model}`,
  extractive: 'extractive digest (no model call)',
  caller: 'written by the caller',
  stub: 'not summarized (fallback)',
  fallback: (code) => `extractive digest: the model’s summary failed (${code})`,
  tokens: (input, output) => `${input.toLocaleString('en-US')} tokens in, ${output.toLocaleString('en-US')} out`,
  writing: 'The session’s model is writing the summary…',
}

const zh: SummaryStrings = {
  atHead: (branch) => `“${branch}”的摘要（写于分支末端）`,
  leftFrom: (branch) => `“${branch}”的摘要（该分支从这里分出）`,
  carried: (branch) => `“${branch}”的摘要，已放入模型的历史`,
  inHistory: '模型会在新路径上读到它',
  model: (model) => `由 ${model} 撰写`,
  extractive: '抽取式摘要（未调用模型）',
  caller: '由调用方撰写',
  stub: '未能总结（后备）',
  fallback: (code) => `抽取式摘要：模型摘要失败（${code}）`,
  tokens: (input, output) => `输入 ${input} 个 token，输出 ${output} 个`,
  writing: '会话的模型正在撰写摘要…',
}

export function summaryStrings(locale: Locale): SummaryStrings {
  return locale === 'zh' ? zh : en
}
