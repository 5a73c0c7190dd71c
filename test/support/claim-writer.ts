/**
 * Child process for the writer-claim tests:
 * `node claim-writer.ts <root> <session> <count> <kind> [hold]`.
 * Appends `count` records (op `{ pid, i }`), retrying while another process
 * holds the session (SIDECAR_CLAIMED; reloading when the files changed), and
 * prints `ok <n>` for each only after `append` returned (synchronously, so a
 * SIGKILL cannot lose a printed line), `refused <message>` once per refusal
 * streak. With `hold` it then prints `holding` and keeps the claim until its
 * standard input closes; otherwise it exits 0, which releases the claim.
 */
import { writeSync } from 'node:fs'
import { processClaims, TreeSidecar } from '../../src/sidecar/index.ts'

const [root, sessionId, countText, kind, hold] = process.argv.slice(2)
if (root === undefined || sessionId === undefined || countText === undefined || kind === undefined) {
  writeSync(2, 'usage: claim-writer.ts <root> <session> <count> <kind> [hold]\n')
  process.exit(64)
}
processClaims.kind = kind
const sidecar = new TreeSidecar(root)
sidecar.load(sessionId)
const pause = new Int32Array(new SharedArrayBuffer(4))
let refused = false
for (let i = 0; i < Number(countText);) {
  const appended = sidecar.append(sessionId, { w: i, op: { pid: process.pid, i } })
  if (appended.ok) {
    writeSync(1, `ok ${appended.value.n}\n`)
    refused = false
    i++
    continue
  }
  if (appended.error.code !== 'SIDECAR_CLAIMED') {
    writeSync(2, `append failed: ${appended.error.code}: ${appended.error.message}\n`)
    process.exit(2)
  }
  if (!refused) writeSync(1, `refused ${JSON.stringify(appended.error)}\n`)
  refused = true
  // What another writer appended is read again before this one writes after it.
  if (appended.error.details?.changed === true) sidecar.load(sessionId)
  Atomics.wait(pause, 0, 0, 2)
}
if (hold === 'hold') {
  writeSync(1, 'holding\n')
  process.stdin.resume()
  process.stdin.on('end', () => process.exit(0))
} else process.exit(0)
