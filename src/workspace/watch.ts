/**
 * Which paths below a folder may have changed since we last asked, from
 * inotify (`fs.watch`), so a shell snapshot walks only those, or none. It only
 * narrows git's walk and answers `all` when it cannot vouch for the interval.
 * Why each rule holds: docs/workspace.md, "The change feed".
 */
import {
  closeSync,
  type FSWatcher,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  statfsSync,
  unlinkSync,
  watch,
} from 'node:fs'
import path from 'node:path'

/** What a feed can say about an interval: these root-relative paths (files or directories, each with its subtree), or anything. */
export type ChangedPaths =
  { readonly kind: 'paths'; readonly paths: readonly string[] } | { readonly kind: 'all'; readonly why: string }

export interface FeedLimits {
  /** Directories watched at the most (each is one inotify watch); over it at the start the feed stops, later it is renewed. */
  readonly maxDirs: number
  /** Events in one interval past which it is answered `all` (an overflowed kernel queue drops events silently in libuv). */
  readonly maxEvents: number
  /** Paths past which an interval is answered `all` (a walk of everything is then as cheap). */
  readonly maxPaths: number
  /** How long the cookie's event may take before the interval is answered `all`. */
  readonly cookieMs: number
}

export const FEED_LIMITS: FeedLimits = { maxDirs: 4_096, maxEvents: 1_024, maxPaths: 256, cookieMs: 1_000 }

/** File systems whose changes made elsewhere (another machine, a VM's host, a FUSE daemon) raise no inotify event. */
const REMOTE_FS = new Set([
  0x6969, // nfs
  0x517b, // smb
  0xff534d42, // cifs
  0xfe534d42, // smb2
  0x65735546, // fuse (sshfs, virtiofs, …)
  0x01021997, // 9p (WSL2's /mnt, VM shares)
  0x00c36400, // ceph
  0x5346414f, // afs
  0x6b414653, // kafs
  0x73757245, // coda
  0x01161970, // gfs2
  0x7461636f, // ocfs2
])

/** Why no feed can serve `root` on this system, or undefined when one can. */
export function feedUnavailable(root: string, limits: FeedLimits = FEED_LIMITS): string | undefined {
  if (process.platform !== 'linux') return 'change events are used on Linux only'
  try {
    if (REMOTE_FS.has(statfsSync(root).type)) return 'the folder is on a network or FUSE file system'
  } catch {
    return 'the folder’s file system could not be read'
  }
  try {
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim())
    if (!(queued >= 4 * limits.maxEvents)) return `the kernel's inotify queue holds only ${queued} events`
  } catch {
    return 'the kernel has no inotify'
  }
  return undefined
}

export interface FeedInit {
  /** The folder (absolute, resolved). */
  readonly root: string
  /** A directory of our own, outside what is watched, for the cookie files (created by the caller). */
  readonly cookieDir: string
  /** Root-relative directories never watched (those git ignores, the sidecar). */
  readonly skip: ReadonlySet<string>
  readonly limits?: FeedLimits
}

/** Cookie names are unique in the process (feeds of one session share a directory, a renewed feed starts again). */
let cookieSerial = 0

/**
 * Events libuv handed to any feed's watch in this process, retired ones included: the kernel queue is one per
 * process, so another feed's burst (or a moved-away directory's) can overflow it and drop this feed's events.
 */
let dispatched = 0

function installFailed(error: unknown): string {
  return `a watch could not be installed (${(error as NodeJS.ErrnoException).code ?? 'error'})`
}

/** One lstat, undefined when the path is gone or unreadable: it runs in event callbacks, where a throw would crash the host (safe-fs's lstatMaybe throws on EACCES). */
function lstatOrNone(abs: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(abs)
  } catch {
    return undefined
  }
}

/**
 * One folder's change feed. `start` installs a watch on every directory
 * (none followed through a link); from then on `take` ends an interval and
 * says what may have changed in it. The first interval after `start` is
 * always `all`: what changed while the watches were being installed is not
 * known.
 */
