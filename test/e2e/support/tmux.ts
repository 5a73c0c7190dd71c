/**
 * A terminal program driven in tmux, judged by its screen text: a private
 * tmux server (`-L <socket>`, no config file) runs one window of a given size;
 * `screen()` is `capture-pane -p -J -S -2000` (the scrollback joined), keys go
 * in with `send-keys`, and every wait polls the screen for a condition (never
 * a fixed sleep).
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'

const exec = promisify(execFile)

export interface TmuxOptions {
  readonly command: readonly string[]
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  readonly columns?: number
  readonly rows?: number
}

export interface Terminal {
  readonly socket: string
  /** The whole screen with its scrollback (up to 2,000 lines), wrapped lines joined. */
  screen(): Promise<string>
  /** Only what is on screen now. */
  visible(): Promise<string>
  /** Keys in tmux's names (`Enter`, `Escape`, `Up`, `M-t`, …). */
  keys(...keys: string[]): Promise<void>
  /** Text typed as it is (no key names). */
  type(text: string): Promise<void>
  /** Poll the screen until `test` holds; rejects with the last screen after `timeoutMs`. */
  until(
    test: (screen: string) => boolean,
    what: string,
    options?: { timeoutMs?: number; visible?: boolean },
  ): Promise<string>
  /** Poll until two captures a beat apart are the same (an answer finished revealing). */
  settled(what: string, options?: { timeoutMs?: number }): Promise<string>
  /** Whether the program still runs. */
  alive(): Promise<boolean>
  resize(columns: number, rows: number): Promise<void>
  kill(): Promise<void>
}

export async function startTerminal(options: TmuxOptions): Promise<Terminal> {
  const socket = `dst-${randomUUID().slice(0, 8)}`
  const tmux = (...args: string[]): Promise<{ stdout: string }> =>
    exec('tmux', ['-L', socket, '-f', '/dev/null', ...args], { env: options.env, maxBuffer: 64 * 1024 * 1024 })
  await tmux(
    'new-session',
    '-d',
    '-x',
    String(options.columns ?? 160),
    '-y',
    String(options.rows ?? 48),
    '-c',
    options.cwd,
    '--',
    ...options.command,
  )
  // Keep the window when the program exits, so its last screen can be read.
  await tmux('set-option', '-t', '0', 'remain-on-exit', 'on').catch(() => undefined)
  const capture = async (history: boolean): Promise<string> =>
    (await tmux('capture-pane', '-p', '-J', ...(history ? ['-S', '-2000'] : []), '-t', '0')).stdout
  return {
    socket,
    screen: () => capture(true),
    visible: () => capture(false),
    async keys(...keys) {
      for (const key of keys) await tmux('send-keys', '-t', '0', key)
    },
    async type(text) {
      await tmux('send-keys', '-t', '0', '-l', text)
    },
    async until(test, what, { timeoutMs = 60_000, visible = false } = {}) {
      const deadline = Date.now() + timeoutMs
      let last = ''
      for (;;) {
        last = await capture(!visible)
        if (test(last)) return last
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen:\n${last}`)
        await new Promise((resolve) => setTimeout(resolve, 150))
      }
    },
    async settled(what, { timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      let last = await capture(true)
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 400))
        const next = await capture(true)
        if (next === last) return next
        if (Date.now() > deadline) throw new Error(`the screen kept changing (${what}):\n${next}`)
        last = next
      }
    },
    async alive() {
      try {
        const { stdout } = await tmux('display-message', '-p', '-t', '0', '#{pane_dead}')
        return stdout.trim() === '0'
      } catch {
        return false
      }
    },
    async resize(columns, rows) {
      await tmux('resize-window', '-t', '0', '-x', String(columns), '-y', String(rows))
    },
    async kill() {
      await tmux('kill-server').catch(() => undefined)
    },
  }
}
