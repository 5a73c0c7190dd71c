/**
 * The pure parts of the tool companion: the compact tree outline the model
 * and `/tree` read, node lookup by id or label, the `/tree` grammar, and the
 * strict argument schemas.
 */
import { assertSupportedJsonSchema } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../../src/tree/index.ts'
import { parseTreeCommand, USAGE } from '../../../src/tool/command.ts'
import { findNodes, renderTree, resolveNode } from '../../../src/tool/render.ts'
import { ACTION_ARGUMENTS, checkArguments, parameterSchema, toolDefinition } from '../../../src/tool/tools.ts'
import { ACTIONS } from '../../../src/tool/prompt.ts'

/** q1 → a1 → q2 → a2, with a fork at a1 (alt: q2b → a2b); cursor on a2. */
function forkedTree() {
  const tree = new SessionTree('s')
  const id = (r: { ok: boolean; value?: { nodeId: string } }) => (r as { value: { nodeId: string } }).value.nodeId
  const q1 = id(tree.append({ role: 'user', content: 'Plan a trip' }, { nodeId: 'e1' }))
  const a1 = id(tree.append({ role: 'assistant', content: 'Where to?' }, { nodeId: 'e2' }))
  tree.append({ role: 'user', content: 'Rome' }, { nodeId: 'e3' })
  tree.append({ role: 'assistant', content: 'Rome is lovely in spring' }, { nodeId: 'e4' })
  tree.fork(a1, 'alt')
  tree.append({ role: 'user', content: 'Florence' }, { nodeId: 'e5' })
  tree.append({ role: 'assistant', content: 'Florence has the Uffizi' }, { nodeId: 'e6' })
  tree.jump('e4')
  return { tree, q1, a1 }
}

describe('renderTree', () => {
  it('outlines a forked conversation: ids, roles, text, indentation per fork, heads, labels, the cursor', () => {
    const { tree } = forkedTree()
    tree.label('e2', 'question')
    expect(renderTree(tree).lines).toEqual([
      'e1 user: Plan a trip',
      'e2 assistant: Where to? [label: question]',
      '  ↳ e3 user: Rome',
      '    e4 assistant: Rome is lovely in spring [head: main] ← cursor',
      '  ↳ e5 user: Florence',
      '    e6 assistant: Florence has the Uffizi [head: alt]',
    ])
  })

  it('is empty-safe', () => {
    expect(renderTree(new SessionTree('s')).lines).toEqual(['(empty: no messages yet)'])
  })

  it('collapses forks deeper than `depth`, but never the path to the cursor', () => {
    const { tree } = forkedTree()
    const rendered = renderTree(tree, { depth: 0 })
    expect(rendered.lines).toEqual([
      'e1 user: Plan a trip',
      'e2 assistant: Where to?',
      '  ↳ e3 user: Rome',
      '    e4 assistant: Rome is lovely in spring [head: main] ← cursor',
      '  ↳ e5 user: Florence (+1 node; heads: alt)',
    ])
    expect(rendered.abridged).toBe(true)
  })

  it('elides long runs to fit maxLines and keeps the cursor, labels and heads', () => {
    const tree = new SessionTree('s')
    for (let i = 1; i <= 200; i++)
      tree.append({ role: i % 2 ? 'user' : 'assistant', content: `message ${i}` }, { nodeId: `e${i}` })
    tree.label('e50', 'milestone')
    tree.jump('e120')
    const rendered = renderTree(tree, { maxLines: 20 })
    expect(rendered.lines.length).toBeLessThanOrEqual(21)
    expect(rendered.abridged).toBe(true)
    const text = rendered.lines.join('\n')
    expect(text).toContain('e1 user: message 1')
    expect(text).toContain('e50 assistant: message 50 [label: milestone]')
    expect(text).toContain('e120 assistant: message 120 ← cursor')
    expect(text).toContain('e200 assistant: message 200 [head: main]')
    expect(text).toMatch(/… \d+ more nodes …/)
  })

  it('stays bounded when everything is an anchor, still showing the cursor', () => {
    const tree = new SessionTree('s')
    for (let i = 1; i <= 100; i++) {
      tree.append({ role: 'user', content: `m${i}` }, { nodeId: `e${i}` })
      tree.label(`e${i}`, `l${i}`)
    }
    tree.jump('e99')
    const rendered = renderTree(tree, { maxLines: 10 })
    expect(rendered.lines.length).toBeLessThanOrEqual(12)
    expect(rendered.lines.some((line) => line.endsWith('← cursor'))).toBe(true)
    expect(rendered.lines.at(-1)).toMatch(/more lines cut/)
  })

  it('renders a subtree with `from` and clips long text to `width`', () => {
    const { tree } = forkedTree()
    expect(renderTree(tree, { from: 'e5', width: 10 }).lines).toEqual([
      'e5 user: Florence',
      'e6 assistant: Florence … [head: alt]',
    ])
  })

  it('marks injected prompts and tool exchanges with their own roles', () => {
    const tree = new SessionTree('s')
    tree.append(
      { role: 'user', content: 'Current runtime context: …' },
      { nodeId: 'e1', origin: { source: 'session', kind: 'plugin', injected: true } },
    )
    tree.append(null, {
      nodeId: 'e2',
      type: 'tool_call',
      content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: { path: 'a' } }],
    })
    expect(renderTree(tree).lines).toEqual([
      'e1 context: Current runtime context: …',
      'e2 tool: read({"path":"a"}) [head: main] ← cursor',
    ])
  })
})