export class ChangeFeed {
  private readonly root: string
  private readonly cookieDir: string
  private readonly skip: ReadonlySet<string>
  private readonly limits: FeedLimits
  /** Root-relative directory → its watch. */
  private readonly dirs = new Map<string, FSWatcher>()
  private cookieWatch: FSWatcher | undefined
  private dirty = new Set<string>()
  private events = 0
  /** Why this interval is `all` (the first one, a watch that failed, the root itself moved…). */
  private whole: string | undefined = 'the first interval'
  /** Why the feed stopped for good (its watches are closed; every interval is `all`). */
  private stopped: string | undefined
  /** What the feed skips or watches no longer fits the folder (a `.gitignore`, the root replaced…): replace the feed. */
  private renew = false
  private readonly waiting = new Map<string, () => void>()
  private rootId: { readonly dev: number; readonly ino: number } | undefined
  /** Process-wide events at the latest reset. */
  private dispatchedAt = dispatched
  /** Watches of directories that moved away or vanished, kept open (counting only) until an interval passes without an event on them: closing one drops its queued events uncounted. */
  private readonly retired = new Map<FSWatcher, { hits: number }>()
  /**
   * Files with more than one name (hard links): a write through another name, in another directory or outside
   * the folder, raises no event here, so they are named in every interval.
   */
  private readonly linked = new Set<string>()

  constructor(init: FeedInit) {
    this.root = init.root
    this.cookieDir = init.cookieDir
    this.skip = init.skip
    this.limits = init.limits ?? FEED_LIMITS
  }

  /** Why every interval is `all` from now on, or undefined while the feed serves. */
  get stoppedBecause(): string | undefined {
    return this.stopped
  }

  /** A new feed should replace this one (see `renew`). */
  get outdated(): boolean {
    return this.renew
  }

  /** Watch the cookie directory and every directory below the root. */
  start(): void {
    try {
      this.cookieWatch = watch(this.cookieDir, { persistent: false }, (_event, name) => {
        dispatched++
        const done = name === null ? undefined : this.waiting.get(String(name))
        if (done !== undefined) done()
      })
      this.cookieWatch.on('error', () => this.stop('the cookie directory’s watch failed'))
      const st = lstatSync(this.root)
      this.rootId = { dev: st.dev, ino: st.ino }
      this.watchTree('')
    } catch (error) {
      this.stop(installFailed(error))
    }
  }

  /** End the interval: what may have changed since the previous `take` (or since `start`). */
  async take(): Promise<ChangedPaths> {
    if (this.stopped !== undefined) return { kind: 'all', why: this.stopped }
    const arrived = await this.cookie()
    // Read and reset in one step after the cookie: an event after it belongs to the next interval.
    const paths = [...new Set([...this.dirty, ...this.linked])]
    const events = Math.max(this.events, dispatched - this.dispatchedAt)
    const whole = this.whole
    this.dirty = new Set()
    this.events = 0
    this.dispatchedAt = dispatched
    this.whole = undefined
    for (const [watcher, seen] of this.retired) {
      if (seen.hits === 0) {
        watcher.close()
        this.retired.delete(watcher)
      } else seen.hits = 0
    }
    if (!arrived) return { kind: 'all', why: 'the cookie’s event did not come in time' }
    if (this.stopped !== undefined) return { kind: 'all', why: this.stopped }
    // Checked each time, not only on the root's own events: the watches would sit on a directory no longer there.
    if (!this.sameRoot()) {
      this.renew = true
      return { kind: 'all', why: 'the root itself changed' }
    }
    if (whole !== undefined) return { kind: 'all', why: whole }
    if (events >= this.limits.maxEvents) return { kind: 'all', why: `${events} change events` }
    if (paths.length > this.limits.maxPaths) return { kind: 'all', why: `${paths.length} changed paths` }
    return { kind: 'paths', paths: paths.sort() }
  }

  /** Close every watch. */
  close(): void {
    this.stop('closed')
  }

  private stop(why: string): void {
    this.stopped ??= why
    for (const watcher of this.dirs.values()) watcher.close()
    this.dirs.clear()
    for (const watcher of this.retired.keys()) watcher.close()
    this.retired.clear()
    this.cookieWatch?.close()
    this.cookieWatch = undefined
    for (const done of this.waiting.values()) done()
    this.waiting.clear()
  }

