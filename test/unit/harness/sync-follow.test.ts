/**
 * `TreeSync.follow`: the trees follow the harness's sessions through its events (created, each appended event,
 * disposed), with real harness sessions; a failure reaches the warning, never the harness.
 */
import { describe, expect, it } from 'vitest'
import { SessionTreeStore } from '../../../src/tree/index.ts'
import { TreeSync } from '../../../src/harness/sync.ts'
import type { HostListen } from '../../../src/harness/host.ts'
import { LogBuilder } from '../../support/log-builder.ts'

/** A host whose events the test fires by hand. */
function host() {
  const listeners = new Map<string, (...args: never[]) => unknown>()
  const listen = ((name: string, listener: (...args: never[]) => unknown) => {
    listeners.set(name, listener)
    return () => listeners.delete(name)
  }) as HostListen
  const fire = (name: string, ...args: unknown[]) => (listeners.get(name) as (...a: unknown[]) => unknown)(...args)
  return { listen, fire, names: () => [...listeners.keys()].sort() }
}

const viewOf = (sync: TreeSync, id: string) => sync.get(id)!.projector.tree.view()

describe('the trees follow the harness (TreeSync.follow)', () => {
  it('a created session gets its tree, each appended event is projected, a disposed one is let go', () => {
    const { listen, fire, names } = host()
    const sync = new TreeSync(new SessionTreeStore())
    const warnings: unknown[] = []
    sync.follow(listen, (error) => warnings.push(error))
    expect(names()).toEqual(['session/created', 'session/disposed', 'session/event'])

    const log = new LogBuilder('follow-1').userTurn('q1', 'a1')
    fire('session/created', log.session)
    expect(sync.get('follow-1')?.projector.tree.nodeCount).toBe(2)
    const before = log.events.length
    log.userTurn('q2', 'a2')
    for (const event of log.events.slice(before)) fire('session/event', log.session, event)
    // The same tree a fresh attach of the whole log builds.
    const fresh = new TreeSync(new SessionTreeStore())
    fresh.attach(log.session)
    expect(viewOf(sync, 'follow-1')).toEqual(viewOf(fresh, 'follow-1'))
    expect(viewOf(sync, 'follow-1').nodes).toHaveLength(4)

    // An event of a session it does not hold (created before the plugin listened): attached whole.
    const late = new LogBuilder('follow-2').userTurn('q', 'a')
    fire('session/event', late.session, late.events.at(-1))
    expect(sync.get('follow-2')?.projector.tree.nodeCount).toBe(2)

    fire('session/disposed', log.session)
    expect(sync.get('follow-1')).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it('a failure is warned about and never thrown into the harness', () => {
    const { listen, fire } = host()
    const sync = new TreeSync(new SessionTreeStore())
    const warnings: unknown[] = []
    sync.follow(listen, (error) => warnings.push(error))
    const broken = {
      id: 'broken',
      get events(): never {
        throw new Error('the log cannot be read')
      },
    }
    expect(() => fire('session/created', broken)).not.toThrow()
    expect(warnings).toHaveLength(1)
    expect(String(warnings[0])).toContain('the log cannot be read')
    expect(sync.get('broken')).toBeUndefined()
  })
})