describe('findNodes / resolveNode', () => {
  it('finds by label (exact first) and by text, case-insensitively, newest first', () => {
    const { tree } = forkedTree()
    tree.label('e6', 'florence plan')
    tree.label('e3', 'Florence')
    expect(findNodes(tree, 'florence').matches.map((n) => n.nodeId)).toEqual(['e3', 'e6', 'e5'])
    expect(findNodes(tree, 'florence', { by: 'label' }).matches.map((n) => n.nodeId)).toEqual(['e3', 'e6'])
    expect(findNodes(tree, 'UFFIZI', { by: 'text' }).matches.map((n) => n.nodeId)).toEqual(['e6'])
    expect(findNodes(tree, 'o', { limit: 2 })).toMatchObject({ total: 5 })
    expect(findNodes(tree, 'o', { limit: 2 }).matches).toHaveLength(2)
    expect(findNodes(tree, '   ').total).toBe(0)
  })

  it('resolves a node id, an exact label, or a unique case-insensitive label', () => {
    const { tree } = forkedTree()
    tree.label('e4', 'Rome answer')
    expect(resolveNode(tree, 'e4')).toBe('e4')
    expect(resolveNode(tree, ' Rome answer ')).toBe('e4')
    expect(resolveNode(tree, 'rome ANSWER')).toBe('e4')
    expect(resolveNode(tree, 'nope')).toBeUndefined()
    expect(resolveNode(tree, '')).toBeUndefined()
  })
})

describe('/tree grammar', () => {
  it('parses every form', () => {
    expect(parseTreeCommand('')).toEqual({ kind: 'list' })
    expect(parseTreeCommand('   ')).toEqual({ kind: 'list' })
    expect(parseTreeCommand(' list 3')).toEqual({ kind: 'list', depth: 3 })
    expect(parseTreeCommand(' jump e12')).toEqual({ kind: 'jump', node: 'e12' })
    expect(parseTreeCommand(' jump good answer')).toEqual({ kind: 'jump', node: 'good answer' })
    expect(parseTreeCommand(' jump "good answer"')).toEqual({ kind: 'jump', node: 'good answer' })
    expect(parseTreeCommand(' fork e12 my branch')).toEqual({ kind: 'fork', node: 'e12', branch: 'my branch' })
    expect(parseTreeCommand(' fork "good \\"one\\"" retry')).toEqual({
      kind: 'fork',
      node: 'good "one"',
      branch: 'retry',
    })
    expect(parseTreeCommand(' label e3 keep this')).toEqual({ kind: 'label', node: 'e3', text: 'keep this' })
    expect(parseTreeCommand(' label e3 --clear')).toEqual({ kind: 'label', node: 'e3', text: null })
    expect(parseTreeCommand(' back')).toEqual({ kind: 'back' })
    expect(parseTreeCommand(' FORWARD')).toEqual({ kind: 'forward' })
    expect(parseTreeCommand(' find rome')).toEqual({ kind: 'find', query: 'rome' })
    expect(parseTreeCommand(' summarize main')).toEqual({ kind: 'summarize', branch: 'main' })
    expect(parseTreeCommand(' help')).toEqual({ kind: 'help' })
  })

  it('takes the files along on a move with --both, --files only, and --overwrite for conflicts', () => {
    expect(parseTreeCommand(' jump e12 --both')).toEqual({ kind: 'jump', node: 'e12', files: 'both' })
    expect(parseTreeCommand(' jump --files "good answer"')).toEqual({
      kind: 'jump',
      node: 'good answer',
      files: 'files',
    })
    expect(parseTreeCommand(' fork e12 retry --both --overwrite')).toEqual({
      kind: 'fork',
      node: 'e12',
      branch: 'retry',
      files: 'both',
      overwrite: true,
    })
    expect(parseTreeCommand(' back --both')).toEqual({ kind: 'back', files: 'both' })
    expect(parseTreeCommand(' forward --files')).toEqual({ kind: 'forward', files: 'files' })
    // Contradictions and flags where they mean nothing are malformed.
    for (const bad of [
      ' jump e1 --both --files',
      ' jump e1 --overwrite',
      ' back --overwrite',
      ' find x --both',
      ' jump --both',
    ]) {
      expect(parseTreeCommand(bad), bad).toEqual(
        bad === ' find x --both' ? { kind: 'find', query: 'x --both' } : undefined,
      )
    }
  })

  it('rejects malformed input (the handler then prints the usage)', () => {
    for (const bad of [
      ' jump',
      ' fork e1',
      ' fork',
      ' label e1',
      ' back now',
      ' list x',
      ' frobnicate',
      ' jump "unterminated',
      ' fork "a b',
      ' help me',
    ]) {
      expect(parseTreeCommand(bad), bad).toBeUndefined()
    }
    expect(USAGE).toMatch(/^Usage:/)
  })
})

