/**
 * dsh-TUI's full-screen tree scene (`ctx.tuiScenes`): a thin component on the host's React over the pure
 * `scene-state.ts` and `scene-view.ts`; each action's `SceneEffect` runs on the service's in-process methods.
 * The outline is read again, as what changed, when the session's `revision` moves (at most every 250 ms).
 */
import type { SessionTreeService } from '../service/service.ts'
import type { SurfaceMode, SummaryChoice } from '../service/wire.ts'
import type { TreeMove } from '../service/tree-move.ts'
import type { RestoreRequest } from '../service/workspace-wire.ts'
import type { SessionTreeOutline } from '../tree/types.ts'
import { indexTree, layoutTree, OutlineReader, type TreeIndex } from '../outline/index.ts'
import { errorMessage, type TreeError } from '../tree/errors.ts'
import { canCarry } from '../tree/summary-rules.ts'
import type { HostKey, SceneProps } from './host.ts'
import { wrapPage } from './cells.ts'
import { tuiLang, word, type TuiLang } from './i18n.ts'
import {
  INITIAL_SCENE,
  keyPresses,
  press,
  settle,
  type RestoreLine,
  type SceneEffect,
  type SceneState,
  type SceneView,
} from './scene-state.ts'
import { compareLines, outlineHeight, renderFrame, type Line } from './scene-view.ts'

/** What the scene needs from the plugin. */
export interface SceneDeps {
  readonly service: SessionTreeService
  /** A text page to show when the scene opens (a text subcommand's output), taken once. */
  takePage(): { title: string; lines: string[] } | undefined
  /** Open a session in the terminal (the new session of "open as new session"). */
  readonly warn: (error: unknown) => void
}

interface Loaded {
  readonly outline: SessionTreeOutline
  readonly revision: string
  readonly mode?: SurfaceMode
}

/** The cells a text page's line may take: the frame's width less the last column (a terminal may wrap there). */
const pageWidth = (columns: number): number => Math.max(20, columns) - 1

