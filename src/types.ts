/**
 * `dsh-session-tree/types`: the wire vocabulary of the `sessionTree` remote
 * service (requests travel as named JSON args: `agentId`, `nodeId`, `branch`,
 * `label`). Browser-safe: types only.
 */
export type * from './tree/types.ts'
// The service's vocabulary: every layer's codes (loading it loads each layer's registry entries).
export type { ErrorCode, TreeError, TreeResult } from './service/errors.ts'
export type * from './service/wire.ts'
export type * from './service/workspace-wire.ts'
export type * from './service/lineage-wire.ts'
export type * from './service/carry-wire.ts'
export type * from './workspace/types.ts'
export type * from './service/chat-path.ts'
export type { ImportRequest, ExportRequest, ExportResult } from './service/interchange.ts'
export type { ImportResult } from './interchange/session/import.ts'
export type { RemoteAttempt, AttemptError } from './service/attempt.ts'
export type { ImportReport, SkippedLine, SourceFormat, ExportFormat } from './interchange/model.ts'
export type { ImportPreview, BranchPreview } from './interchange/preview.ts'
export type * from './tree/compare-types.ts'
export type { CompareResult } from './service/compare-wire.ts'
