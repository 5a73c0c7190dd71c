/**
 * English and Chinese strings of the panel. The active language follows the
 * host's locale service (`ctx.locale`, DSH's language setting) when there is
 * one, else the page's `<html lang>`, else the browser's languages.
 */

import { WORKSPACE_EN, WORKSPACE_ZH } from './workspace/strings.ts'

export type Locale = 'en' | 'zh'

const en = {
  tab: 'Tree',
  'action.open': 'Tree',
  'action.openTitle': 'Open the conversation tree',
  'filter.label': 'Show',
  'filter.all': 'All',
  'filter.no-tools': 'No tools',
  'filter.user': 'User prompts',
  'filter.labeled': 'Labeled',
  'search.placeholder': 'Search nodes  (/)',
  'search.label': 'Search node text',
  'search.clear': 'Clear search',
  'search.count': '{shown} of {total} node|{shown} of {total} nodes',
  'nav.back': 'Back',
  'nav.forward': 'Forward',
  'nav.export': 'Export',
  'nav.backTitle': 'Undo the last move in the tree ([ or Alt+←)',
  'nav.forwardTitle': 'Redo a move undone by Back (] or Alt+→)',
  'nav.exportTitle': 'Download the active path plus a digest of every other branch (JSON)',
  'mode.native': 'native',
  'mode.stock': 'stock',
  'mode.projection': 'projection',
  'mode.label': 'Surface',
  'mode.note.native':
    'Jumps select the model history directly (patched harness); the next request holds exactly the selected path.',
  'mode.note.stock':
    'Jumps rewrite the model history with official harness events (one maintenance turn, no model call); the next request holds exactly the selected path, also after a restart.',
  'mode.note.projection': 'Jumps move the tree and the panel only; the model keeps its current history.',
  'status.nodes': '{count} node|{count} nodes',
  'status.readOnly':
    'Read-only here: {kind} (pid {pid} on {host}) writes this session’s tree. Moves, labels and summaries work there, or here once it closes the session or exits.',
  'status.branches': '{count} branch|{count} branches',
  'status.labels': '{count} label|{count} labels',
  'status.quarantine':
    '{count} harness event could not be read and was skipped|{count} harness events could not be read and were skipped',
  'status.sidecar': 'Sidecar problem: {message}',
  'status.repeatedCallIds':
    'DSH’s Chat cannot load this session past event {seq}: a call id repeats ({count} tool call: the provider reused it, or an import answered a call on two branches). The model and this tree are not affected. Keep working here, or use “Branch into a new conversation” on the last answer the Chat shows.|DSH’s Chat cannot load this session past event {seq}: call ids repeat ({count} tool calls: the provider reused them, or an import answered calls on two branches). The model and this tree are not affected. Keep working here, or use “Branch into a new conversation” on the last answer the Chat shows.',
  'status.repeatedCallIdsKeyed':
    'This session’s log repeats a call id ({count} tool call, first at event {seq}: the provider reused it, or an import answered a call on two branches). DSH’s Chat and Trajectory show it here: this plugin keys those calls apart. A program that reads the log by itself may not.|This session’s log repeats call ids ({count} tool calls, first at event {seq}: the provider reused them, or an import answered calls on two branches). DSH’s Chat and Trajectory show it here: this plugin keys those calls apart. A program that reads the log by itself may not.',
  'status.pending': 'A history switch to {target} is waiting for the agent to become idle',
  'status.contextCompacts':
    'This path is about {tokens} tokens, over the {threshold} at which DSH compacts (the model’s window is {window}): DSH compacts it before the next step, as it would any conversation. The tree keeps every node of it.',
  'status.contextOverflows':
    'This path is about {tokens} tokens, more than the model’s context window ({window}), and no automatic compaction is loaded: the provider refuses the next request as it stands. Run /compact, or move to a shorter path.',
  'status.unreachable':
    '{count} node is not reachable from a root and is not shown|{count} nodes are not reachable from a root and are not shown',
  'status.stale': 'Showing the last tree received; refreshing failed: {code}: {message}',
  loading: 'Loading the conversation tree…',
  loadingAction: 'Working…',
  'error.title': 'The conversation tree could not be loaded',
  'error.retry': 'Retry',
  'error.notLoaded': 'This session is not loaded in the harness yet; it loads when it gets a message.',
  'error.dismiss': 'Dismiss',
  empty: 'No nodes yet: send a message and the tree grows here.',
  'empty.filtered': 'No node matches this filter or search.',
  'tree.label': 'Conversation tree',
  'row.cursor': 'current position',
  'row.cursorBadge': 'you are here',
  'row.forks': '{count} branch here|{count} branches here',
  'row.fold': 'Fold the branches here (←)',
  'row.unfold': 'Unfold the branches here (→)',
  'row.folded': '{count} row folded away here|{count} rows folded away here',
  'kind.user': 'user',
  'kind.assistant': 'assistant',
  'kind.system': 'system',
  'kind.tool': 'tool',
  'kind.plugin': 'injected',
  'kind.model': 'model',
  'kind.compaction': 'compaction',
  'kind.summary': 'summary',
  'kind.custom': 'note',
  'preview.none': 'Select a node to preview it. Nothing happens until you choose an action.',
  'preview.branch': 'Branch',
  'preview.label': 'Label',
  'preview.created': 'Created',
  'preview.model': 'Model',
  'preview.id': 'Node',
  'preview.heads': 'Head of',
  'preview.replaces': 'Replaces',
  'preview.replacesValue': '{count} earlier node(s) of this path, {first} … {last}',
  'preview.onPath': 'On the current path',
  'preview.offPath': 'Off the current path',
  'preview.toolCall': 'Call',
  'preview.toolResult': 'Result',
  'preview.toolError': 'Error',
  'preview.noResult': '(no result yet)',
  'preview.branchSummary': 'Branch summary',
  'act.jump': 'Jump here',
  'act.fork': 'Fork here',
  'act.label': 'Label',
  'act.summarize': 'Summarize branch',
  'act.jumpTitle': 'Move here: the next request the model receives holds exactly the path to this node (Enter)',
  'act.forkTitle': 'Start a named branch at this node and move onto it (f)',
  'act.labelTitle': 'Bookmark this node with a unique label (l)',
  'act.summarizeTitle': 'Write a digest of the branch "{branch}" (s)',
  'form.branchName': 'New branch name',
  'form.label': 'Label (empty clears it)',
  'form.create': 'Create branch',
  'form.save': 'Save label',
  'form.cancel': 'Cancel',
  'problem.nameRequired': 'Give the branch a name.',
  'problem.nameTooLong': 'At most 100 characters (this one has {length}).',
  'problem.nameBidi':
    'Direction-override characters (such as U+202E) are not allowed: they make a name display as something else.',
  'problem.nameInvalid': 'Control characters are not allowed.',
  'problem.nameExists': 'A branch with that name already exists.',
  'problem.labelTooLong': 'At most 200 characters (this one has {length}).',
  'problem.labelBidi':
    'Direction-override characters (such as U+202E) are not allowed: they make a label display as something else.',
  'problem.labelInvalid': 'Control characters are not allowed.',
  'problem.labelExists': 'Another node already carries that label.',
  'notice.jump': 'Moved. The model’s next request holds the path to this node.',
  'notice.jumpProjection': 'Moved in the tree. In projection mode the model keeps its history.',
  'notice.snapped': 'That node is inside a tool exchange; moved to the end of the exchange.',
  'notice.fork': 'Branch “{branch}” created; the next prompt continues from here.',
  'notice.label': 'Label saved.',
  'notice.labelCleared': 'Label cleared.',
  'notice.summarize': 'Summary of “{branch}” written.',
  'notice.back': 'Went back.',
  'notice.forward': 'Went forward.',
  'notice.export': 'Export downloaded.',
  'notice.switch': 'The Chat marks where the history switched.',
  'notice.switchTitle':
    '{count} official harness event recorded the switch in the session log (no model call).|{count} official harness events recorded the switch in the session log (no model call).',
  'keys.title': 'Keys',
  'keys.move': 'move',
  'keys.parentChild': 'parent / child',
  'keys.fold': 'fold / unfold',
  'keys.jump': 'jump',
  'keys.fork': 'fork',
  'keys.label': 'label',
  'keys.summarize': 'summarize',
  'keys.search': 'search',
  'keys.backForward': 'back / forward',
  'keys.cursor': 'go to current',
  'chat.switched': 'Switched to {branch}',
  'chat.switchedNode': 'Switched to {node}',
  'chat.switchedStart': 'Switched to the start of the conversation',
  'chat.forked': 'New branch {branch}',
  'chat.switchTitle': 'The model’s history was switched to “{summary}”',
  'chat.hidden': '{count} message hidden|{count} messages hidden',
  'chat.revealed': '{count} message the model no longer reads|{count} messages the model no longer reads',
  'chat.show': 'Show',
  'chat.loadingEarlier': 'loading earlier messages…',
  'chat.partial': 'the earliest are in older pages (Load earlier, above)',
  'chat.hide': 'Hide',
  'chat.showTitle': 'Show the messages this switch took out of the model’s history (dimmed)',
  'chat.hideTitle': 'Hide them again: the Chat shows what the model reads',
  'chat.fork.count': '{index} / {count}',
  'chat.fork.title': 'Branch {index} of {count} here; the arrows move the model’s history to another branch',
  'chat.fork.prev': 'Previous branch',
  'chat.fork.next': 'Next branch',
  ...WORKSPACE_EN,
} as const

