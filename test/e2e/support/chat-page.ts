/**
 * DSH's Chat as a person sees it, for the browser tests: open a session in
 * `dsh web`, read the Chat's VISIBLE rows in order (what is on screen, by the
 * host's own `data-chat-flow-*` attributes and `checkVisibility()`), and the
 * transcripts to compare them with: the model's request (the recording fake
 * LLM's body plus its reply) or a tree path.
 */
import type { Page } from 'playwright-core'
import type { TreeNode } from '../../../src/types.ts'
import { messageText, type ChatRequestBody, type StaticStep } from './fake-llm.ts'
import { until } from './until.ts'

/** One row of a transcript: a prompt, an answer's text, or a tool call by name. */
/** Records in `problems` what says the Chat failed: a console error or the Chat's own load failure, a page error. */
export function watchChatProblems(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error' || /start Match|Failed to load history/.test(m.text()))
      problems.push(`console ${m.type()}: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`))
}

export interface Row {
  readonly role: 'user' | 'assistant' | 'tool' | string
  readonly text: string
}

/** A visible Chat row as the page shows it. */
export interface VisibleRow {
  readonly key: string
  readonly kind: string
  readonly text: string
  readonly opacity: number
}

const INJECTED = 'Current runtime context'

/** What the model read (a request body) plus what it answered, as Chat rows: injected context aside, results folded into their call. */
export function requestTranscript(body: ChatRequestBody, reply?: StaticStep): Row[] {
  const rows: Row[] = []
  for (const m of body.messages) {
    if (m.role === 'system' || m.role === 'tool') continue
    const text = messageText(m)
    if (m.role === 'user') {
      if (!text.startsWith(INJECTED)) rows.push({ role: 'user', text })
      continue
    }
    if (text.trim() !== '') rows.push({ role: 'assistant', text })
    for (const call of m.tool_calls ?? []) rows.push({ role: 'tool', text: call.function.name })
  }
  if (reply && 'text' in reply && reply.text) rows.push({ role: 'assistant', text: reply.text })
  return rows
}

/** A tree path (root → node) as Chat rows, the same way. */
export function pathTranscript(nodes: readonly TreeNode[], cursor: string | null): Row[] {
  const byId = new Map(nodes.map((n) => [n.nodeId, n]))
  const path: TreeNode[] = []
  for (
    let at = cursor === null ? undefined : byId.get(cursor);
    at;
    at = at.parentId === null ? undefined : byId.get(at.parentId)
  )
    path.unshift(at)
  const rows: Row[] = []
  for (const node of path) {
    if (node.type === 'tool_call') {
      const call = node.content?.find((p) => p.type === 'tool_call') as { name?: string } | undefined
      rows.push({ role: 'tool', text: call?.name ?? '?' })
    } else if (node.message?.role === 'user' && !node.origin?.injected)
      rows.push({ role: 'user', text: node.message.content })
    else if (node.message?.role === 'assistant' && node.message.content.trim() !== '')
      rows.push({ role: 'assistant', text: node.message.content })
  }
  return rows
}

/** The Chat's rows that are on screen, in order (the host's rows and ours). */
export function visibleRows(page: Page): Promise<VisibleRow[]> {
  return page.evaluate(() => {
    const column = document.querySelector('[data-chat-flow]')
    if (!column) return []
    return [...column.children]
      .filter(
        (el): el is HTMLElement =>
          el instanceof HTMLElement && el.dataset.chatFlowKey !== undefined && el.checkVisibility(),
      )
      .map((el) => ({
        key: el.dataset.chatFlowKey!,
        kind: el.dataset.chatFlowKind ?? '',
        text: el.innerText.trim(),
        opacity: Number(getComputedStyle(el).opacity),
      }))
  })
}

/** The visible rows as a transcript: prompts, answers, tool calls (context rows, turn tails and our own rows aside). */
export function chatTranscript(rows: readonly VisibleRow[]): Row[] {
  const out: Row[] = []
  for (const row of rows) {
    const first = row.text.split('\n')[0]!.trim()
    if (row.kind === 'user') out.push({ role: 'user', text: first })
    else if (row.kind === 'assistant-step') out.push({ role: 'assistant', text: row.text })
    // A tool card shows its variant title ("Read", "Tool call") and, for most tools, the name: kept whole, lower-cased.
    else if (row.kind === 'tool-call') out.push({ role: 'tool', text: row.text.replace(/\s+/g, ' ').toLowerCase() })
    else if (row.kind === 'context' || row.kind === 'turn-tail' || row.kind.startsWith('session-tree-')) continue
    // Anything else on screen (an error, an unknown event) is a row too: the comparison sees it.
    else out.push({ role: row.kind, text: row.text })
  }
  return out
}

/** Whether the visible rows are exactly the expected transcript (a tool card matches when it names the tool). */
export function sameRows(expected: readonly Row[], visible: readonly Row[]): boolean {
  return (
    expected.length === visible.length &&
    expected.every((row, i) => {
      const seen = visible[i]!
      return row.role === seen.role && (row.role === 'tool' ? seen.text.includes(row.text) : row.text === seen.text)
    })
  )
}

/** The Internal Testing Notice's button, in the host's English or Chinese. */
function noticeButton(page: Page) {
  return page.getByRole('button', { name: /^(Continue|继续)$/ })
}

/** Dismiss the Internal Testing Notice when it shows (once per browser profile). */
export async function dismissNotice(page: Page): Promise<void> {
  const notice = noticeButton(page)
  if (await notice.isVisible().catch(() => false)) await notice.click()
}

/**
 * Open the session from the sidebar (after the Internal Testing Notice, when it shows) and wait for its Chat.
 * The "Ungrouped" folder is unfolded only when it says it is folded: right after a load it can render before its
 * entries, and a blind click would fold it.
 */
export async function openSession(page: Page, url: string | undefined, title: string | RegExp): Promise<void> {
  if (url !== undefined) await page.goto(url)
  const notice = noticeButton(page)
  const group = page.getByText(/^(Ungrouped|未分组)$/)
  const folder = page.locator('[role="treeitem"][aria-expanded]').filter({ has: group }).first()
  const entry = (typeof title === 'string' ? page.getByText(title, { exact: true }) : page.getByText(title)).first()
  // The notice shows once per browser profile; after that the sidebar comes straight up: the entry, in its
  // workspace's group, or under "Ungrouped" (a session in no workspace).
  await notice.or(group).or(entry).first().waitFor({ timeout: 30_000 })
  if (await notice.isVisible()) await notice.click()
  await until(
    `the sidebar entry ${String(title)}`,
    async () => {
      if (await entry.isVisible()) return true
      if ((await folder.getAttribute('aria-expanded', { timeout: 1_000 }).catch(() => null)) === 'false')
        await folder.click()
      return false
    },
    30_000,
  )
  await entry.click()
  await page
    .locator('[data-chat-flow] [data-chat-flow-kind="user"]')
    .first()
    .waitFor({ state: 'attached', timeout: 30_000 })
}

/** The revision the Chat's decorations were last applied at (our column attribute). */
export function appliedRevision(page: Page): Promise<string | null> {
  return page.evaluate(
    () => document.querySelector('[data-chat-flow]')?.getAttribute('data-session-tree-revision') ?? null,
  )
}
