/**
 * The workspace views' stylesheet: the panel's `--dst-*` variables only (so
 * the host theme's light and dark both apply), injected beside the panel's.
 */

export const WORKSPACE_CSS = `
.dst-badges > .dst-badge[data-type="files"] { flex: none; }
.dst-badge[data-type="files"] { display: inline-flex; align-items: center; gap: 3px; color: var(--dst-fg2); border-color: color-mix(in srgb, var(--dst-accent) 35%, var(--dst-border)); background: color-mix(in srgb, var(--dst-accent) 8%, var(--dst-bg)); font-variant-numeric: tabular-nums; }
.dst-badge[data-type="files"] svg { width: 11px; height: 11px; }
.dst-ws { display: flex; flex-direction: column; gap: 6px; min-width: 0; }
.dst-ws-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 2px; font-size: 12px; min-width: 0; }
.dst-ws-list li { display: flex; align-items: baseline; gap: 6px; min-width: 0; }
.dst-ws-path { font-family: var(--dst-mono); font-size: 11.5px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; flex: 0 1 auto; }
.dst-ws-note { color: var(--dst-fg3); font-size: 11.5px; overflow-wrap: anywhere; }
.dst-ws-tag { flex: none; font-size: 10.5px; font-weight: 600; line-height: 16px; padding: 0 6px; border-radius: 999px; border: 1px solid var(--dst-border); color: var(--dst-fg2); background: var(--dst-bg1); }
.dst-ws-tag[data-kind="added"], .dst-ws-tag[data-kind="create"] { color: var(--dst-ok); background: var(--dst-ok-bg); border-color: color-mix(in srgb, var(--dst-ok) 35%, transparent); }
.dst-ws-tag[data-kind="deleted"], .dst-ws-tag[data-kind="delete"] { color: var(--dst-error); background: var(--dst-error-bg); border-color: color-mix(in srgb, var(--dst-error) 35%, transparent); }
.dst-ws-tag[data-kind="changed"], .dst-ws-tag[data-kind="update"] { color: var(--dst-accent); background: color-mix(in srgb, var(--dst-accent) 10%, transparent); border-color: color-mix(in srgb, var(--dst-accent) 35%, transparent); }
.dst-ws-tag[data-kind="skipped"], .dst-ws-tag[data-kind="unknown"], .dst-ws-tag[data-kind="conflict"] { color: var(--dst-warn); background: var(--dst-warn-bg); border-color: color-mix(in srgb, var(--dst-warn) 35%, transparent); }
.dst-ws-stat { font-family: var(--dst-mono); font-size: 11px; flex: none; }
.dst-ws-stat ins { color: var(--dst-ok); text-decoration: none; }
.dst-ws-stat del { color: var(--dst-error); text-decoration: none; }
.dst-ws-choice { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; font-size: 12px; color: var(--dst-fg2); }
.dst-ws-choice .dst-seg button { padding: 2px 10px; }
.dst-ws-at { display: flex; flex-direction: column; gap: 6px; padding: 8px; border: 1px solid var(--dst-border); border-radius: 8px; background: var(--dst-bg1); min-width: 0; }
.dst-ws-at input { border: 1px solid var(--dst-border-strong); border-radius: 6px; padding: 3px 8px; font: inherit; font-size: 12px; color: var(--dst-fg); background: var(--dst-bg); min-width: 0; }
.dst-ws-files { list-style: none; margin: 0; padding: 0; max-height: 240px; overflow: auto; border: 1px solid var(--dst-border); border-radius: 6px; background: var(--dst-bg); }
.dst-ws-files button { display: flex; gap: 6px; align-items: baseline; width: 100%; min-width: 0; text-align: left; border: 0; background: transparent; padding: 3px 8px; cursor: pointer; }
.dst-ws-files button:hover { background: var(--dst-hover); }
.dst-ws-files button[aria-pressed="true"] { background: var(--dst-select-bg); }
.dst-ws-files .dst-ws-path { flex: 1 1 auto; }
.dst-ws-code { margin: 0; font-family: var(--dst-mono); font-size: 11.5px; padding: 6px 8px; border: 1px solid var(--dst-border); border-radius: 6px; background: var(--dst-bg); white-space: pre; overflow: auto; max-height: 320px; min-width: 0; }
.dst-ws-diff .dst-ws-add { color: var(--dst-ok); }
.dst-ws-diff .dst-ws-del { color: var(--dst-error); }
.dst-ws-diff .dst-ws-hunk { color: var(--dst-fg3); }
.dst-restore { flex: 1 1 40%; min-width: 0; max-width: 560px; overflow: auto; padding: 12px 14px; display: flex; flex-direction: column; gap: 10px; background: var(--dst-bg); outline: none; }
.dst-restore > * { flex-shrink: 0; }
.dst-restore p { margin: 0; }
.dst-restore h3 { margin: 0; font-size: 13px; font-weight: 600; overflow-wrap: anywhere; }
.dst-restore-rows { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
.dst-restore-rows > li { display: flex; flex-direction: column; gap: 4px; padding: 4px 6px; border-radius: 6px; min-width: 0; }
.dst-restore-rows > li[data-conflict] { border: 1px solid color-mix(in srgb, var(--dst-warn) 45%, transparent); background: var(--dst-warn-bg); }
.dst-cmp-files { padding: 10px 14px 14px; border-top: 1px solid var(--dst-border); }
.dst-cmp-files .dst-ws-list { gap: 6px; }
.dst-cmp-files .dst-ws-list li { flex-direction: column; align-items: stretch; gap: 4px; }
.dst-restore-line { display: flex; align-items: center; gap: 6px; min-width: 0; font-size: 12px; }
.dst-restore-line .dst-ws-path { flex: 1 1 auto; min-width: 3em; }
.dst-restore-line .dst-ws-stat[data-binary] { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dst-restore-line .dst-btn { padding: 1px 8px; font-size: 11.5px; }
.dst-restore-decide { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; font-size: 12px; padding-left: 2px; }
.dst-restore-decide > .dst-ws-note { flex: 1 0 100%; }
.dst-restore-decide label { display: inline-flex; align-items: center; gap: 4px; cursor: pointer; }
.dst-restore-foot { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
.dst-restore-foot .dst-ws-note { flex: 1 1 160px; }
`
