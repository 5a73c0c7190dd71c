/**
 * The import dialog's and export menu's strings, English and Chinese, in the
 * panel's locale (`Locale` of ../i18n.ts; kept beside the views, as the
 * summary and compare views keep theirs, so the shared dictionaries need no edit).
 */
import type { Locale } from '../i18n.ts'
import type { ExportFormat, SourceFormat } from '../../types.ts'

export interface InterchangeStrings {
  readonly importButton: string
  readonly importTitle: string
  readonly dialogTitle: string
  readonly reading: (file: string) => string
  readonly formatName: (format: SourceFormat) => string
  readonly detected: (format: string, version: string) => string
  readonly fileFacts: (name: string, size: string, lines: number) => string
  readonly figures: {
    readonly nodes: string
    readonly branches: string
    readonly labels: string
    readonly compactions: string
  }
  readonly willCreate: string
  readonly branchesHeading: (shown: number, total: number) => string
  readonly active: string
  readonly branchLine: (entries: number, depth: number) => string
  readonly noPrompt: string
  readonly skippedHeading: (count: number) => string
  readonly skippedLine: (line: number, reason: string) => string
  readonly more: (count: number) => string
  readonly opaqueHeading: string
  readonly recovered: (count: number) => string
  readonly notesHeading: string
  readonly confirm: string
  readonly creating: string
  readonly cancel: string
  readonly close: string
  readonly created: (title: string) => string
  readonly open: string
  readonly errorTitle: string
  readonly errorByCode: (code: string) => string
  readonly tooLarge: (size: string, limit: string) => string
  readonly exportButton: string
  readonly exportTitle: string
  readonly exportFormat: (format: ExportFormat | 'linear') => string
  readonly exportHint: (format: ExportFormat | 'linear') => string
  readonly exported: (name: string, lines: number) => string
}

const FORMAT_NAMES: Readonly<Record<SourceFormat, string>> = { pi: 'Pi', 'claude-code': 'Claude Code', codex: 'Codex' }
const plural = (n: number, one: string, many: string) => (n === 1 ? one : many)

const EN_ERRORS: Readonly<Record<string, string>> = {
  NOT_A_SESSION: 'This file is not a Pi, Claude Code or Codex session.',
  UNSUPPORTED_VERSION: 'This session file is of a version the importer does not read.',
  FORMAT_MISMATCH: 'This file is not in the format that was asked for.',
  EMPTY_SESSION: 'This session holds no conversation to import.',
  TOO_LARGE: 'This file is larger than an import accepts.',
  INVALID_PATH: 'The file could not be taken.',
  TREE_CORRUPT: 'The session’s tree is inconsistent; nothing was imported.',
  READ_FAILED: 'The file could not be read.',
  WRITE_FAILED: 'The session could not be written; nothing was imported.',
}

const en: InterchangeStrings = {
  importButton: 'Import…',
  importTitle: 'Open a Pi, Claude Code or Codex session from a file as a new session, with its whole tree',
  dialogTitle: 'Import a session',
  reading: (file) => `Reading ${file}…`,
  formatName: (format) => FORMAT_NAMES[format],
  detected: (format, version) => `${format} session, version ${version}`,
  fileFacts: (name, size, lines) => `${name} · ${size} · ${lines} ${plural(lines, 'line', 'lines')}`,
  figures: { nodes: 'nodes', branches: 'branches', labels: 'labels', compactions: 'compactions' },
  willCreate: 'Nothing is written until you create the session. It will hold:',
  branchesHeading: (shown, total) =>
    shown === total ? `Branches (${total})` : `Branches (${shown} of ${total} shown)`,
  active: 'continues here',
  branchLine: (entries, depth) => `${entries} ${plural(entries, 'entry', 'entries')} · depth ${depth}`,
  noPrompt: '(no prompt)',
  skippedHeading: (count) => `${count} ${plural(count, 'line', 'lines')} skipped`,
  skippedLine: (line, reason) => `line ${line}: ${reason}`,
  more: (count) => `… and ${count} more`,
  opaqueHeading: 'Kept as opaque entries',
  recovered: (count) => `${count} ${plural(count, 'record', 'records')} recovered from torn lines`,
  notesHeading: 'Notes',
  confirm: 'Create session',
  creating: 'Creating the session…',
  cancel: 'Cancel',
  close: 'Close',
  created: (title) => `Created “${title}”.`,
  open: 'Open it',
  errorTitle: 'Nothing was imported',
  errorByCode: (code) => EN_ERRORS[code] ?? 'The import failed.',
  tooLarge: (size, limit) =>
    `This file is ${size}; the upload limit is ${limit}. Import it on the host instead: npx dsh-session-tree import <file>`,
  exportButton: 'Export',
  exportTitle: 'Download this session’s tree as a file another tool opens',
  exportFormat: (format) =>
    ({
      pi: 'Pi session (JSONL)',
      'claude-code': 'Claude Code transcript (JSONL)',
      markdown: 'Markdown transcript',
      linear: 'Active path digest (JSON)',
    })[format],
  exportHint: (format) =>
    ({
      pi: 'every branch, labels and summaries; Pi resumes on the active path',
      'claude-code': 'the active path, for claude --resume',
      markdown: 'the active path, and a summary of every other branch',
      linear: 'the active path plus a digest of every other branch',
    })[format],
  exported: (name, lines) => `Downloaded ${name} (${lines} ${plural(lines, 'line', 'lines')}).`,
}

