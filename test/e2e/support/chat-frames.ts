/**
 * Every state of DSH's Chat that the page could paint, recorded in the page:
 * the set of visible rows (and the rows in the DOM) of the Chat column, taken
 * on every animation frame and after every DOM or stylesheet mutation (a
 * MutationObserver runs before the next paint, so a row that is shown for
 * less than a frame is still caught). Consecutive identical states are kept
 * once. Used to prove that no painted state ever shows a row that the Chat's
 * final state hides.
 */
import type { Page } from 'playwright-core'

/** One recorded state of the Chat column. */
export interface ChatFrame {
  /** `performance.now()` in the page. */
  readonly t: number
  /** What took the sample: an animation frame or a mutation. */
  readonly why: 'frame' | 'mutation'
  /** Keys (`data-chat-flow-key`) of the rows on screen, in order. */
  readonly visible: readonly string[]
  /** Keys of every row in the column's DOM, shown or not. */
  readonly present: readonly string[]
  /**
   * The session the column showed (the plugin's `data-session-tree-chat`, set in the same commit
   * as the rows): row keys are numbered per session, and a reload may first show another one.
   */
  readonly session: string | null
}

declare global {
  interface Window {
    __chatFrames?: { frames: ChatFrame[]; stop: () => void }
  }
}

/**
 * The recorder, as page code (also an init script, which runs before the
 * document has an element: it observes the document itself). It samples on
 * every animation frame and after every DOM or stylesheet mutation.
 */
function recorder(): void {
  window.__chatFrames?.stop()
  const frames: ChatFrame[] = []
  let last = ''
  let running = true
  const sample = (why: 'frame' | 'mutation') => {
    const column = document.querySelector('[data-chat-flow]')
    if (!column) return
    const visible: string[] = []
    const present: string[] = []
    for (const el of column.children) {
      if (!(el instanceof HTMLElement) || el.dataset.chatFlowKey === undefined) continue
      present.push(el.dataset.chatFlowKey)
      if (el.checkVisibility()) visible.push(el.dataset.chatFlowKey)
    }
    const session = column.getAttribute('data-session-tree-chat')
    const signature = `${session}\u0000${visible.join('\n')}\u0000${present.join('\n')}`
    if (signature === last) return
    last = signature
    frames.push({ t: performance.now(), why, visible, present, session })
  }
  const tick = () => {
    if (!running) return
    sample('frame')
    requestAnimationFrame(tick)
  }
  const observer = new MutationObserver(() => sample('mutation'))
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true })
  requestAnimationFrame(tick)
  window.__chatFrames = {
    frames,
    stop: () => {
      running = false
      observer.disconnect()
    },
  }
}

/** Start recording now (any earlier recording stops). */
export async function startFrames(page: Page): Promise<void> {
  await page.evaluate(recorder)
}

/** Record from the very first paint of every page load from now on (a reload, say). */
export async function recordFromLoad(page: Page): Promise<void> {
  await page.addInitScript(recorder)
}

/** Stop recording and return the states recorded. */
export async function stopFrames(page: Page): Promise<ChatFrame[]> {
  return page.evaluate(() => {
    const recording = window.__chatFrames
    if (!recording) return []
    recording.stop()
    window.__chatFrames = undefined
    return recording.frames
  })
}

/** One recorded state that showed a row the final state does not show. */
export interface FrameViolation {
  readonly index: number
  readonly t: number
  /** The rows it showed that the final state hides or no longer has. */
  readonly rows: readonly string[]
}

/**
 * The recorded states of `session`'s Chat (a state not yet tagged with a
 * session counts too) from the first one that holds a row `before` did not
 * have (the change reached the Chat) on, that show a row the final state
 * (`final`, the visible keys at the end) does not show.
 */
export function violations(
  frames: readonly ChatFrame[],
  before: ReadonlySet<string>,
  final: ReadonlySet<string>,
  session: string,
  /** When the change lands later than its first new row (a move inside the model's step): the row that marks it. */
  landsWith?: (key: string) => boolean,
): { landed: number; bad: FrameViolation[] } {
  const ours = (frame: ChatFrame) => frame.session === null || frame.session === session
  const arrived = landsWith ?? ((key: string) => !before.has(key))
  const landed = frames.findIndex((frame) => ours(frame) && frame.present.some(arrived))
  const bad: FrameViolation[] = []
  if (landed === -1) return { landed, bad }
  for (let i = landed; i < frames.length; i++) {
    if (!ours(frames[i]!)) continue
    const rows = frames[i]!.visible.filter((key) => !final.has(key))
    if (rows.length > 0) bad.push({ index: i, t: frames[i]!.t, rows })
  }
  return { landed, bad }
}
