/**
 * `/tree compare` and the `tree` tool's compare through the real DSH runtime in
 * process (`test/support/tool-rig.ts`: real agent loop, tools, commands and
 * session; only the model is scripted, and its requests are recorded).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseTreeCommand } from '../../../src/tool/index.ts'
import { fileTools } from '../../support/file-tools.ts'
import { checkedRigs, transcript, type LoopRig, type ScriptEntry } from '../../support/tool-rig.ts'

const rig = checkedRigs()
const command = (r: LoopRig, line: string) =>
  (r.ctx as any).commands.execute(r.agent, line, [], new AbortController().signal)

/** Run a command that must succeed; its text, line by line. */
async function successLines(r: LoopRig, line: string): Promise<string[]> {
  const shown = (await command(r, line)).result
  expect(shown.kind).toBe('success')
  return (shown.text as string).split('\n')
}

async function nodeOf(r: LoopRig, text: string): Promise<string> {
  const node = (await r.service.list(r.sessionId)).nodes.find((n) => n.message?.content === text)
  if (!node) throw new Error(`no node ${JSON.stringify(text)}`)
  return node.nodeId
}

describe("/tree compare and the tree tool's compare", () => {
  it('parses two targets (quoted labels too) and refuses anything else', () => {
    expect(parseTreeCommand('compare main alt')).toEqual({ kind: 'compare', a: 'main', b: 'alt' })
    expect(parseTreeCommand('compare "good answer" e12')).toEqual({ kind: 'compare', a: 'good answer', b: 'e12' })
    expect(parseTreeCommand('compare main')).toBeUndefined()
    expect(parseTreeCommand('compare')).toBeUndefined()
    expect(parseTreeCommand('compare main alt --files')).toEqual({
      kind: 'compare',
      a: 'main',
      b: 'alt',
      files: 'files',
    })
    expect(parseTreeCommand('compare "a b" e2 --both')).toEqual({ kind: 'compare', a: 'a b', b: 'e2', files: 'both' })
    expect(parseTreeCommand('compare main --files')).toBeUndefined()
  })

  it('compares two branches\' workspace files for a person (--files) and for the model (files: "files")', async () => {
    const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'compare-files-')))
    try {
      const write = (file: string, content: string): ScriptEntry => ({
        calls: [{ name: 'write', args: { file_path: file, content } }],
      })
      const made = await rig(
        [
          write('a.txt', 'left\n'),
          write('only-left.txt', 'x\n'),
          { text: 'left done' },
          write('a.txt', 'right\n'),
          { text: 'right done' },
          { calls: [{ name: 'tree', args: { action: 'compare', node: 'main', other: 'alt', files: 'files' } }] },
          { text: 'Two files differ.' },
        ],
        { cwd: work, setup: (ctx) => fileTools(ctx, work) },
      )
      await made.say('the left')
      const start = await nodeOf(made, 'the left')
      const fork = await command(made, `/tree fork ${start} alt --both`)
      expect(fork.result.text).toContain('Moved: fork branch "alt"')
      await made.say('the right')
      const left = await nodeOf(made, 'left done')
      const right = await nodeOf(made, 'right done')
      const lines = await successLines(made, '/tree compare main alt --files')
      expect(lines[0]).toBe(`Files that differ between ${left} and ${right}: 2 of 2 tracked.`)
      expect(lines.slice(1).map((l) => l.replace(/ [0-9a-f]{8}/g, ' #'))).toEqual([
        '  a.txt: 5 B # → 6 B #',
        '  only-left.txt: 2 B # → absent',
      ])
      const both = (await command(made, '/tree compare main alt --both')).result.text as string
      expect(both.startsWith('Compare A ')).toBe(true)
      expect(both.endsWith(lines.join('\n'))).toBe(true)
      await made.say('compare the files')
      const request = made.model.requests.at(-1)!
      expect(transcript(request).some((line) => line.startsWith('tool: Files that differ between '))).toBe(true)
      expect(JSON.stringify(request.messages)).toContain('only-left.txt: 2 B')
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })

  it('compares two branches for a person and for the model, which reads the diff in its next request', async () => {
    const r = await rig([
      { text: 'The sea is calm.' },
      { text: 'I read the notes: the sea is calm at dawn.' },
      { text: 'I read the notes: the sea is stormy at dawn.' },
      { calls: [{ name: 'tree', args: { action: 'compare', node: 'main', other: 'alt' } }] },
      { text: 'They differ in one word.' },
    ])
    await r.say('Q1')
    await r.say('Read the notes')
    const fork = await command(r, `/tree fork ${await nodeOf(r, 'The sea is calm.')} alt`)
    expect(fork.result.text).toContain('Moved: fork branch "alt"')
    await r.say('Read the notes')
    const calm = await nodeOf(r, 'I read the notes: the sea is calm at dawn.')
    const stormy = await nodeOf(r, 'I read the notes: the sea is stormy at dawn.')
    const lines = await successLines(r, '/tree compare main alt')
    expect(lines[0]).toMatch(
      new RegExp(
        `^Compare A ${calm} \\(branch "main"\\) with B ${stormy} \\(branch "alt"\\): they part after e\\d+ \\(\\d+ nodes in common\\)\\.$`,
      ),
    )
    expect(lines).toContain(
      `~ ${calm} | ${stormy}  assistant: I read the notes: the sea is [-calm-]{+stormy+} at dawn.`,
    )
    expect(lines.some((line) => /^= e\d+ \| e\d+ {2}user: Read the notes$/.test(line))).toBe(true)
    // Unknown targets keep the tree's code.
    expect((await command(r, '/tree compare main nowhere')).result).toMatchObject({
      kind: 'error',
      text: expect.stringMatching(/^NODE_NOT_FOUND: no node, label or branch "nowhere"/),
    })
    // A name of any length is echoed clipped, with its length, as every tree error is.
    const long = (await command(r, `/tree compare main ${'x'.repeat(5_000)}`)).result
    expect(long).toMatchObject({ kind: 'error', text: expect.stringContaining('"… (5000 characters); list the tree') })
    expect(long.text.length).toBeLessThan(300)
    await r.say('Compare the branches')
    const request = transcript(r.model.requests.at(-1)!)
    expect(request.some((line) => line.startsWith(`tool: Compare A ${calm} (branch "main") with B `))).toBe(true)
    // The whole result (transcript lines show first lines only) reaches the model in its next request.
    expect(JSON.stringify(r.model.requests.at(-1)!.messages)).toContain(
      `~ ${calm} | ${stormy}  assistant: I read the notes: the sea is [-calm-]{+stormy+} at dawn.`,
    )
  })
})
