/**
 * The imported session's title as a `session/title` event, so `dsh web`'s
 * sidebar names it from the first listing. A name the source keeps is a
 * `user` title (never replaced automatically; it cites no message); otherwise
 * the first prompt's first words, a `fallback` title citing that prompt.
 */
import type { LogEvent } from '../../harness/log-event.ts'

/** What a `session/title` event holds (`SessionTitleEventData` of `@deepseek-ai/dsh-session-title`). */
export interface SessionTitleData {
  readonly title: string
  readonly messageSeqs: number[]
  readonly source: { readonly kind: 'user' } | { readonly kind: 'fallback' }
}

/** DSH's own limits (`dsh-base`'s `session-title` configuration): any title, and the first-prompt fallback. */
export const TITLE_LIMITS = { maxTitleBytes: 80, fallbackMaxWords: 5, fallbackMaxBytes: 40 } as const

// Controls the title service strips too: C0/C1 (newlines and tabs become spaces), and invisible or direction marks.
const CONTROLS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g

/** The title event for an imported log, or undefined when there is neither a name nor a prompt with text. */
export function importedTitle(name: string | undefined, events: readonly LogEvent[]): SessionTitleData | undefined {
  const named = name === undefined ? '' : clip(oneLine(name), TITLE_LIMITS.maxTitleBytes)
  if (named !== '') return { title: named, messageSeqs: [], source: { kind: 'user' } }
  for (const event of events) {
    const text = promptText(event)
    if (text === undefined) continue
    const words = oneLine(text).split(' ').filter(Boolean).slice(0, TITLE_LIMITS.fallbackMaxWords).join(' ')
    const title = clip(words, TITLE_LIMITS.fallbackMaxBytes)
    if (title !== '') return { title, messageSeqs: [event.seq], source: { kind: 'fallback' } }
  }
  return undefined
}

/** The text of a prompt a person typed (what the title service reads), or undefined. */
function promptText(event: LogEvent): string | undefined {
  if (event.type !== 'user/message') return undefined
  const data = event.data as { source?: { kind?: unknown }; content?: unknown }
  if (data.source?.kind !== 'user' || !Array.isArray(data.content)) return undefined
  const text = data.content
    .flatMap((block: { type?: unknown; text?: unknown }) =>
      block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
    )
    .join('\n')
  return oneLine(text) === '' ? undefined : text
}

function oneLine(text: string): string {
  return text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim()
}

/** At most `bytes` UTF-8 bytes, never splitting a character. */
function clip(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text
  let used = 0
  let out = ''
  for (const char of text) {
    used += Buffer.byteLength(char)
    if (used > bytes) break
    out += char
  }
  return out.trimEnd()
}
