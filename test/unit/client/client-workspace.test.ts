/**
 * The Tree tab's workspace logic, pure (src/client/workspace/model.ts): the
 * rows' markers, what a node changed, the bounded file list, the restore plan
 * as the preview shows it, and the per-conflict decisions that gate Apply.
 * The drawn result is checked in real Chromium (test/e2e/workspace-panel.test.ts).
 */
import { describe, expect, it } from 'vitest'
import type { FileAtNode, FilesAtNode, RestorePreview, RestoreResult, WorkspaceOverview } from '../../../src/types.ts'
import { DICTIONARIES, translator } from '../../../src/client/i18n.ts'
import {
  binarySides,
  canApply,
  clipLines,
  conflictChoices,
  decide,
  fileListView,
  FILES_PAGE,
  keepDecisions,
  knownError,
  markersOf,
  nodeChanges,
  planView,
  resultView,
  undecided,
  type Decisions,
} from '../../../src/client/workspace/model.ts'
import { WORKSPACE_EN } from '../../../src/client/workspace/strings.ts'

const file = (hash: string, size = 4) => ({ kind: 'file' as const, hash, size })
const overview = (nodes: Array<[string, string[]]>): WorkspaceOverview => ({
  status: { available: true, shellNote: '', maxFileBytes: 1 << 20, tracked: 0, interrupted: [], problems: [] },
  nodes: nodes.map(([nodeId, paths]) => ({ nodeId, paths })),
  restores: [],
})
const at = (nodeId: string | null, files: FileAtNode[]): FilesAtNode => ({ nodeId, files })

function preview(): RestorePreview {
  const entry = (path: string, action: 'create' | 'update' | 'delete', insertions: number, deletions: number) => ({
    path,
    action,
    current: file('c'),
    target: file('t'),
    insertions,
    deletions,
  })
  return {
    target: 'n9',
    snappedFrom: 'n8',
    plan: {
      target: 'n9',
      entries: [entry('src/z.ts', 'update', 3, 1), entry('a.txt', 'create', 2, 0), entry('old.txt', 'delete', 0, 5)],
      conflicts: [
        { ...entry('notes.txt', 'update', 1, 1), reason: 'changed-outside' },
        { ...entry('b.txt', 'delete', 0, 2), reason: 'unknown-since-checkpoint' },
      ],
      blocked: [{ path: 'big.bin', reason: 'target-not-checkpointed', current: file('x') }],
      stat: { files: 5, created: 1, updated: 2, deleted: 2, insertions: 6, deletions: 9 },
    },
    status: overview([]).status,
  }
}

describe('markers', () => {
  it('one count per node that changed files; an absorbed request lends its count to the row that draws it', () => {
    const markers = markersOf(
      overview([
        ['n3', ['a.txt']],
        ['n5', ['x', 'y']],
        ['n7', []],
        ['n2', ['r']],
      ]),
      new Set(['n2']),
      new Map([['n2', ['n3']]]),
    )
    expect([...markers]).toEqual([
      ['n3', 2],
      ['n5', 2],
    ])
    expect(markersOf(undefined, new Set(), new Map()).size).toBe(0)
  })

  it('the marker title reads in English and Chinese, singular and plural', () => {
    expect(translator('en')('ws.markerTitle', { count: 1 })).toBe('Changed 1 file (checkpointed)')
    expect(translator('en')('ws.markerTitle', { count: 3 })).toBe('Changed 3 files (checkpointed)')
    expect(translator('zh')('ws.markerTitle', { count: 3 })).toBe('改动了 3 个文件（已存检查点）')
    // Every workspace string is in both dictionaries.
    for (const key of Object.keys(WORKSPACE_EN)) {
      expect(DICTIONARIES.en[key as keyof typeof DICTIONARIES.en], key).toBeTruthy()
      expect(DICTIONARIES.zh[key as keyof typeof DICTIONARIES.zh], key).toBeTruthy()
    }
  })
})