export type StringKey = keyof typeof en

const zh: Record<StringKey, string> = {
  tab: '树',
  'action.open': '对话树',
  'action.openTitle': '打开对话树',
  'filter.label': '显示',
  'filter.all': '全部',
  'filter.no-tools': '隐藏工具',
  'filter.user': '仅用户提示',
  'filter.labeled': '仅已标记',
  'search.placeholder': '搜索节点  (/)',
  'search.label': '搜索节点文本',
  'search.clear': '清除搜索',
  'search.count': '显示 {shown} / {total} 个节点',
  'nav.back': '后退',
  'nav.forward': '前进',
  'nav.export': '导出',
  'nav.backTitle': '撤销树中的上一次移动（[ 或 Alt+←）',
  'nav.forwardTitle': '重做被后退撤销的移动（] 或 Alt+→）',
  'nav.exportTitle': '下载当前路径及其他每个分支的摘要（JSON）',
  'mode.native': '原生',
  'mode.stock': '标准',
  'mode.projection': '投影',
  'mode.label': '历史模式',
  'mode.note.native': '跳转直接选择模型的历史（已打补丁的 Harness）；下一个请求恰好包含所选路径。',
  'mode.note.stock':
    '跳转通过官方 Harness 事件改写模型的历史（一次维护回合，不调用模型）；下一个请求恰好包含所选路径，重启后也是如此。',
  'mode.note.projection': '跳转只移动树和面板；模型保留当前的历史。',
  'status.nodes': '{count} 个节点',
  'status.readOnly':
    '此处只读：{kind}（{host} 上的进程 {pid}）正在写入此会话的树。请在那里跳转、标记和总结；它关闭此会话或退出后，此处即可操作。',
  'status.branches': '{count} 个分支',
  'status.labels': '{count} 个标记',
  'status.quarantine': '有 {count} 个会话事件无法读取，已跳过',
  'status.sidecar': '附属存储问题：{message}',
  'status.repeatedCallIds':
    'DSH 的对话无法加载本会话第 {seq} 个事件之后的内容：调用 ID 重复（{count} 个工具调用：模型服务复用了调用 ID，或导入时同一调用在两个分支上得到了结果）。模型和这棵树不受影响。可以继续在这里操作，或在对话显示的最后一条回答上使用“在新对话中分支”。',
  'status.repeatedCallIdsKeyed':
    '本会话的日志中有 {count} 个工具调用重复了调用 ID（首个在第 {seq} 个事件：模型服务复用了调用 ID，或导入时同一调用在两个分支上得到了结果）。DSH 的对话和轨迹在这里可以正常显示：本插件会把这些调用区分开。自行读取日志的程序可能无法处理。',
  'status.pending': '切换到 {target} 的历史正在等待代理空闲',
  'status.contextCompacts':
    '这条路径约 {tokens} 个 token，超过了 DSH 压缩的阈值 {threshold}（模型的上下文窗口为 {window}）：DSH 会在下一步之前压缩它，与压缩任何对话一样。树会保留它的每一个节点。',
  'status.contextOverflows':
    '这条路径约 {tokens} 个 token，超过了模型的上下文窗口（{window}），且没有加载自动压缩：按现状，提供方会拒绝下一个请求。请运行 /compact，或移动到更短的路径。',
  'status.unreachable': '有 {count} 个节点无法从根节点到达，未显示',
  'status.stale': '显示的是上次收到的树；刷新失败：{code}：{message}',
  loading: '正在加载对话树…',
  loadingAction: '处理中…',
  'error.title': '无法加载对话树',
  'error.retry': '重试',
  'error.notLoaded': '该会话尚未在 Harness 中加载；收到消息后会加载。',
  'error.dismiss': '关闭',
  empty: '还没有节点：发送一条消息，树就会在这里生长。',
  'empty.filtered': '没有节点符合当前筛选或搜索。',
  'tree.label': '对话树',
  'row.cursor': '当前位置',
  'row.cursorBadge': '当前位置',
  'row.forks': '此处有 {count} 个分支',
  'row.fold': '折叠此处的分支（←）',
  'row.unfold': '展开此处的分支（→）',
  'row.folded': '此处折叠了 {count} 行',
  'kind.user': '用户',
  'kind.assistant': '助手',
  'kind.system': '系统',
  'kind.tool': '工具',
  'kind.plugin': '注入',
  'kind.model': '模型',
  'kind.compaction': '压缩',
  'kind.summary': '摘要',
  'kind.custom': '备注',
  'preview.none': '选择一个节点进行预览。选择操作之前不会发生任何变化。',
  'preview.branch': '分支',
  'preview.label': '标记',
  'preview.created': '创建时间',
  'preview.model': '模型',
  'preview.id': '节点',
  'preview.heads': '分支头',
  'preview.replaces': '替代',
  'preview.replacesValue': '本路径上更早的 {count} 个节点，{first} … {last}',
  'preview.onPath': '在当前路径上',
  'preview.offPath': '不在当前路径上',
  'preview.toolCall': '调用',
  'preview.toolResult': '结果',
  'preview.toolError': '错误',
  'preview.noResult': '（尚无结果）',
  'preview.branchSummary': '分支摘要',
  'act.jump': '跳转到此处',
  'act.fork': '在此分叉',
  'act.label': '标记',
  'act.summarize': '总结分支',
  'act.jumpTitle': '移动到此处：模型收到的下一个请求恰好包含通往该节点的路径（Enter）',
  'act.forkTitle': '在此节点创建命名分支并切换过去（f）',
  'act.labelTitle': '用唯一标记为该节点添加书签（l）',
  'act.summarizeTitle': '为分支“{branch}”写摘要（s）',
  'form.branchName': '新分支名称',
  'form.label': '标记（留空即清除）',
  'form.create': '创建分支',
  'form.save': '保存标记',
  'form.cancel': '取消',
  'problem.nameRequired': '请为分支命名。',
  'problem.nameTooLong': '最多 100 个字符（当前 {length} 个）。',
  'problem.nameBidi': '不允许方向控制字符（如 U+202E）：它们会让名称显示成别的样子。',
  'problem.nameInvalid': '不允许控制字符。',
  'problem.nameExists': '已存在同名分支。',
  'problem.labelTooLong': '最多 200 个字符（当前 {length} 个）。',
  'problem.labelBidi': '不允许方向控制字符（如 U+202E）：它们会让标记显示成别的样子。',
  'problem.labelInvalid': '不允许控制字符。',
  'problem.labelExists': '另一个节点已使用该标记。',
  'notice.jump': '已移动。模型的下一个请求包含通往该节点的路径。',
  'notice.jumpProjection': '已在树中移动。投影模式下模型保留原有历史。',
  'notice.snapped': '该节点位于工具调用之中；已移动到该调用的结尾。',
  'notice.fork': '已创建分支“{branch}”；下一条提示将从这里继续。',
  'notice.label': '标记已保存。',
  'notice.labelCleared': '标记已清除。',
  'notice.summarize': '已为“{branch}”写好摘要。',
  'notice.back': '已后退。',
  'notice.forward': '已前进。',
  'notice.export': '已下载导出文件。',
  'notice.switch': '对话中标出了历史切换的位置。',
  'notice.switchTitle': '会话日志中用 {count} 个官方 Harness 事件记录了这次切换（未调用模型）。',
  'keys.title': '快捷键',
  'keys.move': '移动',
  'keys.parentChild': '父 / 子节点',
  'keys.fold': '折叠 / 展开',
  'keys.jump': '跳转',
  'keys.fork': '分叉',
  'keys.label': '标记',
  'keys.summarize': '总结',
  'keys.search': '搜索',
  'keys.backForward': '后退 / 前进',
  'keys.cursor': '回到当前位置',
  'chat.switched': '已切换到 {branch}',
  'chat.switchedNode': '已切换到 {node}',
  'chat.switchedStart': '已切换到对话开头',
  'chat.forked': '新分支 {branch}',
  'chat.switchTitle': '模型的历史已切换到“{summary}”',
  'chat.hidden': '已隐藏 {count} 条消息',
  'chat.revealed': '{count} 条消息已不在模型的历史中',
  'chat.show': '显示',
  'chat.loadingEarlier': '正在加载更早的消息…',
  'chat.partial': '最早的几条在更早的页中（上方“加载更早”）',
  'chat.hide': '隐藏',
  'chat.showTitle': '显示这次切换移出模型历史的消息（淡色）',
  'chat.hideTitle': '再次隐藏：聊天只显示模型读取的内容',
  'chat.fork.count': '{index} / {count}',
  'chat.fork.title': '此处第 {index} 个分支，共 {count} 个；箭头把模型的历史切换到另一个分支',
  'chat.fork.prev': '上一个分支',
  'chat.fork.next': '下一个分支',
  ...WORKSPACE_ZH,
}

