/**
 * Helpers for interchange tests: a real cordis Context with the harness
 * `SessionStore` and the published JSONL persistence backend in a temp
 * DSH_HOME, and the model's view of a session or tree path as comparable
 * role/text pairs.
 */
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from '@deepseek-ai/cordis'
import SessionStore, { Session, SessionId } from '@deepseek-ai/dsh-session'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import { TreeSync } from '../../src/harness/sync.ts'
import { SessionTreeStore } from '../../src/tree/store.ts'
import type { SessionTree } from '../../src/tree/session-tree.ts'
import { TreeSidecar } from '../../src/sidecar/index.ts'
import { loopRig } from './tool-rig.ts'
import { readProvenance } from '../../src/interchange/session/provenance.ts'
import { importSession, type ImportTarget } from '../../src/interchange/session/import.ts'
import type { WireBody } from './dsh-wire.ts'
import { contractViolations, type ContractViolation } from './provider-contract.ts'

/** The rollout files of a Codex fixture folder, in name order. */
export function rolloutFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.startsWith('rollout-'))
    .sort()
    .map((name) => join(dir, name))
}

export interface Home {
  readonly home: string
  readonly sessionsRoot: string
  readonly sidecarRoot: string
  readonly persistence: {
    create(meta: unknown): Promise<void>
    append(id: never, events: readonly never[]): Promise<void>
    load(id: unknown): Promise<{ events: readonly unknown[]; meta: unknown }>
  }
}

export async function dshHome(): Promise<Home> {
  const home = mkdtempSync(join(tmpdir(), 'dsh-home-'))
  const ctx = new Context()
  ctx.plugin(SessionStore)
  ctx.plugin(JsonlSessionPersistence, { root: join(home, 'sessions') })
  for (let i = 0; i < 100 && !(ctx as unknown as { sessionPersistence?: unknown }).sessionPersistence; i++)
    await new Promise((r) => setTimeout(r, 5))
  return {
    home,
    sessionsRoot: join(home, 'sessions'),
    sidecarRoot: join(home, 'session-tree'),
    persistence: (ctx as unknown as { sessionPersistence: Home['persistence'] }).sessionPersistence,
  }
}

/** One Codex rollout line (all at the same time). */
export const codexLine = (type: string, payload: unknown) =>
  JSON.stringify({ timestamp: '2026-01-11T10:00:00.000Z', type, payload })
/** A typed prompt as Codex writes it: the message item the model reads, then the `user_message` event. */
export const codexPrompt = (text: string) => [
  codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
  codexLine('event_msg', { type: 'user_message', message: text, images: [] }),
]
/** The model's answer as Codex writes it: an `output_text` message item. */
export const codexAnswer = (text: string) =>
  codexLine('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })

/** `path` imported into a fresh DSH home; `target`: more of the import's target (a cwd, a dry run). */
export async function importFresh(path: string, target: Partial<Omit<ImportTarget, 'persistence'>> = {}) {
  const home = await dshHome()
  const outcome = await importSession(
    { path },
    { persistence: home.persistence, sidecarRoot: home.sidecarRoot, ...target },
  )
  return { home, outcome }
}

/** Load a stored session the way the plugin does on resume: log + sidecar → tree. */
export async function loadTree(
  home: Home,
  sessionId: string,
): Promise<{ tree: SessionTree; events: readonly unknown[]; warnings: readonly string[] }> {
  const loaded = await home.persistence.load(SessionId(sessionId))
  const sync = new TreeSync(new SessionTreeStore(), new TreeSidecar(home.sidecarRoot))
  const state = sync.attach({ id: sessionId, events: loaded.events })
  return {
    tree: state.projector.tree,
    events: loaded.events,
    warnings: [...state.warnings.map((w) => w.message), ...state.projector.quarantine.map((q) => q.reason)],
  }
}

export type ModelMessage = { role: string; text: string }

type Block = { type: string; text?: string; name?: string; content?: Block[] }

/** What the DSH model receives for this log: `deriveMessages()` of a real harness Session. */
export function dshModelView(sessionId: string, events: readonly unknown[]): ModelMessage[] {
  const session = Session.create(SessionId(sessionId), events as never)
  return session.deriveMessages().map((message) => {
    const blocks = message.content as unknown as Block[]
    const role = blocks[0]?.type === 'tool-result' ? 'tool' : message.role
    return { role, text: blocks.map(blockText).join('') }
  })
}

function blockText(block: Block): string {
  if (block.type === 'text') return (block.text ?? '').replace(/\[image: [^\]]*\]/g, '[image]')
  if (block.type === 'tool-call') return `call:${block.name}`
  if (block.type === 'tool-result') return (block.content ?? []).map(blockText).join('')
  return ''
}