  /** Write a cookie and wait for its event (false after `cookieMs`). */
  private cookie(): Promise<boolean> {
    const name = `cookie-${process.pid}-${++cookieSerial}`
    const file = path.join(this.cookieDir, name)
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), this.limits.cookieMs)
      const finish = (arrived: boolean) => {
        clearTimeout(timer)
        this.waiting.delete(name)
        try {
          unlinkSync(file)
        } catch {
          /* not written */
        }
        resolve(arrived && this.stopped === undefined)
      }
      this.waiting.set(name, () => finish(true))
      try {
        closeSync(openSync(file, 'wx', 0o600))
      } catch {
        finish(false)
      }
    })
  }

  /** Watch `rel` and every directory below it (links are not followed; skipped directories are not entered). */
  private watchTree(rel: string, fromEvent = false): void {
    const pending = [rel]
    while (pending.length > 0) {
      const dir = pending.pop() as string
      if (this.dirs.has(dir) || this.skip.has(dir)) continue
      if (this.dirs.size >= this.limits.maxDirs) {
        if (fromEvent) {
          // A new directory (say, an ignored node_modules): a new feed asks git again what it skips.
          this.renew = true
          this.whole ??= `more than ${this.limits.maxDirs} directories`
        } else this.stop(`more than ${this.limits.maxDirs} directories`)
        return
      }
      const abs = dir === '' ? this.root : path.join(this.root, dir)
      // Watch before listing: a directory made in between is then both seen and listed.
      let watcher: FSWatcher
      try {
        watcher = watch(abs, { persistent: false, encoding: 'buffer' }, (event, name) => {
          const retired = this.retired.get(watcher)
          if (retired === undefined) this.note(dir, event, name)
          else {
            dispatched++
            retired.hits++
          }
        })
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // Gone (or no longer a directory) already: its parent's event names it.
        if (dir !== '' && (code === 'ENOENT' || code === 'ENOTDIR')) continue
        throw error
      }
      watcher.on('error', () => this.stop(`the watch of ${dir || 'the root'} failed`))
      this.dirs.set(dir, watcher)
      let entries
      try {
        entries = readdirSync(abs, { withFileTypes: true })
      } catch {
        // Gone already: its parent's event names it.
        continue
      }
      for (const entry of entries) {
        const child = dir === '' ? entry.name : `${dir}/${entry.name}`
        if (entry.isFile()) this.relink(child, lstatOrNone(path.join(abs, entry.name)))
        if (!entry.isDirectory() || entry.name === '.git') continue
        pending.push(child)
      }
    }
  }

  private note(dir: string, event: string, raw: Buffer | string | null): void {
    dispatched++
    if (this.stopped !== undefined) return
    this.events++
    if (raw === null) {
      if (dir === '') this.whole ??= 'an event without a name'
      else this.dirty.add(dir)
      return
    }
    const name = raw.toString()
    // A name that is not UTF-8 cannot be handed to git as a pathspec that matches it.
    if (typeof raw !== 'string' && !Buffer.from(name).equals(raw)) this.whole ??= 'a file name that is not UTF-8'
    // An event without a name of its own (a directory itself deleted or moved) carries its basename; below the root
    // its parent's event says so too, and the root itself is checked at every take.
    const child = dir === '' ? name : `${dir}/${name}`
    const stat = lstatOrNone(path.join(this.root, child))
    this.dirty.add(child)
    this.relink(child, stat)
    if (path.basename(child) === '.gitignore') {
      this.renew = true
      this.whole ??= 'a .gitignore changed'
    }
    if (event !== 'rename') return
    // A directory made, moved in, moved away or removed: its watches are redone.
    // Directories are watched top down, so a subtree is watched only under a watched directory.
    // A skipped directory below a path that moved or vanished: the .gitignore that skipped it may have gone with it.
    for (const rel of this.skip)
      if (rel.startsWith(`${child}/`)) {
        this.renew = true
        this.whole ??= 'a directory holding skipped directories moved'
        break
      }
    for (const rel of this.linked) if (rel.startsWith(`${child}/`)) this.linked.delete(rel)
    if (this.dirs.has(child))
      for (const rel of [...this.dirs.keys()])
        if (rel === child || rel.startsWith(`${child}/`)) {
          const gone = this.dirs.get(rel)
          if (gone !== undefined) this.retired.set(gone, { hits: 0 })
          this.dirs.delete(rel)
        }
    if (stat?.isDirectory() && path.basename(child) !== '.git') {
      try {
        this.watchTree(child, true)
      } catch (error) {
        this.stop(installFailed(error))
      }
    }
  }

  /** Keep `rel` among the linked files exactly while it is a file with more than one name (`stat`: its lstat now). */
  private relink(rel: string, stat: ReturnType<typeof lstatSync> | undefined): void {
    if (stat?.isFile() && stat.nlink > 1) this.linked.add(rel)
    else this.linked.delete(rel)
  }

  /** The root is still the directory first watched. */
  private sameRoot(): boolean {
    const now = lstatOrNone(this.root)
    return now !== undefined && now.isDirectory() && now.ino === this.rootId?.ino && now.dev === this.rootId?.dev
  }
}
