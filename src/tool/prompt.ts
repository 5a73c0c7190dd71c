/**
 * What the model is told about the conversation tree: one short system-prompt
 * section (registered as `tool:session-tree`, order 150, in the tool-guidance
 * band) and the text of the one `tree` tool. Every byte here goes into every
 * request (budget: 3,000 bytes with the schema, `test/unit/tool/tool-wire.test.ts`),
 * so each sentence earns its place: what an action does, when a move applies,
 * and what the model sees next. docs/tools.md explains the rest to people.
 */

/** The actions of the `tree` tool, in the order the schema lists them. */
export const ACTIONS = [
  'list',
  'find',
  'compare',
  'jump',
  'fork',
  'back',
  'forward',
  'carry',
  'label',
  'summarize',
] as const

export type TreeAction = (typeof ACTIONS)[number]

/** The system-prompt section: when to move at all (what a move does is in the tool's description). */
export const SYSTEM_PROMPT = `## Conversation tree

This conversation is a tree that the \`tree\` tool reads and moves in. Move only when the user asks to go back, retry from an earlier point, or branch off.`

/** The tool's description: the actions, and when a move reaches the next request. */
export const DESCRIPTION =
  'Your own conversation as a tree; nothing is ever deleted.\n' +
  'list: outline with node ids (e12), labels, branch heads, "← cursor" where your history ends. find: nodes by text or label. ' +
  'compare: node vs other (ids, labels, branches): where they part, word diff.\n' +
  'jump: continue from node. fork: the same, on a new branch. back/forward: undo/redo a move (back also cancels a waiting one). ' +
  'Called alone in its message a move applies at once: your next request is the path from the start to node, ' +
  'then this call and its result. Called with other tools it waits for the turn to end, and the next user message lands there. ' +
  'What came after the node stays in the tree, unseen.\n' +
  "carry: bring here the file changes node's branch made since it parted (3-way merge; conflicts stay as they are; back with files undoes it).\n" +
  'label: name a node (text "" removes it). summarize: record a summary of branch. These leave your history as it is.'

/** The per-argument descriptions (the actions that take each are checked at run time). */
export const ARGUMENT_TEXT = {
  node: 'Node id or label. list: only the part under it. compare, carry: may be a branch.',
  other: 'compare: the other side.',
  branch: 'fork: new branch name. summarize: branch to summarize.',
  text: 'find: query. label: the label. summarize: your summary (omit: a digest). jump/fork/carry: what the summary should focus on.',
  files:
    'Moves: "both" also restores the workspace files you changed to that point, "files" only them (default "conversation"). Read a file again before editing it. compare: "files"/"both" lists files that differ.',
  summary:
    'jump/fork: summarize what is left (carry: node\'s branch). "panel": kept in the tree; "carry": also the last message of your new history.',
  depth: 'list: fork levels shown in full (0-8, default 2).',
  by: 'find: search labels, text or any (default).',
  limit: 'find: most matches (1-50, default 10).',
} as const
