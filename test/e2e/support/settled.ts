/**
 * The host's sidebar slides in and out at its breakpoints: a layout measure or
 * a screenshot taken right after a viewport change can catch it mid-way.
 * Resolves once no animation or CSS transition on the page is running.
 */
import type { Page } from 'playwright-core'

export async function animationsSettled(page: Page, timeoutMs = 30_000): Promise<void> {
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'), undefined, {
    timeout: timeoutMs,
  })
}
