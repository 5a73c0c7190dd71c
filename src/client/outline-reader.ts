/**
 * The Tree tab's reads of the outline: `outlineChanges` from the version it
 * holds, so after a jump or a label only what changed travels (at 30,000 nodes
 * the whole outline is ~26 MB of JSON to write, send and parse), merged into
 * the outline it held. An answer that does not fit what it holds (another
 * tree, a restarted host) is read again whole.
 */
import type { SessionTreeOutline, SessionTreeOutlineChanges } from '../types.ts'
import { applyOutlineChanges } from '../outline/index.ts'
import type { Result } from './controller.ts'

/** The remote method the reader calls (the generated client has it). */
export interface OutlineRemote {
  outlineChanges(agentId: string, since: string | null): Promise<Result<SessionTreeOutlineChanges>>
}

export class OutlineReader {
  private held: SessionTreeOutline | undefined
  private version: string | undefined

  private readonly agentId: string

  constructor(agentId: string) {
    this.agentId = agentId
  }

  /** The outline now; what it returns is what it holds from then on. */
  async read(remote: OutlineRemote): Promise<Result<SessionTreeOutline>> {
    for (const since of this.version === undefined ? [null] : [this.version, null]) {
      const answer = await remote.outlineChanges(this.agentId, since)
      if (!answer.ok) return answer
      const outline = applyOutlineChanges(this.held, this.version, answer.value)
      if (outline === undefined) continue
      this.held = outline
      this.version = answer.value.version
      return { ok: true, value: outline }
    }
    // Even a whole answer did not fit (a malformed answer): say so rather than show a wrong tree.
    this.held = undefined
    this.version = undefined
    return { ok: false, error: { code: 'CLIENT_ERROR', message: 'outlineChanges: an answer that does not fit' } }
  }
}
