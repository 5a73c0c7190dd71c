/** The compare view's stylesheet (uses the panel's `--dst-*` variables, rendered inside `.dst-root`). */

/** Height of one virtualized compare row (px); the layout math uses the same number. */
export const COMPARE_ROW_HEIGHT = 76

export const COMPARE_CSS = `
.dst-cmp { display: flex; flex-direction: column; flex: 1; min-height: 0; min-width: 0; }
.dst-cmp-head { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 8px 12px; border-bottom: 1px solid var(--dst-border); }
.dst-cmp-title { font-size: 13px; margin-right: 4px; }
.dst-cmp-pick { display: inline-flex; align-items: center; gap: 6px; min-width: 0; max-width: 100%; }
.dst-cmp-pick select { font: inherit; color: inherit; background: var(--dst-bg); border: 1px solid var(--dst-border); border-radius: 8px; padding: 2px 6px; min-width: 0; max-width: 260px; }
.dst-cmp-close { margin-left: auto; }
.dst-cmp-side { display: inline-block; min-width: 18px; text-align: center; border-radius: 4px; font-weight: 700; font-size: 11px; line-height: 18px; color: #fff; }
.dst-cmp-side[data-side="a"] { background: #b42318; }
.dst-cmp-side[data-side="b"] { background: #067647; }
.dst-cmp-summary { display: flex; flex-wrap: wrap; gap: 4px 12px; padding: 6px 12px; font-size: 12px; color: var(--dst-fg2); background: var(--dst-bg1); border-bottom: 1px solid var(--dst-border); }
.dst-cmp-cols { display: grid; grid-template-columns: 1fr 1fr; gap: 0; font-size: 12px; color: var(--dst-fg2); border-bottom: 1px solid var(--dst-border); }
.dst-cmp-cols > div { padding: 4px 12px; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.dst-cmp-cols > div + div { border-left: 1px solid var(--dst-border); }
.dst-cmp-list { position: relative; flex: 1 1 60%; min-height: 120px; overflow: auto; outline: none; }
.dst-cmp-list:focus-visible { outline: 2px solid var(--dst-accent); outline-offset: -2px; }
.dst-cmp-row { position: absolute; left: 0; right: 0; display: grid; grid-template-columns: 1fr 1fr; border-bottom: 1px solid var(--dst-border); cursor: pointer; overflow: hidden; }
.dst-cmp-row[aria-selected="true"] { background: var(--dst-active); box-shadow: inset 3px 0 0 var(--dst-accent); }
.dst-cmp-row[data-kind="changed"] { background-image: linear-gradient(90deg, color-mix(in srgb, #f79009 10%, transparent), color-mix(in srgb, #f79009 10%, transparent)); }
.dst-cmp-row[data-divergence] { border-top: 2px solid #f79009; }
.dst-cmp-flag { position: absolute; right: 6px; top: 2px; font-size: 10px; font-weight: 700; text-transform: uppercase; color: #b54708; background: var(--dst-bg); border: 1px solid #f79009; border-radius: 999px; padding: 0 6px; z-index: 1; }
.dst-cmp-cell { min-width: 0; padding: 4px 12px; overflow: hidden; font-size: 12.5px; line-height: 17px; }
.dst-cmp-row .dst-cmp-cell { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 4; }
.dst-cmp-cell + .dst-cmp-cell { border-left: 1px solid var(--dst-border); }
.dst-cmp-cell[data-empty] { color: var(--dst-fg3); font-style: italic; background: repeating-linear-gradient(135deg, transparent 0 6px, var(--dst-bg1) 6px 12px); }
.dst-cmp-meta { font-family: var(--dst-mono); font-size: 11px; color: var(--dst-fg3); margin-right: 6px; }
.dst-cmp-line { white-space: pre-wrap; overflow-wrap: anywhere; }
.dst-cmp-row .dst-cmp-line { display: inline; }
.dst-cmp-row .dst-cmp-line + .dst-cmp-line::before { content: " · "; color: var(--dst-fg3); }
.dst-cmp del { background: color-mix(in srgb, #f04438 22%, transparent); color: inherit; text-decoration: line-through; text-decoration-color: #b42318; border-radius: 2px; }
.dst-cmp ins { background: color-mix(in srgb, #12b76a 24%, transparent); color: inherit; text-decoration: none; border-radius: 2px; }
.dst-cmp-elided { color: var(--dst-fg3); font-style: italic; }
.dst-cmp-detail { display: grid; grid-template-columns: 1fr 1fr; flex: 0 1 35%; min-height: 60px; overflow: auto; border-top: 2px solid var(--dst-border-strong); background: var(--dst-bg); }
.dst-cmp-detail .dst-cmp-cell { font-size: 13px; line-height: 19px; }
.dst-cmp-keys { padding: 4px 12px; font-size: 11px; color: var(--dst-fg3); border-top: 1px solid var(--dst-border); }
.dst-cmp-note { padding: 16px 12px; color: var(--dst-fg2); }
`
