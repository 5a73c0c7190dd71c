/**
 * A stock switch over a real harness `Session` (a `LogBuilder` log): the projector fed from the
 * log, the `StockSwitcher` over it and a `FakeAgent` running its pre-step. The tests build the log
 * and make the moves; this is only the wiring they share.
 */
import { SessionProjector } from '../../src/harness/projector.ts'
import { StockSwitcher, type StockSwitcherOptions } from '../../src/surface/stock.ts'
import { SessionTree } from '../../src/tree/index.ts'
import { FakeAgent } from './fake-agent.ts'
import { LogBuilder } from './log-builder.ts'

export interface StockRig {
  readonly log: LogBuilder
  readonly projector: SessionProjector
  readonly switcher: StockSwitcher
  readonly agent: FakeAgent
  /** Project the log's events the projector has not seen yet. */
  sync(): void
  /** The id of the node whose message text is `text`. */
  byText(text: string): string
}

/** Three turns (`q1`/`a1`, `q2`/`a2` with one `read` of x.txt, `q3`/`a3`) in session `s1`. */
export function threeTurns(options: { context?: string } = {}): LogBuilder {
  return new LogBuilder('s1')
    .userTurn('q1', 'a1', options.context === undefined ? {} : { context: options.context })
    .userTurn('q2', 'a2', { tools: [{ name: 'read', args: { file_path: 'x.txt' }, result: 'file text' }] })
    .userTurn('q3', 'a3')
}

/** The rig over `log` (session `s1`), already synced; `options` replace the switcher's defaults. */
export function stockRig(log: LogBuilder, options: Partial<StockSwitcherOptions> = {}): StockRig {
  const projector = new SessionProjector(new SessionTree('s1'))
  const sync = () => {
    for (const e of log.events) projector.project(e)
  }
  sync()
  const switcher = new StockSwitcher({ trees: { get: () => ({ projector }) }, flush: async () => {}, ...options })
  const agent = new FakeAgent(log, (p, n) => switcher.preStep(p, n), sync)
  const byText = (text: string) => projector.tree.list().find((n) => n.message?.content === text)!.nodeId
  return { log, projector, switcher, agent, sync, byText }
}

/** A fresh projector (session `s1`) fed all of `events`: the tree a log alone rebuilds. */
export function rebuiltFrom(events: Iterable<unknown>): SessionProjector {
  const projector = new SessionProjector(new SessionTree('s1'))
  for (const e of events) projector.project(e)
  return projector
}
