/**
 * The Chat decorations' static stylesheet: our own rows start hidden (a
 * session's rules show the ones that stand for something), and the switch
 * row and ‹ k / n › control are drawn with the host theme's tokens, so they
 * follow light and dark. Injected once per activation, removed on unload.
 */
import { FORK_KIND, SWITCH_KIND } from './definitions.ts'

export const CHAT_CSS = `
[data-chat-flow-kind="${SWITCH_KIND}"], [data-chat-flow-kind="${FORK_KIND}"] { display: none; }
.dstc-switch { display: flex; align-items: center; gap: 8px; min-height: 24px; color: var(--dsw-alias-label-tertiary, #8a8f98); font-size: 12px; line-height: 18px; }
.dstc-switch::before, .dstc-switch::after { content: ""; flex: 1 1 24px; min-width: 24px; border-top: 1px dashed var(--dsw-alias-border-l3, #c9cdd4); }
.dstc-switch > span { display: inline-flex; flex-wrap: wrap; align-items: center; justify-content: center; gap: 2px 6px; max-width: 80%; text-align: center; }
.dstc-switch svg { width: 14px; height: 14px; flex: none; }
.dstc-switch strong { color: var(--dsw-alias-label-secondary, #5b6068); font-weight: 600; overflow-wrap: anywhere; }
.dstc-switch .dstc-sep { color: var(--dsw-alias-label-caption, #b0b4ba); }
.dstc-switch button { border: 0; background: transparent; padding: 0 4px; border-radius: 4px; font: inherit; font-weight: 500; cursor: pointer; color: var(--dsw-alias-state-business-primary, #4d6bfe); }
.dstc-switch button:hover { background: var(--dsw-alias-interactive-bg-hover, rgba(0,0,0,0.04)); }
.dstc-switch button:focus-visible, .dstc-fork button:focus-visible { outline: 2px solid var(--dsw-alias-state-business-primary, #4d6bfe); outline-offset: 1px; }
.dstc-switch[data-lead="false"] { opacity: 0.6; }
.dstc-fork { display: flex; align-items: center; gap: 2px; margin-bottom: -12px; color: var(--dsw-alias-label-tertiary, #8a8f98); font-size: 12px; line-height: 20px; }
.dstc-fork[data-row="user"] { justify-content: flex-end; }
.dstc-fork button { display: inline-grid; place-items: center; width: 22px; height: 22px; padding: 0; border: 0; border-radius: 6px; background: transparent; font: inherit; font-size: 15px; cursor: pointer; color: var(--dsw-alias-label-secondary, #5b6068); }
.dstc-fork button:hover:not(:disabled) { background: var(--dsw-alias-interactive-bg-hover, rgba(0,0,0,0.04)); color: var(--dsw-alias-label-primary, #1f2329); }
.dstc-fork button:disabled { opacity: 0.35; cursor: default; }
.dstc-fork .dstc-count { min-width: 3.2em; text-align: center; font-variant-numeric: tabular-nums; }
.dstc-fork .dstc-error { margin: 0 6px; color: var(--dsw-alias-state-error-primary, #ef4444); }
`
