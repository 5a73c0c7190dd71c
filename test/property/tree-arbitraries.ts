/**
 * What the property tests feed the tree: operation shapes with valid and
 * invalid inputs (nodes, names, labels, ids chosen from pools or made up),
 * the fast-check arbitraries that draw them, and the ways a valid snapshot is
 * corrupted for the snapshot-validation property.
 */
import fc from 'fast-check'
import type { JsonValue, Role } from '../../src/tree/index.ts'

/**
 * What the generator exercises. Each switch names inputs that reached a defect
 * in src/tree while these tests were written (see tree-regressions.test.ts). They stay on; turning one off lets the long runs look past a defect
 * while it is open.
 */
export const EXERCISE = {
  /** `attachToolResult` on tool-call nodes (key order of the merged message breaks byte-identical round trips). */
  attach: true,
  /** Branch names `__proto__` (lost by a `branchHeads` record) and integer-like names (reordered by a restore). */
  exoticBranchNames: true,
  /** Rolling back to a checkpoint made stale by an earlier rollback, or made by another tree. */
  staleCheckpoints: true,
  /** Usage keys and costs that a rollback removes entirely (info() keeps zeros). */
  rollbackUsage: true,
  /** Tool calls that reuse a call id (the call-id index goes wrong after rollback and label). */
  duplicateCallIds: true,
}

export const SESSION = 'prop-session'
export const CONTROL = /[\u0000-\u001f\u007f]/
export const MAX_BRANCH = 100
export const MAX_LABEL = 200
export const MAX_ID = 200

// ----------------------------------------------------------------- op shapes

/**
 * Chooses a node: by index among all nodes or the 16 newest, an ancestor a few
 * steps above the cursor (a retry), an unknown id, or a malformed id.
 */
export type NodeChoice =
  | { readonly kind: 'node'; readonly recent: boolean; readonly i: number }
  | { readonly kind: 'up'; readonly i: number }
  | { readonly kind: 'unknown'; readonly i: number }
  | { readonly kind: 'bad'; readonly i: number }

/** Chooses a branch name or label: an existing one, one from a pool, a fresh one, or an invalid one. */
export type NameChoice =
  | { readonly kind: 'existing'; readonly i: number }
  | { readonly kind: 'pool'; readonly i: number }
  | { readonly kind: 'fresh' }
  | { readonly kind: 'bad'; readonly i: number }

export type Op =
  | {
      readonly k: 'append'
      readonly role: Role
      readonly text: string
      readonly parent: 'cursor' | 'null' | NodeChoice
      readonly branch?: NameChoice
      readonly label?: NameChoice
      readonly id?: 'fresh' | 'minted-like' | 'dup' | 'bad'
      readonly usage?: { readonly inputTokens: number; readonly outputTokens: number; readonly rare: boolean }
      readonly cost?: number
      readonly origin?: boolean
      readonly withCallPart?: boolean
    }
  | { readonly k: 'toolCall'; readonly dupCall: boolean; readonly name: string; readonly args: JsonValue }
  | {
      /** A compaction entry replacing `count` ancestors starting `skip` steps above the cursor. */
      readonly k: 'compact'
      readonly skip: number
      readonly count: number
      readonly withMessage: boolean
      /** Also name a node off the path (or a malformed id): refused. */
      readonly stranger?: NodeChoice
    }
  | {
      readonly k: 'attach'
      readonly call: { readonly kind: 'known'; readonly i: number } | { readonly kind: 'unknown' }
      readonly text: string
      readonly isError: boolean
      readonly badContent: boolean
      /** Name the issuing node explicitly: the right one, the one that issued another call, or any node. */
      readonly byNode?: 'right' | 'older' | NodeChoice
    }
  | {
      readonly k: 'jump'
      readonly target: 'null' | NodeChoice | { readonly label: NameChoice } | { readonly branch: NameChoice }
      readonly record: boolean
    }
  | { readonly k: 'fork'; readonly target: NodeChoice; readonly name?: NameChoice }
  | { readonly k: 'branch'; readonly target: NodeChoice; readonly name: NameChoice }
  | {
      readonly k: 'branchWithSummary'
      readonly target: NodeChoice
      readonly summary: string
      readonly name?: NameChoice
    }
  | { readonly k: 'switch'; readonly name: NameChoice }
  | { readonly k: 'select'; readonly target: 'null' | NodeChoice }
  | { readonly k: 'label'; readonly target: NodeChoice; readonly text: NameChoice | null }
  | { readonly k: 'setSummary'; readonly name: NameChoice; readonly text: string; readonly model?: string }
  | { readonly k: 'back' }
  | { readonly k: 'forward' }
  | { readonly k: 'checkpoint' }
  | { readonly k: 'rollback'; readonly i: number }
  | { readonly k: 'rollbackStale'; readonly i: number }
  | { readonly k: 'rollbackForeign' }
  | { readonly k: 'replayGarbage'; readonly kind: number }
  /** Forget the log up to `back` entries before the end (a sidecar persisted it). */
  | { readonly k: 'trimLog'; readonly back: number }

