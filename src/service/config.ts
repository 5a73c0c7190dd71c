/** The plugin's configuration: its type and the schema `cordis.patch.yml` is checked against. */
import s from '@deepseek-ai/schemastery'
import type { SurfaceModeSetting } from '../surface/mode.ts'
import { WORKSPACE_CONFIG, type WorkspaceConfig } from './workspace.ts'
import { DEFAULT_ORPHAN_GRACE_MS, DEFAULT_ORPHAN_SCAN_DELAY_MS } from './lineage.ts'

/** Plugin configuration (the `session-tree` row of `cordis.patch.yml`). */
export interface Config {
  /** Directory of the per-session sidecars; no sidecar is written when absent. */
  readonly sidecarRoot?: string
  /** `auto` (default), or force `native`, `stock` or `projection`. */
  readonly surfaceMode: SurfaceModeSetting
  /** How long a history switch may take (ms, default 30 000). */
  readonly switchTimeoutMs?: number
  /** Workspace checkpoints (files per node, restores). */
  readonly workspace?: Partial<WorkspaceConfig>
  /** How long the session's model may take to write a branch summary (ms, default 30 000); then the extractive digest stands in. */
  readonly summaryTimeoutMs?: number
  /** How long a sidecar whose session is gone is kept before a scan removes it (ms, default 7 days). */
  readonly orphanGraceMs?: number
  /** How long after start the orphan scan runs (ms, default 10 000), out of the way of the first session listing. */
  readonly orphanScanDelayMs?: number
}

export const CONFIG: s<Config> = s.object({
  sidecarRoot: s.string(),
  surfaceMode: s.union(['auto', 'native', 'stock', 'projection']).default('auto'),
  switchTimeoutMs: s.natural().default(30_000),
  workspace: WORKSPACE_CONFIG,
  summaryTimeoutMs: s.natural().default(30_000),
  orphanGraceMs: s.natural().default(DEFAULT_ORPHAN_GRACE_MS),
  orphanScanDelayMs: s.natural().default(DEFAULT_ORPHAN_SCAN_DELAY_MS),
}) as unknown as s<Config>
