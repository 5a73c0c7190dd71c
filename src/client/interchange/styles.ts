/** The import dialog's and export menu's CSS (the panel's variables; one stylesheet, injected once). */

export const INTERCHANGE_CSS = `
.dsx-file { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); border: 0; }
.dsx-export { position: relative; display: inline-flex; align-items: center; gap: 8px; }
.dsx-menu { position: absolute; top: calc(100% + 4px); right: 0; z-index: 30; display: flex; flex-direction: column; min-width: 260px; max-width: min(340px, 90vw); padding: 4px; border: 1px solid var(--dst-border); border-radius: 10px; background: var(--dst-bg); box-shadow: 0 8px 24px rgba(0,0,0,0.16); }
.dsx-menu [role="menuitem"] { display: flex; flex-direction: column; align-items: flex-start; gap: 1px; border: 0; border-radius: 6px; background: transparent; padding: 6px 10px; text-align: left; cursor: pointer; }
.dsx-menu [role="menuitem"]:hover, .dsx-menu [role="menuitem"]:focus-visible { background: var(--dst-hover); }
.dsx-menu small { color: var(--dst-fg3); font-size: 11px; }
.dsx-export-note { font-size: 12px; color: var(--dst-ok); max-width: 40ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dsx-export-error { color: var(--dst-error); white-space: normal; }

.dsx-overlay { position: absolute; inset: 0 0 calc(var(--dsh-composer-height, 152px) + 16px) 0; z-index: 40; display: flex; align-items: flex-start; justify-content: center; padding: 24px 12px; background: color-mix(in srgb, var(--dst-bg) 55%, rgba(0,0,0,0.35)); }
.dst-root[data-standalone] .dsx-overlay { bottom: 0; }
.dsx-dialog { display: flex; flex-direction: column; width: min(640px, 100%); max-height: 100%; min-height: 0; border: 1px solid var(--dst-border); border-radius: 12px; background: var(--dst-bg); color: var(--dst-fg); box-shadow: 0 16px 48px rgba(0,0,0,0.22); }
.dsx-dialog:focus { outline: none; }
.dsx-dialog h3 { margin: 0; padding: 12px 16px; font-size: 15px; border-bottom: 1px solid var(--dst-border); }
.dsx-body { padding: 12px 16px; overflow: auto; min-height: 0; }
.dsx-buttons { display: flex; justify-content: flex-end; gap: 8px; padding: 10px 16px; border-top: 1px solid var(--dst-border); }
.dsx-status { margin: 0; color: var(--dst-fg2); }
.dsx-error { padding: 10px 12px; border-radius: 8px; background: var(--dst-error-bg); color: var(--dst-error); }
.dsx-error p { margin: 6px 0 0; color: var(--dst-fg); }
.dsx-detail { font-size: 12px; color: var(--dst-fg2) !important; overflow-wrap: anywhere; }
.dsx-done { margin: 0; }
.dsx-preview h4 { margin: 14px 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--dst-fg2); }
.dsx-format { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; margin: 0; }
.dsx-file-facts { color: var(--dst-fg3); font-size: 12px; overflow-wrap: anywhere; }
.dsx-lead { margin: 8px 0; color: var(--dst-fg2); }
.dsx-figures { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 8px; margin: 0; }
.dsx-figures div { padding: 8px 10px; border: 1px solid var(--dst-border); border-radius: 8px; background: var(--dst-bg1); }
.dsx-figures dt { font-size: 11px; color: var(--dst-fg2); }
.dsx-figures dd { margin: 2px 0 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
.dsx-branches { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
.dsx-branches li { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 2px 8px; padding: 6px 10px; border: 1px solid var(--dst-border); border-radius: 8px; }
.dsx-branches li[data-active] { border-color: var(--dst-accent); background: var(--dst-path-bg); }
.dsx-branch-prompt { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dsx-badge { font-size: 11px; padding: 0 6px; border-radius: 999px; background: var(--dst-accent); color: var(--dst-accent-fg); align-self: center; }
.dsx-branch-meta { grid-column: 1 / -1; font-size: 11px; color: var(--dst-fg3); }
.dsx-branch-last { grid-column: 1 / -1; font-size: 12px; color: var(--dst-fg2); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dsx-warn { margin-top: 10px; padding: 2px 10px 8px; border-radius: 8px; background: var(--dst-warn-bg); }
.dsx-warn h4 { color: var(--dst-warn); }
.dsx-warn ul, .dsx-notes ul { margin: 0; padding-left: 18px; font-size: 12px; font-family: var(--dst-mono); overflow-wrap: anywhere; }
.dsx-chips { list-style: none; display: flex; flex-wrap: wrap; gap: 6px; margin: 0; padding: 0; font-size: 12px; }
.dsx-chips li { padding: 1px 8px; border: 1px solid var(--dst-border); border-radius: 999px; background: var(--dst-bg1); }
.dsx-note { font-size: 12px; color: var(--dst-fg2); }
.dsx-notes { margin-top: 10px; font-size: 12px; color: var(--dst-fg2); }
.dsx-notes summary { cursor: pointer; }
.dsx-notes ul { font-family: inherit; }
@container (max-width: 560px) { .dsx-figures { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
`