const ZH_ERRORS: Readonly<Record<string, string>> = {
  NOT_A_SESSION: '这个文件不是 Pi、Claude Code 或 Codex 的会话。',
  UNSUPPORTED_VERSION: '导入器不支持这个会话文件的版本。',
  FORMAT_MISMATCH: '这个文件不是所要求的格式。',
  EMPTY_SESSION: '这个会话中没有可导入的对话。',
  TOO_LARGE: '这个文件超出了导入的大小上限。',
  INVALID_PATH: '无法读取这个文件。',
  TREE_CORRUPT: '会话的树不一致；没有导入任何内容。',
  READ_FAILED: '无法读取这个文件。',
  WRITE_FAILED: '无法写入会话；没有导入任何内容。',
}

const zh: InterchangeStrings = {
  importButton: '导入…',
  importTitle: '从文件打开 Pi、Claude Code 或 Codex 的会话，作为一个保留完整树的新会话',
  dialogTitle: '导入会话',
  reading: (file) => `正在读取 ${file}…`,
  formatName: (format) => FORMAT_NAMES[format],
  detected: (format, version) => `${format} 会话，版本 ${version}`,
  fileFacts: (name, size, lines) => `${name} · ${size} · ${lines} 行`,
  figures: { nodes: '个节点', branches: '个分支', labels: '个标签', compactions: '次压缩' },
  willCreate: '创建会话之前不会写入任何内容。新会话将包含：',
  branchesHeading: (shown, total) => (shown === total ? `分支（${total}）` : `分支（显示 ${shown} / ${total}）`),
  active: '从这里继续',
  branchLine: (entries, depth) => `${entries} 个条目 · 深度 ${depth}`,
  noPrompt: '（无提示）',
  skippedHeading: (count) => `跳过了 ${count} 行`,
  skippedLine: (line, reason) => `第 ${line} 行：${reason}`,
  more: (count) => `… 另有 ${count} 条`,
  opaqueHeading: '作为不透明条目保留',
  recovered: (count) => `从损坏的行中恢复了 ${count} 条记录`,
  notesHeading: '说明',
  confirm: '创建会话',
  creating: '正在创建会话…',
  cancel: '取消',
  close: '关闭',
  created: (title) => `已创建“${title}”。`,
  open: '打开它',
  errorTitle: '没有导入任何内容',
  errorByCode: (code) => ZH_ERRORS[code] ?? '导入失败。',
  tooLarge: (size, limit) =>
    `这个文件有 ${size}，上传上限是 ${limit}。请在主机上导入：npx dsh-session-tree import <文件>`,
  exportButton: '导出',
  exportTitle: '把这个会话的树下载为其他工具能打开的文件',
  exportFormat: (format) =>
    ({
      pi: 'Pi 会话（JSONL）',
      'claude-code': 'Claude Code 记录（JSONL）',
      markdown: 'Markdown 记录',
      linear: '当前路径摘要（JSON）',
    })[format],
  exportHint: (format) =>
    ({
      pi: '所有分支、标签和摘要；Pi 会在当前路径上继续',
      'claude-code': '当前路径，可用于 claude --resume',
      markdown: '当前路径，以及其他每个分支的摘要',
      linear: '当前路径及其他每个分支的摘要',
    })[format],
  exported: (name, lines) => `已下载 ${name}（${lines} 行）。`,
}

export function interchangeStrings(locale: Locale): InterchangeStrings {
  return locale === 'zh' ? zh : en
}
