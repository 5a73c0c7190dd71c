/**
 * The outline a person reads (the Tree tab, dsh-TUI's tree scene), pure and
 * framework-free, one module per job: the index (`tree-index.ts`), node text,
 * Pi's filters and search, the row layout (`layout.ts`) and the virtual window.
 * All iterative: a 100,000-deep linear chain lays out without recursion. The
 * layout rules (a chain does not indent, a filtered-out node hands its children
 * to its nearest visible ancestor): docs/panel.md.
 */
export * from './node-text.ts'
export * from './tree-index.ts'
export * from './filter.ts'
export * from './layout.ts'
export * from './virtual-window.ts'
export * from './outline-changes.ts'
