/**
 * Child process for the sidecar crash tests:
 * `node sidecar-writer.ts <root> <session> <count> [padding]`.
 * Appends `count` records, compacting every 100th, and prints each record's
 * `n` only after `append` returned (synchronously, so a SIGKILL cannot lose a
 * printed line that the parent then checks against the disk).
 */
import { writeSync } from 'node:fs'
import { TreeSidecar } from '../../src/sidecar/index.ts'

const [root, sessionId, countText, paddingText = '0'] = process.argv.slice(2)
if (root === undefined || sessionId === undefined || countText === undefined) {
  writeSync(2, 'usage: sidecar-writer.ts <root> <session> <count> [padding]\n')
  process.exit(64)
}
// Under a file-size limit a write fails with EFBIG instead of killing the process.
process.on('SIGXFSZ', () => {})
const padding = 'p'.repeat(Number(paddingText))
const sidecar = new TreeSidecar(root)
const loaded = sidecar.load(sessionId)
writeSync(1, `ready ${loaded.records.at(-1)?.n ?? loaded.fold?.n ?? 0}\n`)
for (let i = 0; i < Number(countText); i++) {
  const appended = sidecar.append(sessionId, { w: i, op: { i, pid: process.pid, pad: 'x'.repeat(i % 64), padding } })
  if (!appended.ok) {
    writeSync(2, `append failed: ${appended.error.code}: ${appended.error.message}\n`)
    process.exit(2)
  }
  const { n } = appended.value
  writeSync(1, `${n}\n`)
  if (n % 100 === 0) {
    const compacted = sidecar.compact(sessionId, { n, w: i, state: { upTo: n } })
    if (!compacted.ok) {
      writeSync(2, `compact failed: ${compacted.error.code}: ${compacted.error.message}\n`)
      process.exit(3)
    }
  }
}
writeSync(1, 'done\n')
