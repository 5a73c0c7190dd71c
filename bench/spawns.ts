/**
 * Counting the child processes a piece of code starts, for the bench:
 * `spawn` and `execFile` of `node:child_process` are wrapped, and
 * `syncBuiltinESMExports` carries the wrappers to every ESM importer (the
 * workspace's git snapshots import them by name). On a busy 2-core machine
 * one git process costs 10–20 ms, so the count says where a figure's floor is.
 */
import childProcess from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'

export interface SpawnMeter {
  /** Processes started since the meter was installed. */
  readonly count: number
  uninstall(): void
}

export function installSpawnMeter(): SpawnMeter {
  const { spawn, execFile } = childProcess
  const meter = {
    count: 0,
    uninstall() {
      childProcess.spawn = spawn
      childProcess.execFile = execFile
      syncBuiltinESMExports()
    },
  }
  childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
    meter.count++
    return spawn(...args)
  }) as typeof spawn
  childProcess.execFile = ((...args: Parameters<typeof execFile>) => {
    meter.count++
    return execFile(...args)
  }) as typeof execFile
  syncBuiltinESMExports()
  return meter
}
