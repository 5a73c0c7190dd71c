/**
 * The outline a person reads (the Tree tab in the browser, the tree scene in
 * dsh-TUI), pure and framework-free, one module per job in
 * `outline/`: an index over one `SessionTreeOutline` (`tree-index.ts`), what a
 * node reads as (`node-text.ts`), the filters and search of Pi's `/tree`
 * (`filter.ts`), the row layout (`layout.ts`: lanes, fork points, the
 * cursor's path) and the virtual window (`virtual-window.ts`). Everything is
 * iterative: a 100,000-deep linear chain lays out without recursion, and a
 * 10,000-node tree lays out in a few milliseconds.
 *
 * Layout rules (like `tree(1)`, but a linear chain does not indent): a node's
 * only child is drawn directly below it at the same depth; the children of a
 * fork point are drawn one level deeper, each starting with `├─` (`└─` for
 * the last), in creation order. A filtered-out node hands its children to its
 * nearest visible ancestor, so the shape of what remains is kept.
 */
export * from './node-text.ts'
export * from './tree-index.ts'
export * from './filter.ts'
export * from './layout.ts'
export * from './virtual-window.ts'
export * from './outline-changes.ts'