export const DICTIONARIES: Readonly<Record<Locale, Readonly<Record<StringKey, string>>>> = { en, zh }

export type Translate = (key: StringKey, params?: Readonly<Record<string, string | number>>) => string

/**
 * A translate function for one locale: `{name}` placeholders, and
 * `singular|plural` templates chosen by the `count` (else `total`) parameter.
 */
export function translator(locale: Locale): Translate {
  const dict = DICTIONARIES[locale]
  return (key, params) => {
    let template: string = dict[key] ?? en[key] ?? key
    const bar = template.indexOf('|')
    if (bar !== -1) {
      const n = Number(params?.count ?? params?.total ?? 0)
      template = n === 1 ? template.slice(0, bar) : template.slice(bar + 1)
    }
    if (!params) return template
    return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
  }
}

/** Map a language tag (or DSH locale id) to a shipped locale. */
export function localeOf(tag: string | undefined | null): Locale | undefined {
  if (!tag) return undefined
  const primary = tag.toLowerCase().split(/[-_]/)[0]
  return primary === 'zh' ? 'zh' : primary === 'en' ? 'en' : undefined
}

/** The host's locale face (`ctx.locale` of `@deepseek-ai/dsh-client-locale`), as far as the panel reads it. */
export interface HostLocale {
  getSnapshot(): { readonly active: string }
  subscribe(listener: () => void): () => void
}

/** The locale to show: the host's, else `<html lang>`, else the browser's, else English. */
export function resolveLocale(host: HostLocale | undefined): Locale {
  const fromHost = host ? localeOf(host.getSnapshot().active) : undefined
  if (fromHost) return fromHost
  if (typeof document !== 'undefined') {
    const fromPage = localeOf(document.documentElement.lang)
    if (fromPage) return fromPage
  }
  if (typeof navigator !== 'undefined') {
    for (const tag of [...(navigator.languages ?? []), navigator.language]) {
      const found = localeOf(tag)
      if (found) return found
    }
  }
  return 'en'
}
