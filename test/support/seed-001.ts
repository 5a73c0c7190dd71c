/**
 * Seed 001's contract: the result schemas of its generated
 * `typert.remote-client.js` (@robiteame/dsh-pi-agent-session-tree 0.1.0),
 * transcribed field for field. A browser client written against that file
 * must keep validating our outputs; the unit and e2e tests both check it.
 */
import { z } from 'zod'

const SeedJson: z.ZodType = z.union([
  z.literal(null),
  z.string(),
  z.number(),
  z.literal(false),
  z.literal(true),
  z.array(z.lazy(() => SeedJson)),
  z.record(
    z.string(),
    z.lazy(() => SeedJson),
  ),
])
const seedRole = z.union([z.literal('system'), z.literal('user'), z.literal('assistant'), z.literal('tool')]).readonly()
const seedMessage = z.object({
  role: seedRole,
  content: z.string().readonly(),
  name: z.string().readonly().optional(),
  toolCallId: z.string().readonly().optional(),
})
/** Where a session stands, as both the list and the session results give it (the same three fields, in this order). */
const seedPosition = {
  cursor: z.union([z.literal(null), z.string()]).readonly(),
  activeBranch: z.string().readonly(),
  selectedNodeId: z
    .union([z.literal(null), z.string()])
    .readonly()
    .optional(),
}
export const SEED_001 = {
  fork: z.object({
    cursor: z.string(),
    branch: z.string(),
    forkCount: z.number(),
  }),
  jump: z.object({
    cursor: z.union([z.literal(null), z.string()]).readonly(),
    messages: z.array(seedMessage).readonly(),
  }),
  list: z.object({
    sessionId: z.intersection(z.string(), z.unknown()).readonly(),
    ...seedPosition,
    branchHeads: z.record(z.string(), z.string()).readonly().optional(),
    nodes: z
      .array(
        z.object({
          nodeId: z.string().readonly(),
          parentId: z.union([z.literal(null), z.string()]).readonly(),
          forkCount: z.number().readonly().optional(),
          type: z
            .union([
              z.literal('message'),
              z.literal('tool_call'),
              z.literal('tool_result'),
              z.literal('model_change'),
              z.literal('compaction'),
              z.literal('branch_summary'),
              z.literal('custom'),
            ])
            .readonly()
            .optional(),
          branch: z.string().readonly(),
          summary: z.string().readonly(),
          createdAt: z.string().readonly(),
          message: seedMessage.readonly().optional(),
          content: z
            .array(
              z.union([
                z.object({ type: z.literal('text').readonly(), text: z.string().readonly() }),
                z.object({
                  type: z.literal('tool_call').readonly(),
                  id: z.string().readonly(),
                  name: z.string().readonly(),
                  arguments: SeedJson.readonly(),
                }),
                z.object({
                  type: z.literal('tool_result').readonly(),
                  toolCallId: z.string().readonly(),
                  content: z.string().readonly(),
                  isError: z.boolean().readonly().optional(),
                }),
                z.object({ type: z.literal('reasoning').readonly(), text: z.string().readonly() }),
              ]),
            )
            .readonly()
            .optional(),
          model: z.string().readonly().optional(),
          usage: z.record(z.string(), SeedJson).readonly().optional(),
          cost: z.number().readonly().optional(),
          error: z.string().readonly().optional(),
          metadata: z.record(z.string(), SeedJson).readonly().optional(),
        }),
      )
      .readonly(),
    branches: z
      .array(
        z.object({
          name: z.string().readonly(),
          headId: z.string().readonly(),
          nodeIds: z.array(z.string()).readonly(),
        }),
      )
      .readonly(),
  }),
  session: z.object({
    branchHeads: z.record(z.string(), z.string()).readonly().optional(),
    sessionId: z.intersection(z.string(), z.unknown()).readonly(),
    nodeCount: z.number().readonly(),
    messageCount: z.number().readonly(),
    branchCount: z.number().readonly(),
    ...seedPosition,
    currentPathLength: z.number().readonly(),
    usage: z.record(z.string(), z.number()).readonly().optional(),
    tokenCount: z.number().readonly().optional(),
    cost: z.number().readonly().optional(),
    snapshotVersion: z.literal(1).readonly(),
  }),
}
