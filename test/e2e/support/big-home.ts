/**
 * A big DSH home (issue 25.2): one session driven for real through `dsh web`
 * (its log written by DSH, its sidecar by the plugin), then copied under fresh
 * session ids — the log re-framed as DSH writes it (`writeSessionLog`), the
 * sidecar's journal lines and overlay re-checksummed with the plugin's own
 * framing — so the copies are sessions DSH lists and opens like the original.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { decodeOverlay, encodeOverlay, frameLine, unframeLine } from '../../../src/sidecar/framing.ts'
import { SESSION_SIDECAR_DIR } from '../../../src/sidecar/location.ts'
import { pluginAdd, startWeb, tempDir, type WebProcess } from './dsh.ts'
import { readSessionLog, writeSessionLog, type SessionLogEvent, type SessionLogHeader } from './session-log.ts'

const LOG_FILE = 'session.jsonl.zstd'
/** DSH's projection cache under `<DSH_HOME>/storages/` (titles, stats of sessions it has run). */
const PROJECTION_CACHE = 'session_projcache.json'
/** The claim of the process that wrote the sidecar: a copy belongs to no process. */
const CLAIM_FILE = 'writer.json'

/** Every occurrence of `from` in the strings of a JSON value replaced by `to`. */
function renamed<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T
}

/** A sidecar file with every mention of the session id renamed, its framing (line CRCs, overlay CRC) rebuilt. */
function renamedSidecarFile(bytes: Buffer, name: string, from: string, to: string): Buffer {
  if (name.endsWith('.jsonl')) {
    const lines: Buffer[] = []
    let start = 0
    for (let end = bytes.indexOf(0x0a, start); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
      const line = unframeLine(bytes, start, end)
      if (!line.ok) throw new Error(`${name}: line at byte ${start} is not a framed line (${line.reason})`)
      lines.push(frameLine(renamed(line.value, from, to)))
    }
    return Buffer.concat(lines)
  }
  if (name.endsWith('.json')) {
    const overlay = decodeOverlay(bytes.toString('utf8'))
    if (overlay.ok) return encodeOverlay(renamed(overlay.value, from, to))
  }
  return Buffer.from(bytes.toString('utf8').replaceAll(from, to), 'utf8')
}

function copySidecar(fromDir: string, toDir: string, from: string, to: string): void {
  fs.mkdirSync(toDir, { recursive: true })
  for (const entry of fs.readdirSync(fromDir, { withFileTypes: true })) {
    const source = path.join(fromDir, entry.name)
    if (entry.isDirectory()) copySidecar(source, path.join(toDir, entry.name), from, to)
    else if (entry.isFile() && entry.name !== CLAIM_FILE)
      fs.writeFileSync(path.join(toDir, entry.name), renamedSidecarFile(fs.readFileSync(source), entry.name, from, to))
  }
}

/** The directory of session `sessionId` under a DSH_HOME (throws when there is none). */
export function sessionDir(home: string, sessionId: string): string {
  const root = path.join(home, 'sessions')
  for (const group of fs.readdirSync(root)) {
    const dir = path.join(root, group, sessionId)
    if (fs.existsSync(path.join(dir, LOG_FILE))) return dir
  }
  throw new Error(`no session ${sessionId} under ${root}`)
}

/**
 * Copy session `sourceId` of `fromHome` into `toHome` (the same group
 * directory) `count` times under fresh ids; returns the new ids. Files other
 * than the log and the sidecar (`session-tree/`) are copied with the id renamed.
 */
export function cloneSessions(fromHome: string, sourceId: string, toHome: string, count: number): string[] {
  const source = sessionDir(fromHome, sourceId)
  const group = path.join(toHome, 'sessions', path.basename(path.dirname(source)))
  const log = readSessionLog(path.join(source, LOG_FILE))
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const id = randomUUID()
    const dir = path.join(group, id)
    fs.mkdirSync(dir, { recursive: true })
    writeSessionLog(
      path.join(dir, LOG_FILE),
      renamed<SessionLogHeader>(log.header, sourceId, id),
      renamed<SessionLogEvent[]>([...log.events], sourceId, id),
    )
    for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
      if (entry.name === LOG_FILE) continue
      const from = path.join(source, entry.name)
      if (entry.isDirectory()) copySidecar(from, path.join(dir, entry.name), sourceId, id)
      else if (entry.isFile())
        fs.writeFileSync(path.join(dir, entry.name), fs.readFileSync(from, 'utf8').replaceAll(sourceId, id))
    }
    ids.push(id)
  }
  return ids
}