describe('what a node changed', () => {
  it('added, changed, deleted and skipped (with the reason), from the states before and at the node', () => {
    const before = at('n1', [
      { path: 'kept.txt', state: file('k1'), differs: false },
      { path: 'gone.txt', state: file('g'), differs: false },
      { path: 'new.txt', state: { kind: 'absent' }, differs: true },
    ])
    const after = at('n2', [
      { path: 'kept.txt', state: file('k2', 9), differs: false },
      { path: 'gone.txt', state: { kind: 'absent' }, differs: false },
      { path: 'new.txt', state: file('n', 3), differs: false },
      { path: 'huge.log', state: { kind: 'skipped', reason: 'too-large', size: 9_000_000 }, differs: false },
      { path: 'brand.txt', state: file('b', 1), differs: false },
    ])
    expect(
      nodeChanges(['new.txt', 'kept.txt', 'gone.txt', 'huge.log', 'brand.txt', 'lost.txt', 'kept.txt'], before, after),
    ).toEqual([
      { path: 'brand.txt', kind: 'added', size: 1 },
      { path: 'gone.txt', kind: 'deleted' },
      { path: 'huge.log', kind: 'skipped', reason: 'too-large', size: 9_000_000 },
      { path: 'kept.txt', kind: 'changed', size: 9 },
      { path: 'lost.txt', kind: 'unknown' },
      { path: 'new.txt', kind: 'added', size: 3 },
    ])
  })
})

describe('files at a point', () => {
  const many: FileAtNode[] = Array.from({ length: 5000 }, (_, i) => ({
    path: `src/f${String(i).padStart(4, '0')}.ts`,
    state: file(`h${i}`),
    differs: i % 7 === 0,
  }))

  it('a 5,000-file workspace draws one page of rows; the filter counts what matches; absent files only when they differ now', () => {
    const view = fileListView(many, '', FILES_PAGE)
    expect(view).toMatchObject({ matching: 5000, total: 5000, more: 5000 - FILES_PAGE })
    expect(view.rows).toHaveLength(FILES_PAGE)
    const filtered = fileListView(many, '  F49 ', FILES_PAGE)
    expect(filtered.rows.map((f) => f.path)).toEqual(
      Array.from({ length: 100 }, (_, i) => `src/f49${String(i).padStart(2, '0')}.ts`),
    )
    expect(filtered).toMatchObject({ matching: 100, more: 0 })
    const absent = fileListView(
      [
        { path: 'a', state: { kind: 'absent' }, differs: false },
        { path: 'b', state: { kind: 'absent' }, differs: true },
        { path: 'c', differs: false },
      ],
      '',
      10,
    )
    expect(absent.rows.map((f) => f.path)).toEqual(['b', 'c'])
  })

  it('a long file is clipped to whole lines, and says so', () => {
    expect(clipLines('a\nb\nc\n', 3)).toEqual({ text: 'a\nb\nc\n', clipped: false })
    expect(clipLines('a\nb\nc\nd', 2)).toEqual({ text: 'a\nb\n', clipped: true })
    expect(clipLines('one line', 1)).toEqual({ text: 'one line', clipped: false })
  })
})

describe('binary files', () => {
  const bin = (hash: string, size: number) => ({ kind: 'file' as const, hash, size, binary: true })
  it('a plan row of a binary file carries both sides by size and hash, and no text counts matter', () => {
    const plan = planView({
      ...preview(),
      plan: {
        target: 'n9',
        entries: [
          {
            path: 'db.sqlite',
            action: 'update',
            current: bin('b'.repeat(64), 20),
            target: bin('a'.repeat(64), 10),
            insertions: 0,
            deletions: 0,
          },
          {
            path: 'new.png',
            action: 'delete',
            current: bin('c'.repeat(64), 5),
            target: { kind: 'absent' },
            insertions: 0,
            deletions: 0,
          },
          { path: 't.txt', action: 'update', current: file('d'), target: file('e'), insertions: 1, deletions: 1 },
        ],
        conflicts: [],
        blocked: [],
        stat: { files: 3, created: 0, updated: 2, deleted: 1, insertions: 1, deletions: 1 },
      },
    })
    expect(plan.rows.map((r) => [r.path, r.binary ?? null])).toEqual([
      ['db.sqlite', { from: { size: 20, hash: 'b'.repeat(64) }, to: { size: 10, hash: 'a'.repeat(64) } }],
      ['new.png', { from: { size: 5, hash: 'c'.repeat(64) } }],
      ['t.txt', null],
    ])
    expect(binarySides(file('x'), { kind: 'absent' })).toBeUndefined()
  })

  it("a node's binary change says so with its size", () => {
    const after = { nodeId: 'n2', files: [{ path: 'img.bin', state: bin('f'.repeat(64), 7), differs: false }] }
    expect(nodeChanges(['img.bin'], undefined, after as FilesAtNode)).toEqual([
      { path: 'img.bin', kind: 'added', size: 7, binary: true },
    ])
  })
})