export const BRANCH_POOL = [
  'feature',
  'retry',
  'alt',
  'x',
  'main',
  'main-2',
  ' padded ',
  'a b',
  'é-ünï 分支',
  'constructor',
  'toString',
]
export const EXOTIC_BRANCH_POOL = ['__proto__', '10', '2', '007']
export const BAD_BRANCH = ['', '   ', '\t\n ', 'a\u0001b', 'x'.repeat(MAX_BRANCH + 1)]
export const LABEL_POOL = ['start', 'bug', 'good answer', ' spaced ', '1', 'constructor', '__proto__', 'ünï']
export const BAD_LABEL = ['', '  ', '\n', 'bell\u0007', 'y'.repeat(MAX_LABEL + 1)]
export const BAD_IDS = ['', ' padded', 'tab\tid', 'z'.repeat(MAX_ID + 1)]

export const nat = fc.nat({ max: 1_000_000 })
export const nodeChoice: fc.Arbitrary<NodeChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('node' as const), recent: fc.boolean(), i: nat }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('up' as const), i: nat }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unknown' as const), i: nat }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad' as const), i: nat }) },
)
export const nameChoice: fc.Arbitrary<NameChoice> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('existing' as const), i: nat }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('pool' as const), i: nat }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'fresh' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad' as const), i: nat }) },
)
export const text = fc.string({ maxLength: 24 })
/** Present about one time in `1 + weight`. */
export const rarely = <T>(arb: fc.Arbitrary<T>, weight = 4): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb })
export const role = fc.constantFrom<Role>('user', 'assistant', 'user', 'assistant', 'system')
export const jsonArgs: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.record({ path: fc.string({ maxLength: 8 }), n: fc.integer() }),
  fc.string({ maxLength: 8 }),
)

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 70,
    arbitrary: fc.record({
      k: fc.constant('append' as const),
      role,
      text,
      parent: fc.oneof(
        { weight: 50, arbitrary: fc.constant('cursor' as const) },
        { weight: 1, arbitrary: fc.constant('null' as const) },
        { weight: 4, arbitrary: nodeChoice },
      ),
      branch: rarely(nameChoice, 6),
      label: rarely(nameChoice, 3),
      id: rarely(fc.constantFrom('fresh' as const, 'minted-like' as const, 'dup' as const, 'bad' as const), 3),
      usage: rarely(
        fc.record({
          inputTokens: fc.nat({ max: 5000 }),
          outputTokens: fc.nat({ max: 5000 }),
          rare: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
        2,
      ),
      cost: rarely(
        fc.nat({ max: 40 }).map((n) => n / 4),
        3,
      ),
      origin: fc.boolean(),
      withCallPart: fc.boolean(),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      k: fc.constant('toolCall' as const),
      dupCall: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      name: fc.constantFrom('ls', 'read', 'bash'),
      args: jsonArgs,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('compact' as const),
      skip: fc.nat({ max: 6 }),
      count: fc.integer({ min: 1, max: 6 }),
      withMessage: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      stranger: rarely(nodeChoice, 5),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('attach' as const),
      call: fc.oneof(
        { weight: 6, arbitrary: fc.record({ kind: fc.constant('known' as const), i: nat }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
      ),
      text,
      isError: fc.boolean(),
      badContent: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      byNode: rarely(fc.oneof(fc.constant('right' as const), fc.constant('older' as const), nodeChoice), 2),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('jump' as const),
      target: fc.oneof(
        { weight: 6, arbitrary: nodeChoice },
        { weight: 1, arbitrary: fc.constant('null' as const) },
        { weight: 2, arbitrary: fc.record({ label: nameChoice }) },
        { weight: 2, arbitrary: fc.record({ branch: nameChoice }) },
      ),
      record: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ k: fc.constant('fork' as const), target: nodeChoice, name: rarely(nameChoice, 1) }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('branch' as const), target: nodeChoice, name: nameChoice }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('branchWithSummary' as const),
      target: nodeChoice,
      summary: fc.oneof(text, fc.constantFrom('', '   ')),
      name: rarely(nameChoice, 1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('switch' as const), name: nameChoice }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('select' as const),
      target: fc.oneof(fc.constant('null' as const), nodeChoice),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      k: fc.constant('label' as const),
      target: nodeChoice,
      text: fc.oneof({ weight: 4, arbitrary: nameChoice }, { weight: 1, arbitrary: fc.constant(null) }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('setSummary' as const),
      name: nameChoice,
      text: fc.oneof(text, fc.constantFrom('', ' ')),
      model: rarely(fc.constantFrom('deepseek-chat', 'deepseek-reasoner'), 1),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ k: 'back' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'forward' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'checkpoint' as const }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('rollback' as const), i: nat }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('rollbackStale' as const), i: nat }) },
  { weight: 1, arbitrary: fc.constant({ k: 'rollbackForeign' as const }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('replayGarbage' as const), kind: fc.nat({ max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('trimLog' as const), back: fc.nat({ max: 60 }) }) },
)