/**
 * Write a session of `events` (seq 0…, the shapes DSH logs, e.g. `bench/sync.ts` `harnessLog`) next to
 * session `seedId` of `home`, under a fresh id, with the seed's header and a `session/title` event
 * appended and its title in DSH's projection cache (the sidebar names it `title`); returns its id. It has no sidecar: the plugin projects its
 * tree from the log when the session is used.
 */
export function writeSession(home: string, seedId: string, events: readonly SessionLogEvent[], title: string): string {
  const seed = sessionDir(home, seedId)
  const header = readSessionLog(path.join(seed, LOG_FILE)).header
  const id = randomUUID()
  const dir = path.join(path.dirname(seed), id)
  fs.mkdirSync(dir, { recursive: true })
  // As DSH titles a session: from its first prompt.
  const first = events.find((e) => e.type === 'user/message')?.seq
  const titled: SessionLogEvent = {
    type: 'session/title',
    seq: events.length,
    time: Date.now(),
    data: { title, messageSeqs: first === undefined ? [] : [first], source: { kind: 'fallback' } },
  }
  const renamedHeader = renamed<SessionLogHeader>(header, seedId, id)
  writeSessionLog(path.join(dir, LOG_FILE), renamedHeader, [...events, titled])
  // The sidebar's title comes from DSH's projection cache, filled when DSH ran the session: filled here as it would be.
  const cacheFile = path.join(home, 'storages', PROJECTION_CACHE)
  const cache = JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { tables: { sessions: Record<string, unknown> } }
  cache.tables.sessions[id] = {
    identity: { createdAt: renamedHeader.createdAt, cwd: renamedHeader.cwd },
    rows: { title: { ver: 1, seq: titled.seq, val: title } },
  }
  fs.writeFileSync(cacheFile, JSON.stringify(cache, null, 2))
  return id
}

/** A home with one real session in it: its DSH_HOME, workspace, the session's id and the labelled node. */
export interface SeedSession {
  readonly home: string
  readonly work: string
  readonly sessionId: string
  readonly label: string
}

/**
 * Drive one real session in the running `dsh web` (two prompts against the fake LLM, a label, so
 * its sidecar has a journal); returns its id and the label.
 */
export async function driveSeed(web: WebProcess, work: string): Promise<Pick<SeedSession, 'sessionId' | 'label'>> {
  const { sessionId } = await web.api.createSession({ cwd: work })
  await web.api.promptAndWait(sessionId, 'first question')
  await web.api.promptAndWait(sessionId, 'second question')
  const node = await web.api.nodeWith(sessionId, 'first question')
  const label = 'seed-label'
  await web.api.remoteOk('sessionTree/label', { agentId: sessionId, nodeId: node.nodeId, label })
  return { sessionId, label }
}

/** `driveSeed` in a new home with the plugin added, `dsh web` stopped after it. */
export async function seedSession(tgz: string, llmUrl: string, prefix: string): Promise<SeedSession> {
  const home = tempDir(`${prefix}-home`)
  const work = fs.realpathSync(tempDir(`${prefix}-work`))
  await pluginAdd(home, 'web', tgz)
  const web = await startWeb({ home, cwd: work, llmUrl })
  try {
    return { home, work, ...(await driveSeed(web, work)) }
  } finally {
    await web.stop()
  }
}

/** A sidecar file and the access time it was set back to. */
export interface AgedFile {
  readonly file: string
  readonly atimeMs: number
}

/**
 * Set every sidecar file's access time (under each session's `session-tree/`)
 * before its modification time: on a `relatime` mount (Linux's default) the
 * next read of a file then moves its access time, so `sidecarFilesRead` tells
 * which files were read since.
 */
export function ageSidecars(home: string): AgedFile[] {
  const aged: AgedFile[] = []
  const at = new Date('2001-01-01T00:00:00Z')
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) {
        fs.utimesSync(full, at, fs.statSync(full).mtime)
        aged.push({ file: full, atimeMs: fs.statSync(full).atimeMs })
      }
    }
  }
  for (const group of fs.readdirSync(path.join(home, 'sessions'))) {
    for (const id of fs.readdirSync(path.join(home, 'sessions', group))) {
      const sidecar = path.join(home, 'sessions', group, id, SESSION_SIDECAR_DIR)
      if (fs.existsSync(sidecar)) walk(sidecar)
    }
  }
  return aged
}

/** The aged files read since `ageSidecars` (their access time moved). */
export function sidecarFilesRead(aged: readonly AgedFile[]): string[] {
  return aged.filter(({ file, atimeMs }) => fs.statSync(file).atimeMs !== atimeMs).map(({ file }) => file)
}