/** The scene component, bound to the plugin's service. */
export function treeScene(deps: SceneDeps): (props: SceneProps) => unknown {
  return function SessionTreeScene({ React, ui, channel, close }: SceneProps): unknown {
    const h = React.createElement
    const { columns, rows } = ui.useTerminalSize()
    const lang = React.useMemo<TuiLang>(() => tuiLang(), [])
    const agentId = channel.agentId
    const [loaded, setLoaded] = React.useState<Loaded | undefined>(undefined)
    const [state, setState] = React.useState<SceneState>(() => {
      const page = deps.takePage()
      return page
        ? {
            ...INITIAL_SCENE,
            overlay: { kind: 'text', title: page.title, lines: wrapPage(page.lines, pageWidth(columns)), scroll: 0 },
          }
        : INITIAL_SCENE
    })
    const stateRef = React.useRef(state)
    stateRef.current = state
    const revisionRef = React.useRef<string | undefined>(undefined)
    const outlines = React.useMemo(() => new OutlineReader(), [agentId])
    const lastIndex = React.useRef<TreeIndex | undefined>(undefined)

    const load = React.useCallback(async (): Promise<void> => {
      if (agentId === undefined) return
      try {
        const status = deps.service.sessionOf(agentId)
        if (!status.ok) return setState((s) => ({ ...s, status: { text: failureText(status.error), error: true } }))
        const revision = status.value.revision ?? ''
        if (revision !== '' && revision === revisionRef.current) return
        const read = await outlines.read((since) => deps.service.outlineChangesOf(agentId, since))
        if (read === undefined) throw new Error('outlineChanges: an answer that does not fit')
        if (!read.ok) return setState((s) => ({ ...s, status: { text: failureText(read.error), error: true } }))
        revisionRef.current = revision
        const mode = status.value.surfaceMode
        setLoaded({ outline: read.value, revision, ...(mode ? { mode } : {}) })
      } catch (error) {
        setState((s) => ({ ...s, status: { text: errorMessage(error), error: true } }))
      }
    }, [agentId, outlines])

    React.useEffect(() => {
      void load()
      let timer: ReturnType<typeof setTimeout> | undefined
      const unsubscribe = channel.subscribe(() => {
        if (timer !== undefined) return
        timer = setTimeout(() => {
          timer = undefined
          void load()
        }, 250)
      })
      return () => {
        unsubscribe()
        if (timer !== undefined) clearTimeout(timer)
      }
    }, [load])

    const index = React.useMemo(() => {
      if (!loaded) return undefined
      lastIndex.current = indexTree(loaded.outline, lastIndex.current)
      return lastIndex.current
    }, [loaded])
    const layout = React.useMemo(
      () => (index ? layoutTree(index, { filter: state.filter, query: state.query, folded: state.folded }) : undefined),
      [index, state.filter, state.query, state.folded],
    )
    const height = outlineHeight(columns, rows)
    const view: SceneView | undefined = index && layout ? { index, layout, height } : undefined

    // The first outline selects "you are here"; later ones keep the selection in the window. The frame
    // drawn before that effect lands reads the same settled state, so no frame shows the outline unselected.
    const settled = (s: SceneState): SceneState =>
      view ? settle(s.selected === null && index?.view.cursor ? { ...s, selected: index.view.cursor } : s, view) : s
    React.useEffect(() => {
      if (view) setState(settled)
    }, [layout, height])

    const run = React.useCallback(
      async (effect: SceneEffect): Promise<void> => {
        if (effect.kind === 'close') {
          close()
          return
        }
        if (agentId === undefined) {
          setState((s) => ({ ...s, status: { text: word(lang, 'no-agent'), error: true } }))
          return
        }
        setState((s) => ({ ...s, busy: true, status: null }))
        try {
          const outcome = await perform(deps.service, agentId, effect, loaded?.mode, lang, columns)
          if (outcome.kind === 'failed') {
            setState((s) => ({ ...s, busy: false, status: { text: outcome.text, error: true } }))
            return
          }
          if (outcome.kind === 'switch-session') {
            setState((s) => ({ ...s, busy: false }))
            close()
            await channel.resumeTo?.(outcome.sessionId)
            return
          }
          revisionRef.current = undefined
          await load()
          setState((s) => ({
            ...s,
            busy: false,
            ...(outcome.select === undefined ? {} : { selected: outcome.select }),
            status: outcome.status === undefined ? null : { text: outcome.status, error: false },
            ...(outcome.overlay ? { overlay: outcome.overlay } : {}),
          }))
        } catch (error) {
          setState((s) => ({ ...s, busy: false, status: { text: errorMessage(error), error: true } }))
        }
      },
      [agentId, loaded, lang, columns, load],
    )

    ui.useInput((input: string, key: HostKey) => {
      const current = settled(stateRef.current)
      if (key.ctrl && input === 'c') {
        close()
        return
      }
      const frameView: SceneView = view ?? {
        index: indexTree({ sessionId: '', cursor: null, activeBranch: '', nodes: [], branches: [] }),
        layout: { rows: [], indexOf: new Map(), total: 0, shown: 0 },
        height,
      }
      let next = current
      for (const [text, pressed] of keyPresses(input, key)) {
        const step = press(next, frameView, text, pressed)
        next = step.state
        if (step.effect) void run(step.effect)
      }
      if (next !== current) {
        stateRef.current = next
        setState(next)
      }
    })

    const frame = renderFrame({
      index,
      layout,
      state: settled(state),
      columns,
      rows,
      lang,
      loading: loaded === undefined,
    })
    return h(
      ui.Box,
      { flexDirection: 'column', width: columns, height: rows },
      ...frame.lines.map((line: Line, i: number) =>
        h(
          ui.Text,
          { key: i, wrap: 'truncate' },
          ...line.map((segment, j) =>
            h(
              ui.Text,
              {
                key: j,
                ...(segment.color ? { color: segment.color } : {}),
                ...(segment.bold ? { bold: true } : {}),
                ...(segment.dim ? { dimColor: true } : {}),
                ...(segment.inverse ? { inverse: true } : {}),
              },
              segment.text,
            ),
          ),
        ),
      ),
    )
  }
}

type Outcome =
  | {
      readonly kind: 'done'
      readonly status?: string
      readonly select?: string | null
      readonly overlay?: SceneState['overlay']
    }
  | { readonly kind: 'switch-session'; readonly sessionId: string }
  /** A call the service refused (`CODE: message`); nothing changed. */
  | { readonly kind: 'failed'; readonly text: string }

/** A failure as the status line shows it: `CODE: message`. */
const failureText = (error: TreeError): string => `${error.code}: ${error.message}`
const failed = (error: TreeError): Outcome => ({ kind: 'failed', text: failureText(error) })

