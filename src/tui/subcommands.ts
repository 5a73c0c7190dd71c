/**
 * `/session-tree`'s subcommands as dsh-TUI completes them
 * (`ctx.tuiCommandTrees`): the verbs of `/tree` (`tool/command.ts` parses
 * them) with a line in each language, and the flags a move takes.
 */
import type { CompletionNode } from './host.ts'

interface Subcommand {
  readonly name: string
  readonly aliases?: readonly string[]
  readonly en: string
  readonly zh: string
  /** Flags completed after the verb. */
  readonly flags?: readonly string[]
}

const MOVE_FLAGS = ['--both', '--files', '--overwrite']
const SUMMARY_FLAGS = ['--summarize', '--carry', '--instructions']

export const SUBCOMMANDS: readonly Subcommand[] = [
  {
    name: 'list',
    aliases: ['show'],
    en: 'the tree as text (← marks where the history ends)',
    zh: '以文本列出对话树（← 标出历史末端）',
  },
  {
    name: 'find',
    aliases: ['search'],
    en: 'nodes whose label or text contains a word',
    zh: '查找标签或文本包含某词的节点',
  },
  {
    name: 'jump',
    aliases: ['goto'],
    en: 'continue from a node: the next request holds the path to it',
    zh: '从某节点继续：下一次请求只含到它的路径',
    flags: [...MOVE_FLAGS, ...SUMMARY_FLAGS],
  },
  {
    name: 'fork',
    aliases: ['branch'],
    en: 'a named branch at a node, and move there',
    zh: '在某节点创建命名分支并移过去',
    flags: [...MOVE_FLAGS, ...SUMMARY_FLAGS],
  },
  { name: 'back', en: 'undo the last move', zh: '撤销上一次移动', flags: MOVE_FLAGS },
  { name: 'forward', en: 'redo the move undone', zh: '重做被撤销的移动', flags: MOVE_FLAGS },
  { name: 'label', en: 'bookmark a node (--clear removes it)', zh: '给节点加书签（--clear 删除）', flags: ['--clear'] },
  { name: 'summarize', aliases: ['summary'], en: 'summarize a branch', zh: '为分支生成摘要' },
  {
    name: 'compare',
    aliases: ['diff'],
    en: 'two nodes, labels or branches side by side',
    zh: '并排对比两个节点、标签或分支',
  },
  { name: 'new-session', en: 'the path to a node as a new session', zh: '将到某节点的路径打开为新会话' },
  {
    name: 'import',
    en: 'a Pi, Claude Code or Codex session as a new session',
    zh: '导入 Pi、Claude Code 或 Codex 会话',
    flags: ['--format', '--dry-run'],
  },
  { name: 'export', en: 'this tree as pi, claude-code or markdown', zh: '导出为 pi、claude-code 或 markdown' },
  {
    name: 'gc',
    en: 'remove trees of sessions that no longer exist',
    zh: '清理已不存在会话的对话树',
    flags: ['--dry-run'],
  },
  { name: 'help', en: 'every subcommand and flag', zh: '全部子命令与参数' },
]

/** Completion rows under `path` (`['session-tree']`, `['session-tree', 'jump']`, …). */
export function subcommandNodes(path: readonly string[]): CompletionNode[] {
  if (path.length <= 1) {
    return SUBCOMMANDS.map((sub) => ({
      name: sub.name,
      ...(sub.aliases ? { aliases: sub.aliases } : {}),
      description: sub.en,
      descriptions: { en: sub.en, zh: sub.zh },
    }))
  }
  const verb = path[1]?.toLowerCase()
  const sub = SUBCOMMANDS.find((s) => s.name === verb || s.aliases?.includes(verb ?? ''))
  if (!sub?.flags || path.length > 2) return []
  return sub.flags.map((flag) => ({ name: flag, description: flag, descriptions: { en: flag, zh: flag } }))
}
