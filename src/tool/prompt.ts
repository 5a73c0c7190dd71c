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
  'tree_compare',
] as const

export type TreeToolName = (typeof TOOL_NAMES)[number]

/** The system-prompt section describing the tree tools. */
export const SYSTEM_PROMPT = `## Conversation tree

This conversation is a tree: nothing in it is ever deleted, and it can continue from any earlier message. The tree_* tools act on your own conversation only.
- tree_list and tree_find show node ids (like e12), roles, labels, branch heads, and where your history ends (← cursor).
- tree_jump, tree_fork, tree_back and tree_forward move where your history ends. Called alone in a message, a move normally applies at once: your next step sees exactly the selected path, then that call and its result (which quotes the user's latest message if it fell off the path); continue from there. Called together with other tools, it waits for the end of your turn, and the next user message lands on the selected path. What came after the selected node stays in the tree where you no longer see it. The result always says what happened ("Moved now", "Scheduled" or "Not applied").
- With files: "both" (or "files"), a move also puts the workspace files you changed back as they were at that point; files the user changed since are left alone, and the result lists what changed. Read a file again before you edit it after such a move.
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
    'Continue this conversation from an earlier node (an id like e12, or a label). Call it alone in its message: it then normally applies at once, and your ' +
    'next step sees exactly the path from the first message to that node, followed by this call and its result ("Moved now: …", which quotes the ' +
    "user's latest message if it is no longer on that path). Called together with other tools in one message it cannot switch at once: it is " +
    'scheduled ("Scheduled: …"), you keep seeing the current conversation until this turn ends, and the next user message lands on that path. ' +
    'Everything after the node stays in the tree, but you no longer see it. A node inside a tool exchange moves to the end of that exchange. ' +
    'Returns what happened ("Moved now", "Scheduled" or "Not applied") and how many messages the path holds.',
  tree_fork:
    'Like tree_jump, but also names the new line of conversation: creates branch `branch` at `node` and continues from there — at once when called ' +
    'alone in its message, otherwise when this turn ends, exactly as tree_jump. The old branch keeps its name and messages.',
  tree_back:
    "Undo the last move in the tree, like a browser's back button (only moves are undone, never messages). If a move is still scheduled for the end " +
    'of this turn, it is cancelled instead and nothing changes. Otherwise it applies like tree_jump (at once when called alone in its message): ' +
    'your history becomes the path where it ended before that move, followed by this call and its result. Returns what happened.',
  tree_forward:
    'Redo a move undone by tree_back. Applies like tree_jump (at once when called alone in its message); returns what happened.',
  tree_label:
    'Bookmark a node with a unique label so it can be found and jumped to by name (tree_jump accepts labels). An empty `text` removes the label. ' +
    'Takes effect at once; your history does not change. Returns the labeled node.',
  tree_summarize_branch:
    'Record a summary of a branch (shown in the tree, and kept as the digest of a branch that is off your path). With `summary`, your text is recorded; ' +
    'without it, an extractive digest is computed. Takes effect at once; your history does not change. Returns the recorded summary.',
  tree_compare:
    'Compare two nodes or branches of this conversation: where they part, then their messages side by side with words removed and added marked ' +
    '[-old-]{+new+}, tool calls by name and arguments, and tokens per side. Read-only.',
}
