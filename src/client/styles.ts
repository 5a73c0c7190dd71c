/**
 * The panel's stylesheet. Colours come from the host theme's `--dsw-alias-*`
 * tokens (ui-theme swaps them for dark mode on `body[data-ds-dark-theme]`),
 * with light fallbacks for pages without the host theme. Injected once per
 * plugin activation as `<style data-plugin="dsh-session-tree">` and removed on
 * unload.
 */

/** Row height of the virtualized tree (px); the layout math uses the same number. */
export const ROW_HEIGHT = 28

export const CSS = `
.dst-root {
  --dst-fg: var(--dsw-alias-label-primary, #1f2329);
  --dst-fg2: var(--dsw-alias-label-secondary, #5b6068);
  --dst-fg3: var(--dsw-alias-label-tertiary, #8a8f98);
  --dst-bg: var(--dsw-alias-bg-base, #ffffff);
  --dst-bg1: var(--dsw-alias-bg-layer-1, #f7f8fa);
  --dst-bg2: var(--dsw-alias-bg-layer-2, #eef0f3);
  --dst-border: var(--dsw-alias-border-l2, #e3e5e8);
  --dst-border-strong: var(--dsw-alias-border-l3, #c9cdd4);
  --dst-hover: var(--dsw-alias-interactive-bg-hover, rgba(0,0,0,0.04));
  --dst-active: var(--dsw-alias-interactive-bg-active, rgba(0,0,0,0.08));
  --dst-accent: var(--dsw-static-blue-600, #2563eb);
  --dst-accent-fg: #ffffff;
  --dst-primary: var(--dsw-alias-button-primary-fill, #111827);
  --dst-primary-fg: var(--dsw-alias-label-primary-inverted, #ffffff);
  --dst-error: color-mix(in srgb, var(--dsw-alias-state-error-primary, #ef4444) 80%, var(--dst-fg));
  --dst-error-bg: color-mix(in srgb, var(--dsw-alias-state-error-primary, #ef4444) 10%, transparent);
  --dst-warn: color-mix(in srgb, var(--dsw-alias-state-warn-primary, #f59e0b) 65%, var(--dst-fg));
  --dst-warn-bg: color-mix(in srgb, var(--dsw-alias-state-warn-primary, #f59e0b) 13%, transparent);
  --dst-ok: color-mix(in srgb, var(--dsw-alias-state-success-primary, #22c55e) 65%, var(--dst-fg));
  --dst-ok-bg: color-mix(in srgb, var(--dsw-alias-state-success-primary, #22c55e) 11%, transparent);
  --dst-path-bg: color-mix(in srgb, var(--dst-accent) 6%, transparent);
  --dst-select-bg: color-mix(in srgb, var(--dst-accent) 15%, transparent);
  --dst-lane-0: #4d6bfe; --dst-lane-1: #e8590c; --dst-lane-2: #2f9e44; --dst-lane-3: #ae3ec9;
  --dst-lane-4: #0c8599; --dst-lane-5: #d6336c; --dst-lane-6: #a07800; --dst-lane-7: #5c7cfa;
  --dst-line: color-mix(in srgb, var(--dst-fg3) 70%, transparent);
  --dst-row: ${ROW_HEIGHT}px;
  --dst-mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;

  display: flex;
  flex-direction: column;
  width: 100%;
  height: 100%;
  min-height: 0;
  box-sizing: border-box;
  overflow: hidden;
  color: var(--dst-fg);
  background: var(--dst-bg);
  font-size: 13px;
  line-height: 1.4;
  container-type: inline-size;
  /* Room for the host's floating composer (ConversationRoot publishes its height). */
  padding-bottom: calc(var(--dsh-composer-height, 152px) + 16px);
}
body[data-ds-dark-theme] .dst-root {
  --dst-accent: var(--dsw-static-blue-400, #60a5fa);
  --dst-accent-fg: #0b1020;
  --dst-lane-0: #8ea2ff; --dst-lane-1: #ff9f5a; --dst-lane-2: #69db7c; --dst-lane-3: #e599f7;
  --dst-lane-4: #66d9e8; --dst-lane-5: #faa2c1; --dst-lane-6: #ffd43b; --dst-lane-7: #a5b4fc;
}
.dst-root[data-standalone] { padding-bottom: 0; }
.dst-root *, .dst-root *::before, .dst-root *::after { box-sizing: border-box; }
.dst-root button { font: inherit; color: inherit; }
.dst-root :focus-visible { outline: 2px solid var(--dst-accent); outline-offset: 1px; }

.dst-toolbar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; padding: 8px 12px; border-bottom: 1px solid var(--dst-border); background: var(--dst-bg); }
.dst-seg { display: inline-flex; border: 1px solid var(--dst-border); border-radius: 8px; overflow: hidden; }
.dst-seg button { border: 0; background: transparent; padding: 3px 10px; cursor: pointer; color: var(--dst-fg2); white-space: nowrap; }
.dst-seg button + button { border-left: 1px solid var(--dst-border); }
.dst-seg button[aria-checked="true"] { background: var(--dst-active); color: var(--dst-fg); font-weight: 600; }
.dst-search { display: inline-flex; align-items: center; flex: 1 1 180px; min-width: 140px; max-width: 360px; border: 1px solid var(--dst-border); border-radius: 8px; padding: 0 6px; background: var(--dst-bg1); }
.dst-search input::-webkit-search-cancel-button { -webkit-appearance: none; appearance: none; display: none; }
.dst-search input { flex: 1; min-width: 0; border: 0; outline: 0; background: transparent; color: var(--dst-fg); padding: 4px 2px; font: inherit; }
.dst-search:focus-within { border-color: var(--dst-accent); }
.dst-search button { border: 0; background: transparent; cursor: pointer; color: var(--dst-fg3); padding: 0 2px; }
.dst-count { color: var(--dst-fg3); font-size: 12px; white-space: nowrap; }
.dst-spacer { flex: 1; }
.dst-session-actions { display: inline-flex; flex-wrap: wrap; gap: 6px; }
.dst-btn { display: inline-flex; align-items: center; gap: 4px; border: 1px solid var(--dst-border); background: var(--dst-bg); border-radius: 8px; padding: 3px 10px; cursor: pointer; white-space: nowrap; }
.dst-btn:hover:not(:disabled) { background: var(--dst-hover); }
.dst-btn:disabled { opacity: 0.45; cursor: default; }
.dst-btn.dst-primary { background: var(--dst-primary); border-color: var(--dst-primary); color: var(--dst-primary-fg); }
.dst-btn.dst-primary:hover:not(:disabled) { background: color-mix(in srgb, var(--dst-primary) 85%, var(--dst-bg)); }

.dst-status { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 12px; padding: 6px 12px; border-bottom: 1px solid var(--dst-border); color: var(--dst-fg2); font-size: 12px; background: var(--dst-bg1); }
.dst-readonly { flex-basis: 100%; color: var(--dst-warn, #9a6700); font-weight: 600; }
.dst-mode { display: inline-flex; align-items: center; gap: 6px; }
.dst-pill { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 11px; font-weight: 600; line-height: 18px; border: 1px solid var(--dst-border); background: var(--dst-bg); color: var(--dst-fg2); white-space: nowrap; }
.dst-pill[data-mode="stock"], .dst-pill[data-mode="native"] { color: var(--dst-ok); border-color: color-mix(in srgb, var(--dst-ok) 40%, transparent); background: var(--dst-ok-bg); }
.dst-pill[data-mode="projection"] { color: var(--dst-warn); border-color: color-mix(in srgb, var(--dst-warn) 40%, transparent); background: var(--dst-warn-bg); }
.dst-note { color: var(--dst-fg2); }
.dst-banner { margin: 0; padding: 6px 12px; font-size: 12px; border-bottom: 1px solid var(--dst-border); display: flex; gap: 8px; align-items: center; box-shadow: inset 3px 0 0 currentColor; }
.dst-banner[data-tone="warn"] { background: var(--dst-warn-bg); color: var(--dst-warn); }
.dst-banner[data-tone="error"] { background: var(--dst-error-bg); color: var(--dst-error); }
.dst-banner[data-tone="ok"] { background: var(--dst-ok-bg); color: var(--dst-ok); }
.dst-banner[data-tone="info"] { background: var(--dst-bg1); color: var(--dst-fg2); }
.dst-banner .dst-btn { margin-left: auto; font-size: 12px; padding: 1px 8px; }
.dst-code { font-family: var(--dst-mono); font-weight: 600; }

.dst-body { display: flex; flex: 1; min-height: 0; }
.dst-tree { position: relative; flex: 1 1 60%; min-width: 0; overflow-x: hidden; overflow-y: auto; outline: none; border-right: 1px solid var(--dst-border); }
.dst-tree:focus-visible { outline: 2px solid var(--dst-accent); outline-offset: -2px; }
.dst-tree-inner { position: relative; width: 100%; }
.dst-row { position: absolute; left: 0; right: 0; height: var(--dst-row); display: flex; align-items: center; padding: 0 10px 0 8px; cursor: pointer; white-space: nowrap; user-select: none; overflow: hidden; box-sizing: border-box; }
.dst-row:hover { background: var(--dst-hover); }
.dst-row[data-path="true"] { background: var(--dst-path-bg); }
.dst-row[aria-selected="true"] { background: var(--dst-select-bg); box-shadow: inset 3px 0 0 var(--dst-accent); }
.dst-tree:focus .dst-row[aria-selected="true"] { box-shadow: inset 3px 0 0 var(--dst-accent), inset 0 0 0 1px var(--dst-accent); }
.dst-gutter { display: inline-flex; flex: none; height: 100%; }
.dst-g { position: relative; width: 16px; height: 100%; flex: none; }
.dst-g[data-g="pipe"]::before, .dst-g[data-g="tee"]::before { content: ""; position: absolute; left: 7px; top: 0; bottom: 0; border-left: 1px solid var(--dst-line); }
.dst-g[data-g="elbow"]::before { content: ""; position: absolute; left: 7px; top: 0; height: 50%; border-left: 1px solid var(--dst-line); }
.dst-g[data-g="tee"]::after, .dst-g[data-g="elbow"]::after { content: ""; position: absolute; left: 7px; width: 9px; top: 50%; border-top: 1px solid var(--dst-line); }
.dst-g[data-g="more"] { width: 18px; color: var(--dst-fg3); font-size: 11px; display: inline-flex; align-items: center; }
.dst-dot { position: relative; width: 16px; height: 100%; flex: none; }
.dst-dot[data-up="true"]::before { content: ""; position: absolute; left: 7px; top: 0; height: 50%; border-left: 1px solid var(--dst-line); }
.dst-dot[data-down="true"]::after { content: ""; position: absolute; left: 7px; top: 50%; bottom: 0; border-left: 1px solid var(--dst-line); }
.dst-dot[data-elided="true"]::before { border-left-style: dashed; }
.dst-dot i { position: absolute; z-index: 1; left: 3px; top: calc(50% - 4.5px); width: 9px; height: 9px; border-radius: 50%; border: 2px solid var(--dst-lane, var(--dst-fg3)); background: var(--dst-bg); }
.dst-row[data-path="true"] .dst-dot i { background: var(--dst-lane, var(--dst-fg3)); }
.dst-row[data-cursor="true"] .dst-dot i { left: 1px; top: calc(50% - 6.5px); width: 13px; height: 13px; border-width: 3px; background: var(--dst-bg); box-shadow: 0 0 0 2px var(--dst-lane, var(--dst-accent)); }
.dst-kind { flex: none; margin: 0 6px 0 4px; font-size: 10px; font-weight: 700; text-transform: uppercase; letter-spacing: 0.03em; padding: 0 5px; border-radius: 4px; line-height: 16px; color: var(--dst-fg2); background: var(--dst-bg2); }
.dst-kind[data-kind="user"] { color: var(--dst-accent); background: color-mix(in srgb, var(--dst-accent) 12%, transparent); }
.dst-kind[data-kind="tool"] { color: var(--dst-lane-4); background: color-mix(in srgb, var(--dst-lane-4) 12%, transparent); }
.dst-kind[data-kind="tool"][data-error="true"] { color: var(--dst-error); background: var(--dst-error-bg); }
.dst-kind[data-kind="summary"], .dst-kind[data-kind="compaction"] { color: var(--dst-lane-6); background: color-mix(in srgb, var(--dst-lane-6) 12%, transparent); }
.dst-text { flex: 1 1 0; min-width: 48px; overflow: hidden; text-overflow: ellipsis; color: var(--dst-fg); }
.dst-row[data-path="false"] .dst-text { color: var(--dst-fg2); }
.dst-text mark { background: color-mix(in srgb, #ffd43b 60%, transparent); color: inherit; border-radius: 2px; }
.dst-tool-name { font-family: var(--dst-mono); font-size: 12px; }
.dst-arrow { color: var(--dst-fg3); margin: 0 4px; }
/* Badges shrink (ellipsis) before the text disappears; "you are here" never does. */
.dst-badges { display: inline-flex; gap: 4px; margin-left: 8px; flex: 0 1 auto; min-width: 0; overflow: hidden; }
.dst-badges > .dst-badge { flex: 0 1 auto; min-width: 24px; white-space: nowrap; }
.dst-badges > .dst-badge[data-type="cursor"], .dst-badges > .dst-badge[data-type="forks"], .dst-badges > .dst-badge[data-type="folded"] { flex: none; }
.dst-fold { flex: none; width: 14px; margin-left: -4px; text-align: center; color: var(--dst-fg3); font-size: 11px; cursor: pointer; }
.dst-fold:hover { color: var(--dst-fg); }
.dst-badge[data-type="folded"] { color: var(--dst-fg2); border-style: dashed; }
.dst-badge { font-size: 11px; line-height: 16px; padding: 0 6px; border-radius: 999px; border: 1px solid var(--dst-border); color: var(--dst-fg2); background: var(--dst-bg); max-width: 160px; overflow: hidden; text-overflow: ellipsis; }
.dst-badge[data-type="head"] { border-color: var(--dst-lane, var(--dst-border-strong)); color: var(--dst-lane, var(--dst-fg2)); }
.dst-badge[data-type="head"][data-active="true"] { background: var(--dst-lane, var(--dst-accent)); color: var(--dst-bg); font-weight: 600; }
.dst-badge[data-type="label"] { border-color: var(--dst-lane-6); color: var(--dst-lane-6); display: inline-flex; align-items: center; gap: 3px; }
.dst-badge[data-type="cursor"] { background: var(--dst-accent); border-color: var(--dst-accent); color: var(--dst-accent-fg); font-weight: 600; }
.dst-badge[data-type="forks"] { color: var(--dst-fg3); display: inline-flex; align-items: center; gap: 2px; }
.dst-badge svg, .dst-search svg { width: 12px; height: 12px; flex: none; }
.dst-search svg { color: var(--dst-fg3); margin: 0 2px; }

.dst-preview { flex: 1 1 40%; min-width: 0; max-width: 560px; overflow: auto; box-sizing: border-box; padding: 12px 14px; display: flex; flex-direction: column; gap: 10px; background: var(--dst-bg); }
/* The preview scrolls as a whole: its parts keep their height instead of being squeezed to a line. */
.dst-preview > * { flex-shrink: 0; }
.dst-preview h3 { margin: 0; font-size: 13px; font-weight: 600; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.dst-meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; font-size: 12px; color: var(--dst-fg2); }
.dst-meta dt { color: var(--dst-fg3); }
.dst-meta dd { margin: 0; overflow-wrap: anywhere; }
.dst-content { margin: 0; font-family: inherit; padding: 8px 10px; border: 1px solid var(--dst-border); border-radius: 8px; background: var(--dst-bg1); white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12.5px; max-height: 320px; overflow: auto; }
.dst-content[data-mono="true"] { font-family: var(--dst-mono); font-size: 12px; }
.dst-content[data-error="true"] { border-color: color-mix(in srgb, var(--dst-error) 40%, transparent); }
.dst-sub { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em; color: var(--dst-fg3); margin: 2px 0 -4px; }
.dst-actions { display: flex; flex-wrap: wrap; gap: 6px; }
.dst-form { display: flex; flex-direction: column; gap: 6px; padding: 10px; border: 1px solid var(--dst-border); border-radius: 8px; background: var(--dst-bg1); }
.dst-form label { font-size: 12px; color: var(--dst-fg2); }
.dst-form input { border: 1px solid var(--dst-border-strong); border-radius: 6px; padding: 5px 8px; font: inherit; color: var(--dst-fg); background: var(--dst-bg); }
.dst-form input:focus { outline: 2px solid var(--dst-accent); outline-offset: 0; }
.dst-form .dst-problem { color: var(--dst-error); font-size: 12px; }
.dst-form .dst-row-actions { display: flex; gap: 6px; }
.dst-help { color: var(--dst-fg3); font-size: 11.5px; display: flex; flex-wrap: wrap; gap: 2px 10px; margin-top: auto; padding-top: 6px; border-top: 1px dashed var(--dst-border); }
.dst-help kbd { font-family: var(--dst-mono); font-size: 11px; padding: 0 4px; border: 1px solid var(--dst-border); border-radius: 4px; background: var(--dst-bg1); color: var(--dst-fg2); }
.dst-empty, .dst-loading, .dst-error { padding: 24px 16px; color: var(--dst-fg2); }
.dst-error h3 { margin: 0 0 8px; color: var(--dst-error); font-size: 14px; }
.dst-error p { margin: 4px 0; }
.dst-spinner { display: inline-block; width: 12px; height: 12px; border: 2px solid var(--dst-border-strong); border-top-color: var(--dst-accent); border-radius: 50%; animation: dst-spin 0.8s linear infinite; vertical-align: -2px; margin-right: 6px; }
.dst-progress { height: 2px; background: linear-gradient(90deg, transparent, var(--dst-accent), transparent); background-size: 200% 100%; animation: dst-slide 1s linear infinite; }
@keyframes dst-spin { to { transform: rotate(360deg); } }
@keyframes dst-slide { from { background-position: 100% 0; } to { background-position: -100% 0; } }
@media (prefers-reduced-motion: reduce) { .dst-spinner, .dst-progress { animation: none; } }
@container (max-width: 720px) {
  .dst-body { flex-direction: column; }
  .dst-tree { border-right: 0; border-bottom: 1px solid var(--dst-border); flex: 1 1 55%; }
  .dst-preview { max-width: none; min-width: 0; flex: 1 1 45%; }
}

.dst-open { display: inline-flex; align-items: center; gap: 4px; border: 1px solid transparent; background: transparent; border-radius: 8px; padding: 2px 8px; cursor: pointer; color: var(--dsw-alias-label-secondary, #5b6068); font: inherit; font-size: 13px; }
.dst-open:hover { background: var(--dsw-alias-interactive-bg-hover, rgba(0,0,0,0.04)); color: var(--dsw-alias-label-primary, #1f2329); }
.dst-open:focus-visible { outline: 2px solid var(--dsw-alias-brand-primary, #4d6bfe); }
.dst-open svg { width: 14px; height: 14px; }
`
