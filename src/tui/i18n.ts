/**
 * The terminal half's words in dsh-TUI's two languages. The language is
 * resolved as dsh-TUI resolves its own at start (`lib/types/i18n.js`
 * `resolveStartupLang`): `DSH_TUI_LANG`, else the persisted `/lang` choice in
 * `~/.dsh-tui/lang.json`, else the OS locale (`zh*` → zh, any other → en, none
 * → zh). It is read again each time the scene opens, so a `/lang` switch
 * reaches the next open.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export type TuiLang = 'en' | 'zh'

export function tuiLang(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): TuiLang {
  const pinned = env.DSH_TUI_LANG
  if (pinned === 'en' || pinned === 'zh') return pinned
  try {
    const saved = (JSON.parse(fs.readFileSync(path.join(home, '.dsh-tui', 'lang.json'), 'utf8')) as { lang?: unknown })
      .lang
    if (saved === 'en' || saved === 'zh') return saved
  } catch {
    // No saved choice (or an unreadable one): dsh-TUI falls through to the locale too.
  }
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || '').split('.')[0]?.toLowerCase() ?? ''
  if (locale === '') return 'zh'
  return locale.startsWith('zh') ? 'zh' : 'en'
}

const WORDS = {
  title: { en: 'Conversation tree', zh: '对话树' },
  here: { en: 'you are here', zh: '当前位置' },
  nodes: { en: 'nodes', zh: '个节点' },
  shown: { en: 'shown', zh: '显示' },
  filter: { en: 'filter', zh: '筛选' },
  'filter.all': { en: 'all', zh: '全部' },
  'filter.no-tools': { en: 'no tools', zh: '无工具' },
  'filter.user': { en: 'user prompts', zh: '用户消息' },
  'filter.labeled': { en: 'labeled', zh: '已标记' },
  search: { en: 'search', zh: '搜索' },
  'search.hint': { en: 'type to search', zh: '输入即搜索' },
  empty: { en: 'The tree is empty: send a prompt first.', zh: '对话树为空：请先发送一条消息。' },
  'no-match': { en: 'No node matches.', zh: '没有匹配的节点。' },
  loading: { en: 'Loading the tree…', zh: '正在读取对话树…' },
  'role.user': { en: 'user', zh: '用户' },
  'role.assistant': { en: 'assistant', zh: '助手' },
  'role.tool': { en: 'tool', zh: '工具' },
  'role.system': { en: 'system', zh: '系统' },
  'role.plugin': { en: 'context', zh: '上下文' },
  'role.model': { en: 'model', zh: '模型' },
  'role.compaction': { en: 'compaction', zh: '压缩' },
  'role.summary': { en: 'summary', zh: '摘要' },
  'role.custom': { en: 'entry', zh: '条目' },
  preview: { en: 'Preview', zh: '预览' },
  result: { en: 'result', zh: '结果' },
  call: { en: 'call', zh: '调用' },
  label: { en: 'label', zh: '标签' },
  branch: { en: 'branch', zh: '分支' },
  heads: { en: 'head of', zh: '分支头' },
  replaces: {
    en: 'replaces {count} earlier node(s) of this path, {first} … {last}',
    zh: '替代本路径上更早的 {count} 个节点，{first} … {last}',
  },
  folded: { en: 'folded', zh: '已折叠' },
  'key.move': { en: 'move', zh: '移动' },
  'key.fold': { en: 'fold', zh: '折叠' },
  'key.jump': { en: 'jump', zh: '跳转' },
  'key.fork': { en: 'fork', zh: '分叉' },
  'key.back': { en: 'back', zh: '后退' },
  'key.forward': { en: 'forward', zh: '前进' },
  'key.label': { en: 'label', zh: '标签' },
  'key.summarize': { en: 'summarize', zh: '摘要' },
  'key.compare': { en: 'compare', zh: '对比' },
  'key.new': { en: 'new session', zh: '新会话' },
  'key.files': { en: 'files', zh: '文件' },
  'key.here': { en: 'here', zh: '当前' },
  'key.filter': { en: 'filter', zh: '筛选' },
  'key.close': { en: 'close', zh: '关闭' },
  'key.cancel': { en: 'cancel', zh: '取消' },
  'key.confirm': { en: 'confirm', zh: '确认' },
  'key.choose': { en: 'choose', zh: '选择' },
  'key.keep': { en: 'keep mine', zh: '保留我的' },
  'key.overwrite': { en: 'overwrite', zh: '覆盖' },
  'key.scroll': { en: 'scroll', zh: '滚动' },
  'ask.fork': { en: 'Name of the new branch', zh: '新分支名称' },
  'ask.label': { en: 'Label (empty removes it)', zh: '标签（留空即删除）' },
  'ask.instructions': { en: 'What should the summary focus on?', zh: '摘要应关注什么？' },
  'ask.summary': { en: 'The move leaves part of the conversation behind', zh: '此次移动会离开一部分对话' },
  'summary.none': { en: 'No summary', zh: '不生成摘要' },
  'summary.summarize': { en: 'Summarize', zh: '生成摘要' },
  'summary.custom': { en: 'Summarize with my instructions', zh: '按我的要求生成摘要' },
  'ask.files': { en: 'Take what along?', zh: '带上哪些内容？' },
  'files.conversation': { en: 'Conversation only', zh: '仅对话' },
  'files.files': { en: 'Files only', zh: '仅文件' },
  'files.both': { en: 'Conversation and files', zh: '对话与文件' },
  'files.preview': { en: 'Restore preview', zh: '恢复预览' },
  'files.none': { en: 'No file changes.', zh: '没有文件变化。' },
  'files.conflict': { en: 'changed outside the agent', zh: '在代理之外被修改' },
  'files.blocked': { en: 'cannot be restored', zh: '无法恢复' },
  'files.unavailable': { en: 'Workspace checkpoints are off for this session.', zh: '此会话未开启工作区检查点。' },
  'compare.pick': { en: 'Compare: now pick the second node and press C', zh: '对比：选择第二个节点后按 C' },
  'compare.title': { en: 'Compare', zh: '对比' },
  'compare.parted': { en: 'paths part after', zh: '两条路径分叉于' },
  'compare.same': { en: 'same', zh: '相同' },
  'compare.only': { en: 'only here', zh: '仅此处' },
  'compare.changed': { en: 'changed', zh: '有改动' },
  'text.title': { en: 'session-tree', zh: 'session-tree' },
  busy: { en: 'Working…', zh: '处理中…' },
  moved: { en: 'Moved to', zh: '已移动到' },
  forked: { en: 'Forked', zh: '已分叉' },
  labeled: { en: 'Labeled', zh: '已标记' },
  unlabeled: { en: 'Label removed', zh: '已删除标签' },
  summarized: { en: 'Summary written', zh: '摘要已生成' },
  'new-session': { en: 'Opened the path as a new session', zh: '已将路径打开为新会话' },
  'new-session.switch': { en: 'Switching the terminal to it…', zh: '正在切换终端到该会话…' },
  restored: { en: 'Files restored', zh: '文件已恢复' },
  'no-agent': { en: 'No session is open in the terminal.', zh: '终端中没有打开的会话。' },
  'switch.row': { en: 'Switched to {branch} at {node}', zh: '已切换到 {branch}（{node}）' },
  'switch.hidden': {
    en: '{n} message(s) above hidden from the model',
    zh: '上方 {n} 条消息已对模型隐藏',
  },
  'switch.restated': {
    en: 'the {n} message(s) just above restate the path (copies the model reads once)',
    zh: '紧邻上方的 {n} 条消息是路径的重述（模型只读一次）',
  },
  'command.description': {
    en: 'The conversation tree: a full-screen view to jump, fork, label, compare (Alt+T)',
    zh: '对话树：全屏查看并跳转、分叉、标记、对比（Alt+T）',
  },
  'shortcut.description': { en: 'Open the conversation tree', zh: '打开对话树' },
} as const satisfies Record<string, Record<TuiLang, string>>

export type WordKey = keyof typeof WORDS

/** A word in `lang`, with `{name}` placeholders filled. */
export function word(lang: TuiLang, key: WordKey, params: Readonly<Record<string, string | number>> = {}): string {
  return WORDS[key][lang].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  )
}

/** Both languages of a word (dsh-TUI's `descriptions` maps). */
export function bothLangs(key: WordKey): Readonly<Record<TuiLang, string>> {
  return WORDS[key]
}
