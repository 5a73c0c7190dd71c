import { describe, expect, it } from 'vitest'
import { SessionTree } from '../../src/tree/index.ts'

describe('smoke', () => {
  it('appends and jumps', () => {
    const tree = new SessionTree('s1')
    const a = tree.append({ role: 'user', content: 'hi' })
    expect(a.ok).toBe(true)
    const b = tree.append({ role: 'assistant', content: 'hello' })
    expect(b.ok && b.value.parentId).toBe(a.ok && a.value.nodeId)
    expect(tree.messages().map((m) => m.content)).toEqual(['hi', 'hello'])
    expect(process.version.startsWith('v22')).toBe(true)
  })
})
