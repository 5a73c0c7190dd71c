/**
 * DSH web's context meter as a person reads it: the figures of its panel, and a displayed
 * `~1.2K`-style figure as the range of counts it stands for.
 */
import type { Page } from 'playwright-core'

/** A displayed `~1.2K`-style figure as a number range [low, high] (the meter rounds to one decimal of K). */
export function displayedRange(shown: string): [number, number] {
  const match = /^~?([\d.]+)([KM]?)$/.exec(shown.trim())
  if (!match) throw new Error(`not a token figure: ${JSON.stringify(shown)}`)
  const value = Number(match[1])
  const scale = match[2] === 'K' ? 1_000 : match[2] === 'M' ? 1_000_000 : 1
  if (scale === 1) return [value, value]
  const decimals = match[1]!.includes('.') ? match[1]!.split('.')[1]!.length : 0
  const half = scale / 10 ** decimals / 2
  return [value * scale - half, value * scale + half]
}

/** What the meter's panel shows: the occupancy figure (used / window) and its three rows. */
export interface MeterFigures {
  readonly used: string
  readonly window: string
  readonly messages: string
  readonly system: string
  readonly tools: string
}

/** Open the meter's panel, read it, close it. */
export async function readMeter(page: Page): Promise<MeterFigures> {
  const button = page.locator('button[aria-label$="of context used"]')
  await button.waitFor({ timeout: 15_000 })
  await button.click()
  const panel = page.getByRole('dialog', { name: 'of context used' })
  await panel.waitFor()
  const figures = (await panel.locator('span').allInnerTexts()).find((t) => t.includes('/'))!
  const rows = Object.fromEntries(
    await panel
      .locator('dl > div')
      .evaluateAll((els) =>
        els.map((el) => [el.querySelector('dt')!.textContent!.trim(), el.querySelector('dd')!.textContent!.trim()]),
      ),
  )
  await page.keyboard.press('Escape')
  return {
    used: figures.split('/')[0]!.trim(),
    window: figures.split('/')[1]!.trim(),
    messages: rows.Messages as string,
    system: rows['System prompt'] as string,
    tools: rows.Tools as string,
  }
}
