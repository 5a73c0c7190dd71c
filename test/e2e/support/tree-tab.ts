/**
 * The Tree tab as a person uses it in the browser tests: open it from the session's header, find
 * a node's row, select it and wait for its preview. `rowNodes` says which nodes it draws as rows,
 * written independently of the panel's model.
 */
import { expect } from 'vitest'
import type { Page } from 'playwright-core'
import type { SessionTreeView, TreeNode } from '../../../src/types.ts'
import { openSession } from './chat-page.ts'

/** The Tree tab's rows (the host's sidebar is a tree too). */
export const TREE_ROWS = '[data-session-tree] [role="treeitem"]'

/** Open the session (`openSession`), then its Tree tab from the header action, and wait for its first row. */
export async function openTreeTab(page: Page, url: string | undefined, title: string | RegExp): Promise<void> {
  await openSession(page, url, title)
  await page.getByTestId('session-tree-open').click()
  await page.locator(TREE_ROWS).first().waitFor({ timeout: 30_000 })
}

/** A node's row, the preview, and a click on a row that waits for its preview (`page` is read at each call). */
export function treeTab(page: () => Page) {
  const row = (nodeId: string) => page().locator(`${TREE_ROWS}[data-node-id="${nodeId}"]`)
  const preview = () => page().getByTestId('session-tree-preview')
  return {
    row,
    preview,
    async select(nodeId: string): Promise<void> {
      await row(nodeId).click()
      await expect.poll(() => preview().getAttribute('data-node-id')).toBe(nodeId)
    },
  }
}

/**
 * Every node except a tool-only assistant request (empty text, a tool call part) that is not the
 * cursor — its call's row shows it (one row per tool exchange). Close enough for the e2e demos,
 * whose requests carry no label or branch head.
 */
export function rowNodes(view: Pick<SessionTreeView, 'nodes' | 'cursor'>): TreeNode[] {
  return view.nodes.filter(
    (n) =>
      !(
        n.message?.role === 'assistant' &&
        n.message.content === '' &&
        n.content?.some((p) => p.type === 'tool_call') &&
        n.nodeId !== view.cursor
      ),
  )
}
