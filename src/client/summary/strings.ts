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
  /** The Jump/Fork summary choice. */
  readonly choiceLegend: string
  readonly choiceNone: string
  readonly choiceSummarize: string
  readonly choiceCustom: string
  readonly choiceInstructions: string
  readonly choicePlaceholder: string
  readonly choiceCarried: string
  readonly choicePanelOnly: string
  readonly choiceRequired: string
  readonly choiceTooLong: (max: number) => string
  readonly written: (branch: string, carried: boolean) => string
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
  choiceLegend: 'Summary of what the move leaves',
  choiceNone: 'No summary',
  choiceSummarize: 'Summarize',
  choiceCustom: 'Summarize with my instructions',
  choiceInstructions: 'Instructions for the summary',
  choicePlaceholder: 'What should the summary keep? (say, the files and the decisions)',
  choiceCarried: 'The session’s model writes it; the model reads it on the new path.',
  choicePanelOnly: 'The session’s model writes it; in projection mode it is kept for the panel only.',
  choiceRequired: 'Write the instructions, or pick another choice.',
  choiceTooLong: (max) => `At most ${max.toLocaleString('en-US')} characters.`,
  written: (branch, carried) =>
    `Summary of “${branch}” written${carried ? ' and carried into the new path' : ' (kept for the panel)'}:`,
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
  choiceLegend: '为离开的部分写摘要',
  choiceNone: '不写摘要',
  choiceSummarize: '写摘要',
  choiceCustom: '按我的要求写摘要',
  choiceInstructions: '摘要的要求',
  choicePlaceholder: '摘要应保留什么？（例如涉及的文件和做出的决定）',
  choiceCarried: '由会话的模型撰写；模型会在新路径上读到它。',
  choicePanelOnly: '由会话的模型撰写；投影模式下只保存在面板中。',
  choiceRequired: '请填写要求，或选择其他选项。',
  choiceTooLong: (max) => `最多 ${max} 个字符。`,
  written: (branch, carried) => `已写好“${branch}”的摘要${carried ? '，并放入新路径' : '（只保存在面板中）'}：`,
}

export function summaryStrings(locale: Locale): SummaryStrings {
  return locale === 'zh' ? zh : en
}