// ----------------------------------------------------------------- snapshot corruptions

export type Corruption =
  | { readonly k: 'version'; readonly value: unknown }
  | { readonly k: 'foreignSession' }
  | { readonly k: 'nonObject'; readonly value: unknown }
  | { readonly k: 'cursor' }
  | { readonly k: 'branchHead'; readonly i: number }
  | { readonly k: 'selection' }
  | { readonly k: 'history'; readonly forward: boolean }
  | { readonly k: 'summaryNode' }
  | { readonly k: 'summaryBranch' }
  | { readonly k: 'badField'; readonly field: keyof typeof BAD_FIELDS; readonly v: number }

export const MISSING = Symbol('missing')
/** Invalid values per top-level snapshot field. */
export const BAD_FIELDS = {
  nodes: [MISSING, null, 'x', {}],
  /** The branch-heads field, whatever the format names it (see `headsField`). */
  heads: [MISSING, null, 'x', 5, 'FORMAT_SPECIFIC_1', 'FORMAT_SPECIFIC_2', 'FORMAT_SPECIFIC_3', 'FORMAT_SPECIFIC_4'],
  summaries: [MISSING, null, 'x', {}, [{}]],
  history: [MISSING, null, {}, { back: [], forward: 'x' }, [], { back: [{ cursor: 5, branch: 'main' }], forward: [] }],
  logSeq: [MISSING, -1, 1.5, '3', null],
  activeBranch: [MISSING, '', '  ', 5, 'tab\tname'],
  cursor: [5, ''],
  selectedNodeId: [5, ''],
  clonedFrom: [null, 'x', { sessionId: 5, nodeId: null }],
} as const

export const corruptionArb: fc.Arbitrary<Corruption> = fc.oneof(
  fc.record({
    k: fc.constant('version' as const),
    value: fc.constantFrom(0, 1, 2, 3, '1', '2', null, undefined, 1.5, true),
  }),
  fc.constant({ k: 'foreignSession' as const }),
  fc.record({
    k: fc.constant('nonObject' as const),
    value: fc.constantFrom(null, 42, 'snapshot', true, [], [1, 2], 'WRAP_IN_ARRAY'),
  }),
  fc.constant({ k: 'cursor' as const }),
  fc.record({ k: fc.constant('branchHead' as const), i: nat }),
  fc.constant({ k: 'selection' as const }),
  fc.record({ k: fc.constant('history' as const), forward: fc.boolean() }),
  fc.constant({ k: 'summaryNode' as const }),
  fc.constant({ k: 'summaryBranch' as const }),
  fc.record({
    k: fc.constant('badField' as const),
    field: fc.constantFrom(...(Object.keys(BAD_FIELDS) as (keyof typeof BAD_FIELDS)[])),
    v: nat,
  }),
)

