/**
 * The carry planner (src/workspace/carry.ts) on states alone: who changed a
 * file decides what happens to it; binary sides, a deletion against a change,
 * an unknown base and a merge over the size limit ask; a file neither branch
 * can checkpoint is blocked.
 */
import { describe, expect, it } from 'vitest'
import { hashOf } from '../../../src/workspace/blobs.ts'
import { carriedState, decisionsFor, planCarry } from '../../../src/workspace/carry.ts'
import { fileState, type FileState } from '../../../src/workspace/types.ts'

const texts = new Map<string, string>()
function file(text: string, binary = false): FileState & { kind: 'file' } {
  const bytes = Buffer.from(binary ? `${text}\0` : text)
  const state = fileState(bytes, hashOf(bytes), false) as FileState & { kind: 'file' }
  texts.set(state.hash, bytes.toString('utf8'))
  return state
}
const absent: FileState = { kind: 'absent' }

function plan(rows: Record<string, [FileState | undefined, FileState | undefined, FileState]>, maxFileBytes = 1 << 20) {
  return planCarry({
    paths: Object.keys(rows).sort(),
    baseOf: (p) => rows[p]![0],
    theirsOf: (p) => rows[p]![1],
    oursOf: (p) => rows[p]![2],
    textOf: (state) => (state.binary ? undefined : texts.get(state.hash)),
    stateOf: (text, exec) => {
      const bytes = Buffer.from(text)
      return fileState(bytes, hashOf(bytes), exec) as FileState & { kind: 'file' }
    },
    maxFileBytes,
    labels: { ours: 'mine', theirs: 'theirs' },
  })
}

describe('planCarry', () => {
  it('takes, keeps, merges and asks by who changed what', () => {
    const base = file('1\n2\n3\n4\n5\n')
    const result = plan({
      'only-theirs.txt': [base, file('1\n2\n3\n4\nFIVE\n'), base],
      'only-mine.txt': [base, base, file('ONE\n2\n3\n4\n5\n')],
      'untouched.txt': [base, base, base],
      'same-change.txt': [base, file('x\n'), file('x\n')],
      'both.txt': [base, file('1\n2\n3\n4\nFIVE\n'), file('ONE\n2\n3\n4\n5\n')],
      'overlap.txt': [base, file('1\nB\n3\n4\n5\n'), file('1\nb\n3\n4\n5\n')],
      'bin.dat': [file('a', true), file('b', true), file('c', true)],
      'deleted.txt': [base, absent, file('1\n2\n3\n4\n55\n')],
      'new-by-them.txt': [absent, file('new\n'), absent],
      'unknown-base.txt': [undefined, file('t\n'), file('o\n')],
      'big.txt': [undefined, { kind: 'skipped', reason: 'too-large', size: 9 }, file('o\n')],
    })
    const byPath = Object.fromEntries(result.entries.map((e) => [e.path, [e.action, e.reason ?? null]]))
    expect(byPath).toEqual({
      'only-theirs.txt': ['take', null],
      'only-mine.txt': ['kept', null],
      'same-change.txt': ['kept', null],
      'both.txt': ['merge', null],
      'overlap.txt': ['conflict', 'text'],
      'bin.dat': ['conflict', 'binary'],
      'deleted.txt': ['conflict', 'deleted-modified'],
      'new-by-them.txt': ['take', null],
      'unknown-base.txt': ['conflict', 'base-unknown'],
    })
    expect(result.blocked).toMatchObject([{ path: 'big.txt', reason: 'target-not-checkpointed' }])
    expect(result.contents.get('both.txt')).toBe('ONE\n2\n3\n4\nFIVE\n')
    const overlap = result.entries.find((e) => e.path === 'overlap.txt')!
    expect(decisionsFor(overlap)).toEqual(['mine', 'theirs', 'markers'])
    expect(carriedState(overlap, 'mine')).toBeUndefined()
    expect(carriedState(overlap, 'theirs')).toBe(overlap.theirs)
    expect(result.contents.get('overlap.txt')).toContain('<<<<<<< mine\nb\n=======\nB\n>>>>>>> theirs\n')
    expect(decisionsFor(result.entries.find((e) => e.path === 'bin.dat')!)).toEqual(['mine', 'theirs'])
  })

  it('a merge over the size limit is a conflict without markers', () => {
    const base = file('1\n2\n3\n4\n5\n')
    const result = plan({ 'a.txt': [base, file('1\n2\n3\n4\nFIVE\n'), file('ONE\n2\n3\n4\n5\n')] }, 12)
    expect(result.entries).toMatchObject([{ path: 'a.txt', action: 'conflict', reason: 'too-large' }])
    expect(result.contents.size).toBe(0)
  })
})
