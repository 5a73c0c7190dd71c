/**
 * What the model is told about the tree tools: one short system-prompt
 * section (registered as `tool:session-tree`, order 150, in the tool-guidance
 * band) and the per-tool descriptions. Each description says what the tool
 * returns and what the model will see next.
 */

/** The tool names, in the order they are documented. */
export const TOOL_NAMES = [
  'tree_list',
  'tree_find',
  'tree_jump',
  'tree_fork',
  'tree_back',
  'tree_forward',
  'tree_label',
  'tree_summarize_branch',
] as const

export type TreeToolName = (typeof TOOL_NAMES)[number]

/** The system-prompt section describing the tree tools. */
export const SYSTEM_PROMPT = `## Conversation tree

This conversation is a tree: nothing in it is ever deleted, and it can continue from any earlier message. The tree_* tools act on your own conversation only.
- tree_list and tree_find show node ids (like e12), roles, labels, branch heads, and where your history ends (← cursor).
- tree_jump, tree_fork, tree_back and tree_forward take effect when your current turn ends. Until then you keep seeing the present conversation; from the next user message on, your history is exactly the selected path, and what came after it stays in the tree where you no longer see it. After scheduling a move, finish your turn.
- tree_label bookmarks a node by name; tree_summarize_branch records what a branch was about.
Move only when the user asks to go back, retry from an earlier point, or branch off.`

/** Tool descriptions: what the tool does, what it returns, and what the model sees next. */
export const DESCRIPTIONS: Record<TreeToolName, string> = {
  tree_list:
    'Show the tree of this conversation as an outline: each message is a node with its id (e.g. e12), role and first line; forks are indented; ' +
    'labels, branch heads and "← cursor" (where your history ends) are marked, and a waiting move is shown. Read-only. ' +
    'Long runs are abridged with "…"; pass `from` (a node id or label) to show only the part under that node, or a larger `depth` to expand nested forks.',
  tree_find:
    'Find nodes of this conversation by label or text (case-insensitive substring). Read-only. ' +
    'Returns matching node ids with role and first line, exact label matches first, then the newest, marking those on your current path.',
  tree_jump:
    'Continue this conversation from an earlier node (an id like e12, or a label). Takes effect when this turn ends: from the next user message on, ' +
    'your history is exactly the path from the first message to that node. Everything after it, including this call and the rest of this turn, ' +
    'stays in the tree but you will no longer see it. A node inside a tool exchange moves to the end of that exchange. ' +
    'Returns what was scheduled and how many messages your next history will hold. Until the turn ends you still see the current conversation.',
  tree_fork:
    'Like tree_jump, but also names the new line of conversation: creates branch `branch` at `node` and continues from there when this turn ends. ' +
    'Returns what was scheduled; the old branch keeps its name and messages.',
  tree_back:
    'Undo the last move in the tree, like a browser\'s back button (only moves are undone, never messages). If a move is still waiting for this turn to end, ' +
    'it is cancelled instead and nothing changes. Otherwise takes effect when this turn ends; returns what will happen.',
  tree_forward:
    'Redo a move undone by tree_back. Takes effect when this turn ends; returns what will happen.',
  tree_label:
    'Bookmark a node with a unique label so it can be found and jumped to by name (tree_jump accepts labels). An empty `text` removes the label. ' +
    'Takes effect at once; your history does not change. Returns the labeled node.',
  tree_summarize_branch:
    'Record a summary of a branch (shown in the tree, and kept as the digest of a branch that is off your path). With `summary`, your text is recorded; ' +
    'without it, an extractive digest is computed. Takes effect at once; your history does not change. Returns the recorded summary.',
}
