/**
 * Counting (or skipping) the durable syncs a piece of code makes, for the
 * bench: `fsyncSync`, `fdatasyncSync` and `fsync` (a restore's parallel
 * syncs) of `node:fs` are wrapped, and
 * `syncBuiltinESMExports` carries the wrappers to every ESM importer (the
 * sidecar's journal and the pack import them by name). Skipping them
 * measures what a checkpoint costs beyond its syncs: its CPU and page-cache
 * work, which does not depend on how busy the shared disk is.
 */
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'

export interface SyncMeter {
  /** Syncs made since the meter was installed. */
  readonly count: number
  /** While true, syncs return at once without reaching the disk (measurement only). */
  skip: boolean
  uninstall(): void
}

export function installSyncMeter(): SyncMeter {
  const fsync = fs.fsyncSync
  const fdatasync = fs.fdatasyncSync
  const fsyncAsync = fs.fsync
  const meter = {
    count: 0,
    skip: false,
    uninstall() {
      fs.fsyncSync = fsync
      fs.fdatasyncSync = fdatasync
      fs.fsync = fsyncAsync
      syncBuiltinESMExports()
    },
  }
  fs.fsyncSync = (fd) => {
    meter.count++
    if (!meter.skip) fsync(fd)
  }
  fs.fdatasyncSync = (fd) => {
    meter.count++
    if (!meter.skip) fdatasync(fd)
  }
  fs.fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    meter.count++
    if (meter.skip) process.nextTick(callback, null)
    else fsyncAsync(fd, callback)
  }) as typeof fs.fsync
  syncBuiltinESMExports()
  return meter
}
