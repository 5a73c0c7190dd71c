/**
 * What the plugin costs every model request, in bytes on the wire (issue 25):
 * the first request of a prompt from the real DSH agent loop, serialized by
 * DSH's own DeepSeek adapter, with the service and tool plugins against the
 * same loop without them. Bytes are deterministic, so this budget is a test;
 * `npm run bench` prints the same figures for the built `lib/`.
 */
import { describe, expect, it } from 'vitest'
import SessionTreeService from '../../../src/index.ts'
import * as treeTool from '../../../src/tool/index.ts'
import { ADDED_BYTES_BUDGET, firstRequest, wireCost } from '../../support/wire-cost.ts'

const plugins = { service: SessionTreeService, tool: treeTool }

describe('bytes the plugin adds to every request', () => {
  it(`stay within ${ADDED_BYTES_BUDGET} bytes: one tree tool and a short system-prompt section`, async () => {
    const cost = await wireCost(plugins)
    expect(cost.toolCount).toBe(1)
    expect(cost.added).toBe(cost.with - cost.without)
    // Where the bytes go: the tool definition, the prompt section, and the few bytes that join them in.
    expect(cost.tools + cost.system).toBeLessThanOrEqual(cost.added)
    expect(cost.added - cost.tools - cost.system).toBeLessThan(40)
    expect(cost.added).toBeLessThanOrEqual(ADDED_BYTES_BUDGET)
  })

  it('the request carries the tool as sent by DSH: name, description, a strict object schema with an action enum', async () => {
    const { body } = await firstRequest(plugins)
    const tools = (body.tools ?? []) as ReadonlyArray<{ function: { name: string; parameters: any } }>
    expect(tools.map((tool) => tool.function.name)).toEqual([treeTool.TREE_TOOL])
    const parameters = tools[0]!.function.parameters
    expect(parameters).toMatchObject({ type: 'object', required: ['action'], additionalProperties: false })
    expect(parameters.properties.action.enum).toEqual([...treeTool.ACTIONS])
    const system = body.messages.find((m) => m.role === 'system')
    expect(JSON.stringify(system)).toContain(JSON.stringify(treeTool.SYSTEM_PROMPT).slice(1, -1))
  })
})