/** The model history of a tree path, in the same form (what a switch to `nodeId` would send). */
export function treeModelView(tree: SessionTree, nodeId: string | null): ModelMessage[] {
  const history = tree.historyPath(nodeId)
  if (!history.ok) throw new Error(history.error.message)
  return history.value.map((entry) => {
    if (entry.type === 'tool_call' || entry.type === 'tool_result') {
      const result = entry.content?.find((p) => p.type === 'tool_result')
      return { role: 'tool', text: result?.type === 'tool_result' ? result.content : '' }
    }
    const parts = entry.content ?? []
    const text =
      parts.length > 0
        ? parts
            .map((p) =>
              p.type === 'text'
                ? p.text.replace(/\[image: [^\]]*\]/g, '[image]')
                : p.type === 'tool_call'
                  ? `call:${p.name}`
                  : '',
            )
            .join('')
        : (entry.message?.content ?? '')
    return { role: entry.message?.role ?? 'user', text }
  })
}

/** Source node id → DSH node id of an imported session, from its provenance. */
export async function dshNodes(home: Home, sessionId: string): Promise<Map<string, string>> {
  const provenance = await readProvenance(new TreeSidecar(home.sidecarRoot).dirFor(sessionId))
  return new Map([...provenance!.nodes.values()].map((p) => [p.id, p.node]))
}

/** The request after a prompt at one node of an imported session. */
export interface Continued {
  /** The node jumped to (null: where the import left the session, no jump). */
  readonly nodeId: string | null
  /** What DSH's DeepSeek adapter put on the wire for the prompt. */
  readonly body?: WireBody
  /** What a strict provider refuses in it. */
  readonly violations: readonly ContractViolation[]
  /** Why there is no request: the jump was refused, or the agent never settled. */
  readonly failure?: string
}

/**
 * Continue an imported session as a person would, in the in-process agent loop whose model
 * refuses what a strict provider refuses (`tool-rig.ts`): a prompt where it stands, then, at
 * each node given (default: every node of the tree), a jump there and a prompt. Stops at an
 * agent that never settles (its failure names the node).
 */
export async function continueImport(home: Home, sessionId: string, at?: readonly string[]): Promise<Continued[]> {
  const loaded = await home.persistence.load(SessionId(sessionId))
  const rig = await loopRig([], { resume: { sessionId, events: loaded.events, sidecarRoot: home.sidecarRoot } })
  const out: Continued[] = []
  try {
    const nodes = at ?? (await rig.service.list(sessionId)).nodes.map((node) => node.nodeId)
    for (const nodeId of [null, ...nodes]) {
      if (nodeId !== null) {
        try {
          await rig.service.jump(sessionId, nodeId)
        } catch (error) {
          const failure = (error as { failure?: unknown }).failure
          out.push({ nodeId, violations: [], failure: `jump refused: ${JSON.stringify(failure) ?? String(error)}` })
          continue
        }
      }
      const before = rig.model.wire.length
      try {
        await rig.say(`go on from ${nodeId ?? 'here'}`)
      } catch (error) {
        out.push({ nodeId, violations: [], failure: `${String(error)}; ${rig.invariantFailures.join('; ')}` })
        break
      }
      const body = rig.model.wire[before]
      out.push({ nodeId, ...(body ? { body } : {}), violations: body ? contractViolations(body) : [] })
    }
    rig.model.refusals.splice(0)
    return out
  } finally {
    await rig.dispose()
  }
}