function summaryOption(
  effect: { summary: 'none' | 'summarize' | 'custom'; instructions?: string },
  mode: SurfaceMode | undefined,
): { summary?: SummaryChoice } {
  if (effect.summary === 'none') return {}
  // As the Tree tab does: a summary chosen by a person is carried into the new path, except in projection mode.
  const carry = canCarry(mode) ? { carry: true } : {}
  const summary: SummaryChoice =
    effect.summary === 'custom'
      ? { kind: 'custom', instructions: effect.instructions ?? '', ...carry }
      : { kind: 'summarize', ...carry }
  return { summary }
}

async function perform(
  service: SessionTreeService,
  agentId: string,
  effect: Exclude<SceneEffect, { kind: 'close' }>,
  mode: SurfaceMode | undefined,
  lang: TuiLang,
  columns: number,
): Promise<Outcome> {
  switch (effect.kind) {
    case 'jump':
    case 'fork':
    case 'back':
    case 'forward': {
      const move: TreeMove =
        effect.kind === 'jump'
          ? { kind: 'jump', nodeId: effect.nodeId, ...summaryOption(effect, mode) }
          : effect.kind === 'fork'
            ? { kind: 'fork', nodeId: effect.nodeId, branch: effect.branch, ...summaryOption(effect, mode) }
            : { kind: effect.kind }
      const moved = await service.move(agentId, move)
      if (!moved.ok) return failed(moved.error)
      const cursor = moved.value.move?.cursor ?? null
      const status =
        move.kind === 'fork'
          ? `${word(lang, 'forked')} ${moved.value.move?.branch ?? move.branch} @ ${cursor}`
          : `${word(lang, 'moved')} ${cursor ?? '—'}`
      return { kind: 'done', status, select: cursor }
    }
    case 'label': {
      const labeled = await service.setLabel(agentId, effect.nodeId, effect.text)
      if (!labeled.ok) return failed(labeled.error)
      return { kind: 'done', status: `${word(lang, effect.text === null ? 'unlabeled' : 'labeled')} ${effect.nodeId}` }
    }
    case 'summarize': {
      const summary = await service.summarizeBranch(agentId, effect.branch)
      if (!summary.ok) return failed(summary.error)
      return {
        kind: 'done',
        status: word(lang, 'summarized'),
        overlay: {
          kind: 'text',
          title: `${word(lang, 'key.summarize')} · ${effect.branch}`,
          lines: wrapPage(summary.value.summary.split('\n'), pageWidth(columns)),
          scroll: 0,
        },
      }
    }
    case 'compare': {
      const result = service.compareOf(agentId, effect.a, effect.b)
      if (!result.ok) return failed(result.error)
      return {
        kind: 'done',
        overlay: {
          kind: 'text',
          title: word(lang, 'compare.title'),
          lines: compareLines(result.value, columns, lang),
          scroll: 0,
        },
      }
    }
    case 'new-session': {
      const opened = await service.openNewSession(agentId, effect.nodeId)
      if (!opened.ok) return failed(opened.error)
      return { kind: 'switch-session', sessionId: opened.value.sessionId }
    }
    // The files half of a move: the restore preview, then the restore with each conflict decided. Where carrying
    // files across branches and a file's diff (`restoreDiff`) join the scene: a `RestoreLine` gets its diff here,
    // and `scene-state.ts` `pressRestore` a key to open it.
    case 'restore-preview': {
      const request: RestoreRequest = { move: { kind: 'jump', nodeId: effect.nodeId }, restore: effect.files }
      const found = await service.restorePreviewOf(agentId, request)
      if (!found.ok) return failed(found.error)
      const preview = found.value
      const lines: RestoreLine[] = [
        ...preview.plan.entries.map((e) => ({
          path: e.path,
          action: e.action,
          conflict: false,
          stat: `+${e.insertions} −${e.deletions}`,
        })),
        ...preview.plan.conflicts.map((c) => ({ path: c.path, action: c.action, conflict: true })),
        ...preview.plan.blocked.map((b) => ({ path: b.path, action: '—', conflict: false, blocked: b.reason })),
      ]
      return {
        kind: 'done',
        overlay: { kind: 'restore', nodeId: effect.nodeId, files: effect.files, lines, decisions: {}, index: 0 },
      }
    }
    case 'restore': {
      const restored = await service.move(agentId, {
        kind: 'jump',
        nodeId: effect.nodeId,
        files: effect.files,
        conflicts: Object.entries(effect.decisions).map(([path, decision]) => ({ path, decision })),
      })
      if (!restored.ok) return failed(restored.error)
      const { target } = restored.value
      return { kind: 'done', status: `${word(lang, 'restored')} → ${target ?? '—'}`, select: target }
    }
  }
}
