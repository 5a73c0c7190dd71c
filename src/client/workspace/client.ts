/**
 * The workspace methods of the `sessionTree` remote, as the Tree tab calls
 * them, for one session. Framework-free: every call resolves to a
 * `Result` (a thrown or rejected call becomes `CLIENT_ERROR`), and the
 * overview (`files`) is fetched once per tree generation.
 */
import type {
  CarryDiff,
  CarryPreview,
  CarryResult,
  FileCompareDiff,
  FilesComparison,
  FileContent,
  FileDiff,
  FilesAtNode,
  RestorePreview,
  RestoreAnswer,
  WorkspaceOverview,
} from '../../types.ts'
import type { Result } from '../controller.ts'
import { errorMessage } from '../../tree/errors.ts'

/** The part of the generated namespace these views call. */
export interface WorkspaceRemote {
  files(agentId: string): Promise<Result<WorkspaceOverview>>
  filesAt(agentId: string, nodeId: string | null): Promise<Result<FilesAtNode>>
  fileAt(agentId: string, nodeId: string | null, path: string): Promise<Result<FileContent>>
  restorePreview(agentId: string, request: unknown): Promise<Result<RestorePreview>>
  restoreDiff(agentId: string, request: unknown, path: string): Promise<Result<FileDiff>>
  restore(agentId: string, request: unknown): Promise<Result<RestoreAnswer>>
  compareFiles(agentId: string, a: string | null, b: string | null): Promise<Result<FilesComparison>>
  compareFileDiff(agentId: string, a: string | null, b: string | null, path: string): Promise<Result<FileCompareDiff>>
  carryPreview(agentId: string, request: unknown): Promise<Result<CarryPreview>>
  carryDiff(agentId: string, request: unknown, path: string): Promise<Result<CarryDiff>>
  carry(agentId: string, request: unknown): Promise<Result<CarryResult>>
}

type Call<T> = (remote: WorkspaceRemote) => Promise<Result<T>>

export class WorkspaceClient {
  readonly agentId: string
  private readonly remote: () => Promise<WorkspaceRemote>
  private overviewFor: { generation: number; result: Promise<Result<WorkspaceOverview>> } | undefined

  constructor(remote: () => Promise<WorkspaceRemote>, agentId: string) {
    this.remote = remote
    this.agentId = agentId
  }

  private async call<T>(call: Call<T>): Promise<Result<T>> {
    try {
      return await call(await this.remote())
    } catch (reason) {
      const error =
        reason && typeof reason === 'object' && 'code' in reason && 'message' in reason
          ? {
              code: String((reason as { code: unknown }).code),
              message: String((reason as { message: unknown }).message),
            }
          : { code: 'CLIENT_ERROR', message: errorMessage(reason) }
      return { ok: false, error }
    }
  }

  /** Status and markers; asked again only when the tree's generation moved (or `force`). */
  overview(generation: number, force = false): Promise<Result<WorkspaceOverview>> {
    if (!force && this.overviewFor?.generation === generation) return this.overviewFor.result
    const result = this.call((r) => r.files(this.agentId))
    this.overviewFor = { generation, result }
    return result
  }

  filesAt(nodeId: string | null): Promise<Result<FilesAtNode>> {
    return this.call((r) => r.filesAt(this.agentId, nodeId))
  }

  fileAt(nodeId: string | null, path: string): Promise<Result<FileContent>> {
    return this.call((r) => r.fileAt(this.agentId, nodeId, path))
  }

  preview(request: unknown): Promise<Result<RestorePreview>> {
    return this.call((r) => r.restorePreview(this.agentId, request))
  }

  diff(request: unknown, path: string): Promise<Result<FileDiff>> {
    return this.call((r) => r.restoreDiff(this.agentId, request, path))
  }

  compareFiles(a: string | null, b: string | null): Promise<Result<FilesComparison>> {
    return this.call((r) => r.compareFiles(this.agentId, a, b))
  }

  compareFileDiff(a: string | null, b: string | null, path: string): Promise<Result<FileCompareDiff>> {
    return this.call((r) => r.compareFileDiff(this.agentId, a, b, path))
  }

  carryPreview(request: unknown): Promise<Result<CarryPreview>> {
    return this.call((r) => r.carryPreview(this.agentId, request))
  }

  carryDiff(request: unknown, path: string): Promise<Result<CarryDiff>> {
    return this.call((r) => r.carryDiff(this.agentId, request, path))
  }

  carry(request: unknown): Promise<Result<CarryResult>> {
    const result = this.call((r) => r.carry(this.agentId, request))
    this.overviewFor = undefined
    return result
  }

  restore(request: unknown): Promise<Result<RestoreAnswer>> {
    const result = this.call((r) => r.restore(this.agentId, request))
    this.overviewFor = undefined
    return result
  }
}