describe('the restore plan and the decisions', () => {
  it('one row per file sorted by path, conflicts flagged, the stat over every row, blocked files apart', () => {
    const plan = planView(preview())
    expect(plan.rows.map((r) => [r.path, r.action, r.conflict ?? null])).toEqual([
      ['a.txt', 'create', null],
      ['b.txt', 'delete', 'unknown-since-checkpoint'],
      ['notes.txt', 'update', 'changed-outside'],
      ['old.txt', 'delete', null],
      ['src/z.ts', 'update', null],
    ])
    expect(plan.conflicts).toEqual(['b.txt', 'notes.txt'])
    expect(plan.stat).toEqual({ files: 5, insertions: 6, deletions: 9, created: 1, updated: 2, deleted: 2 })
    expect(plan.blocked).toEqual([{ path: 'big.bin', reason: 'target-not-checkpointed' }])
    expect(plan).toMatchObject({ target: 'n9', snappedFrom: 'n8', empty: false })
    const empty = planView({
      ...preview(),
      plan: {
        target: null,
        entries: [],
        conflicts: [],
        blocked: [],
        stat: { files: 0, created: 0, updated: 0, deleted: 0, insertions: 0, deletions: 0 },
      },
    })
    expect(empty.empty).toBe(true)
    expect(canApply(empty, new Map())).toBe(true)
  })

  it('Apply waits until every conflict is decided; the request carries exactly those decisions', () => {
    const plan = planView(preview())
    let decisions: Decisions = new Map()
    expect(canApply(plan, decisions)).toBe(false)
    expect(undecided(plan, decisions)).toEqual(['b.txt', 'notes.txt'])
    decisions = decide(decisions, 'notes.txt', 'keep')
    // An answer for a path that is not a conflict decides nothing.
    decisions = decide(decisions, 'a.txt', 'overwrite')
    expect(canApply(plan, decisions)).toBe(false)
    expect(undecided(plan, decisions)).toEqual(['b.txt'])
    decisions = decide(decisions, 'b.txt', 'overwrite')
    expect(canApply(plan, decisions)).toBe(true)
    expect(conflictChoices(plan, decisions)).toEqual([
      { path: 'b.txt', decision: 'overwrite' },
      { path: 'notes.txt', decision: 'keep' },
    ])
    // A changed mind is the last answer.
    expect(conflictChoices(plan, decide(decisions, 'notes.txt', 'overwrite'))).toContainEqual({
      path: 'notes.txt',
      decision: 'overwrite',
    })
  })

  it('a fresh preview keeps the answers for files still in conflict and drops the rest', () => {
    const decisions = decide(decide(new Map(), 'notes.txt', 'keep'), 'b.txt', 'overwrite')
    const next = planView({
      ...preview(),
      plan: {
        ...preview().plan,
        conflicts: [
          { ...preview().plan.conflicts[0]! },
          {
            path: 'new-conflict.txt',
            action: 'update',
            current: file('c'),
            target: file('t'),
            insertions: 1,
            deletions: 1,
            reason: 'changed-outside',
          },
        ],
      },
    })
    const kept = keepDecisions(next, decisions)
    expect([...kept]).toEqual([['notes.txt', 'keep']])
    expect(undecided(next, kept)).toEqual(['new-conflict.txt'])
  })

  it('reads a result', () => {
    const result: RestoreResult = {
      restore: 'both',
      target: 'n4',
      move: { cursor: 'n4' } as never,
      files: { id: 'r1', target: 'n4', created: ['a'], updated: ['b', 'c'], deleted: [], kept: ['d'], blocked: [] },
    }
    expect(resultView(result)).toEqual({
      target: 'n4',
      created: 1,
      updated: 2,
      deleted: 0,
      kept: ['d'],
      blocked: [],
      moved: true,
      none: false,
    })
    expect(
      resultView({
        restore: 'files',
        target: null,
        files: { id: 'r2', target: null, created: [], updated: [], deleted: [], kept: [], blocked: [] },
      }),
    ).toMatchObject({ moved: false, none: true })
    expect(knownError('WORKSPACE_CONFLICT')).toBe('WORKSPACE_CONFLICT')
    expect(knownError('SOMETHING_NEW')).toBeUndefined()
    expect(translator('zh')('ws.err.other', { code: 'X' })).toBe('恢复失败（X）。')
  })
})
