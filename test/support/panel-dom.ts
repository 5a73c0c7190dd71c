/**
 * React in jsdom for the panel tests: `act()` switched on, and what a test mounts (its roots, their
 * host elements, the controllers it made) unmounted and disposed after the test.
 */
import { act, type ReactElement } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, beforeAll } from 'vitest'
import { TreeController, type TreeRemote } from '../../src/client/controller.ts'

export interface PanelDom {
  /** A controller of session `s` over `remote` (no polling, no marks), disposed after the test. */
  controller(remote: TreeRemote): TreeController
  /** The controllers made so far in this test. */
  readonly controllers: readonly TreeController[]
  /** Render `element` into `slot` (default: `host`) with `host` (default: a new `<div>`) in the body; returns `host`. */
  render(element: ReactElement, host?: HTMLElement, slot?: Element): HTMLElement
}

export function panelDom(): PanelDom {
  const roots: Root[] = []
  const hosts: HTMLElement[] = []
  const controllers: TreeController[] = []
  beforeAll(() => {
    ;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true
  })
  afterEach(() => {
    for (const root of roots.splice(0)) act(() => root.unmount())
    for (const host of hosts.splice(0)) host.remove()
    for (const c of controllers.splice(0)) c.dispose()
  })
  return {
    controller(remote) {
      const made = new TreeController(async () => remote, 's', { intervalMs: 60_000, marks: false })
      controllers.push(made)
      return made
    },
    controllers,
    render(element, host = document.createElement('div'), slot = host) {
      document.body.append(host)
      hosts.push(host)
      const root = createRoot(slot)
      roots.push(root)
      act(() => root.render(element))
      return host
    },
  }
}