/** Ways to corrupt the rows of a format 2 snapshot (its top level is corrupted as above). */
export type RowCorruption =
  | { readonly k: 'notARow'; readonly i: number; readonly value: unknown }
  | { readonly k: 'length'; readonly i: number; readonly keep: number }
  | { readonly k: 'parent'; readonly i: number; readonly value: unknown }
  | { readonly k: 'parentBeyond'; readonly i: number }
  | { readonly k: 'duplicateId'; readonly i: number; readonly j: number }
  | { readonly k: 'duplicateLabel'; readonly i: number; readonly j: number }
  | { readonly k: 'orphanPart'; readonly i: number }
  | { readonly k: 'replacesStranger'; readonly i: number }
  | { readonly k: 'badCell'; readonly i: number; readonly cell: keyof typeof BAD_ROW_CELLS; readonly v: number }
  | { readonly k: 'badExtra'; readonly i: number; readonly field: keyof typeof BAD_EXTRA_FIELDS; readonly v: number }

/** Invalid values per row cell. */
export const BAD_ROW_CELLS = {
  nodeId: [5, '', ' x', 'a\u0001b', 'z'.repeat(MAX_ID + 1), null],
  type: ['bogus', 'MESSAGE', 7, null, ''],
  time: [1.5, 'not a time', '2025-13-45T00:00:00.000Z', '2025-01-01', 1e16, -1e16, null, Number.MAX_SAFE_INTEGER],
  role: ['robot', 5, ''],
  text: [5, {}, ['x']],
} as const
/** Invalid values per field of a row's extra object (MISSING is not used here). */
export const BAD_EXTRA_FIELDS = {
  content: ['text', {}, [null], [{ type: 'image', url: 'x' }], [{ type: 'tool_call', id: 1 }]],
  usage: ['x', [1]],
  label: ['', '  ', 5, 'a\u0001b', ' padded'],
  summary: [5, null, {}],
  name: [5, {}],
  origin: ['x', {}, { source: '' }],
  cost: ['1', null],
  replaces: ['a', [5]],
  unexpectedField: [1, 'x'],
} as const

export const rowCorruptionArb: fc.Arbitrary<RowCorruption> = fc.oneof(
  fc.record({
    k: fc.constant('notARow' as const),
    i: nat,
    value: fc.constantFrom(null, 'row', 5, {}, { nodeId: 'x' }),
  }),
  fc.record({ k: fc.constant('length' as const), i: nat, keep: fc.constantFrom(0, 1, 2, 3, 8) }),
  fc.record({ k: fc.constant('parent' as const), i: nat, value: fc.constantFrom(-1, 0.5, '1', null, Number.NaN) }),
  fc.record({ k: fc.constant('parentBeyond' as const), i: nat }),
  fc.record({ k: fc.constant('duplicateId' as const), i: nat, j: nat }),
  fc.record({ k: fc.constant('duplicateLabel' as const), i: nat, j: nat }),
  fc.record({ k: fc.constant('orphanPart' as const), i: nat }),
  fc.record({ k: fc.constant('replacesStranger' as const), i: nat }),
  fc.record({
    k: fc.constant('badCell' as const),
    i: nat,
    cell: fc.constantFrom(...(Object.keys(BAD_ROW_CELLS) as (keyof typeof BAD_ROW_CELLS)[])),
    v: nat,
  }),
  fc.record({
    k: fc.constant('badExtra' as const),
    i: nat,
    field: fc.constantFrom(...(Object.keys(BAD_EXTRA_FIELDS) as (keyof typeof BAD_EXTRA_FIELDS)[])),
    v: nat,
  }),
)