describe('the tree tool schema', () => {
  it('is one strict object in the registry subset: a required action enum, every other argument optional', () => {
    const schema = parameterSchema() as { properties: Record<string, { enum?: string[] }>; required: string[] }
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false, required: ['action'] })
    expect(() => assertSupportedJsonSchema(schema as never)).not.toThrow()
    expect(schema.properties.action!.enum).toEqual([...ACTIONS])
    expect(Object.keys(ACTION_ARGUMENTS)).toEqual([...ACTIONS])
    // Every argument an action takes is in the schema, and every argument of the schema is taken by some action.
    const taken = new Set(Object.values(ACTION_ARGUMENTS).flatMap((a) => [...a.required, ...a.optional]))
    expect(Object.keys(schema.properties).sort()).toEqual(['action', ...taken].sort())
  })

  it('lets only the read-only actions run beside other calls', () => {
    const definition = toolDefinition({} as never)
    for (const action of ACTIONS)
      expect(definition.isConcurrencySafe!({ action }), action).toBe(['list', 'find', 'compare'].includes(action))
    expect(definition.isConcurrencySafe!(undefined)).toBe(false)
  })

  it('checks arguments per action and says how to fix the call: no unknown keys (no session smuggled in), required, types, enums, ranges', () => {
    expect(checkArguments({ action: 'jump', node: 'e1' })).toEqual([])
    expect(checkArguments({ action: 'jump', node: 'e1', agentId: 'other' })).toEqual([
      'unknown argument "agentId"',
      'action "jump" needs "node"; may have "files", "summary", "text"',
    ])
    expect(checkArguments({ action: 'jump' })).toEqual([
      'missing "node"',
      'action "jump" needs "node"; may have "files", "summary", "text"',
    ])
    expect(checkArguments({ action: 'fork', node: 'e1' })).toEqual([
      'missing "branch"',
      'action "fork" needs "node", "branch"; may have "files", "summary", "text"',
    ])
    expect(checkArguments({ action: 'label', node: 'e1', text: 'x', files: 'both' })).toEqual([
      '"files" is not taken by "label"',
      'action "label" needs "node", "text"',
    ])
    expect(checkArguments({ action: 'jump', node: 3 })).toEqual(['"node" must be a string'])
    expect(checkArguments({ action: 'find', text: 'x', by: 'everything' })).toEqual([
      '"by" must be one of "any", "label", "text"',
    ])
    expect(checkArguments({ action: 'list', depth: 1.5 })).toEqual(['"depth" must be an integer from 0 to 8'])
    expect(checkArguments({ action: 'list', depth: 99 })).toEqual(['"depth" must be an integer from 0 to 8'])
    expect(checkArguments({ action: 'back', session: 's' })).toEqual([
      'unknown argument "session"',
      'action "back" may have "files"',
    ])
    expect(checkArguments({ action: 'label', node: 'e1', text: 'x'.repeat(3000) })).toEqual([
      '"text" must be at most 2000 characters',
    ])
    expect(checkArguments({ action: 'rewind', node: 'e1' })).toEqual([
      'unknown action "rewind"; it must be one of "list", "find", "compare", "jump", "fork", "back", "forward", "carry", "label", "summarize"',
    ])
    expect(checkArguments({ node: 'e1' })[0]).toMatch(/^missing "action"; it must be one of "list", /)
    expect(checkArguments(null)).toEqual(['arguments must be a JSON object'])
    expect(checkArguments(['x'])).toEqual(['arguments must be a JSON object'])
  })
})
