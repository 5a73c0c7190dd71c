/** The compare view's words, English and Chinese (the panel's locales). */
import type { Locale } from '../i18n.ts'

const EN = {
  open: 'Compare…',
  openTitle: 'Compare two nodes or branches side by side',
  title: 'Compare',
  a: 'A',
  b: 'B',
  swap: 'Swap',
  close: 'Close',
  closeTitle: 'Back to the tree (Esc)',
  selected: 'selected node {id}',
  cursor: 'where the history ends ({id})',
  branch: 'branch {name} ({id})',
  loading: 'Comparing…',
  nothing: 'Pick two different nodes to compare.',
  needTwo: 'The tree needs at least two nodes or branches to compare.',
  same: 'Both sides are the same node.',
  parted: 'They part after {id} ({n} nodes in common).',
  noAncestor: 'They share no ancestor (different roots).',
  changed: '{changed} of {rows} rows differ.',
  omitted: '{n} more rows are not shown.',
  tokens: '{n} tokens',
  tokensUnknown: 'tokens unknown',
  partial: ' (usage on {with} of {of} answers)',
  cost: 'cost {n}',
  nodes: '{n} nodes',
  onlyA: 'only in A',
  onlyB: 'only in B',
  divergence: 'divergence',
  rows: 'Rows of the comparison',
  keys: '↑↓ move · n/p next/previous change · Home/End · Esc close',
  empty: 'Nothing after the common ancestor on either side.',
  picked: 'picked node {id}',
  with: 'Compare with…',
  withTitle: 'Pick a second node in the tree to compare this one with',
  picking: 'Compare {id} with: click a node in the tree (or select it and press Enter). Esc cancels.',
  cancel: 'Cancel',
} as const

type Key = keyof typeof EN

const ZH: Record<Key, string> = {
  open: '比较…',
  openTitle: '并排比较两个节点或分支',
  title: '比较',
  a: 'A',
  b: 'B',
  swap: '交换',
  close: '关闭',
  closeTitle: '回到树（Esc）',
  selected: '选中的节点 {id}',
  cursor: '历史的末尾（{id}）',
  branch: '分支 {name}（{id}）',
  loading: '正在比较…',
  nothing: '请选择两个不同的节点进行比较。',
  needTwo: '至少需要两个节点或分支才能比较。',
  same: '两边是同一个节点。',
  parted: '在 {id} 之后分开（共同的节点 {n} 个）。',
  noAncestor: '没有共同的祖先（不同的根）。',
  changed: '{rows} 行中有 {changed} 行不同。',
  omitted: '另有 {n} 行未显示。',
  tokens: '{n} 个 token',
  tokensUnknown: 'token 未知',
  partial: '（{of} 个回答中 {with} 个有用量）',
  cost: '费用 {n}',
  nodes: '{n} 个节点',
  onlyA: '仅在 A',
  onlyB: '仅在 B',
  divergence: '分歧点',
  rows: '比较的各行',
  keys: '↑↓ 移动 · n/p 下一处/上一处不同 · Home/End · Esc 关闭',
  empty: '共同祖先之后两边都没有内容。',
  picked: '选取的节点 {id}',
  with: '与…比较',
  withTitle: '在树中再选一个节点与此节点比较',
  picking: '将 {id} 与：在树中点击一个节点（或选中后按 Enter）。Esc 取消。',
  cancel: '取消',
}

export type CompareTranslate = (key: Key, values?: Readonly<Record<string, string | number>>) => string

export function compareStrings(locale: Locale): CompareTranslate {
  const table: Record<Key, string> = locale === 'zh' ? ZH : EN
  return (key, values = {}) =>
    table[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))
}
