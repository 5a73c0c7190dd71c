/**
 * What a user does to a tree, as a value: a move, a label, a branch summary. The harness applies one
 * (`harness/sync.ts` `begin`/`mutate`) and journals what it changed; callers above hand it a value,
 * never a function to run inside.
 */
import { ok, type TreeResult } from './errors.ts'
import { namedNode, runMove, type CursorMove, type Landing, type Moved } from './move.ts'
import type { SessionTree } from './session-tree.ts'
import type { BranchSummary, TreeNode } from './types.ts'

export type TreeCommand =
  /** `at`: where it lands (`landing`); absent, the node it names. `snaps`: a back/forward ends at a complete cut point. */
  | { readonly kind: 'move'; readonly move: CursorMove; readonly at?: Landing; readonly snaps?: boolean }
  | { readonly kind: 'label'; readonly nodeId: string; readonly label: string | null }
  /** A summary already drafted (by the model or the extractive digest). */
  | { readonly kind: 'summary'; readonly summary: BranchSummary }
  /** A summary someone wrote as text (`model`: who, when a model did). */
  | { readonly kind: 'summary-text'; readonly branch: string; readonly text: string; readonly model?: string }

/** What each command answers with. */
export interface CommandAnswers {
  readonly move: Moved
  readonly label: TreeNode
  readonly summary: BranchSummary
  readonly 'summary-text': BranchSummary
}

export type AnswerOf<C extends TreeCommand> = CommandAnswers[C['kind']]

/** Run a command on `tree`. A failure may leave it half-changed: the harness rolls it back to its checkpoint. */
export function runCommand<C extends TreeCommand>(tree: SessionTree, command: C): TreeResult<AnswerOf<C>> {
  return run(tree, command) as TreeResult<AnswerOf<C>>
}

function run(tree: SessionTree, command: TreeCommand): TreeResult<CommandAnswers[TreeCommand['kind']]> {
  switch (command.kind) {
    case 'move':
      return runMove(
        tree,
        command.move,
        command.at ?? { target: namedNode(command.move) ?? null },
        command.snaps ?? false,
      )
    case 'label':
      return tree.label(command.nodeId, command.label)
    case 'summary': {
      const applied = tree.applyOp({ op: 'summary', summary: command.summary })
      if (!applied.ok) return applied
      const { branch } = command.summary
      return ok(tree.summaries().find((recorded) => recorded.branch === branch) ?? command.summary)
    }
    case 'summary-text':
      return tree.setBranchSummary(command.branch, command.text, command.model)
  }
}
