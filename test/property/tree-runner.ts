/**
 * The property runner: drives every mutating API of a `SessionTree` with one
 * operation at a time and decides beforehand, from the model, what must
 * happen — the exact error codes a failure may carry, or the model's state
 * after a success — then checks the tree against it (cheaply after every
 * operation, fully and by replay every so often, and at the end).
 */
import {
  TREE_ERROR_CODES,
  SessionTree,
  type ErrorCode,
  type JsonValue,
  type LlmMessage,
  type TreeCheckpoint,
  type TreeNode,
  type TreeResult,
} from '../../src/tree/index.ts'
import {
  BAD_BRANCH,
  BAD_IDS,
  BAD_LABEL,
  BRANCH_POOL,
  EXERCISE,
  EXOTIC_BRANCH_POOL,
  LABEL_POOL,
  MAX_BRANCH,
  MAX_LABEL,
  SESSION,
  type NameChoice,
  type NodeChoice,
  type Op,
} from './tree-arbitraries.ts'
import {
  assertUnchanged,
  check,
  fails,
  fingerprint,
  fullCheck,
  headsField,
  headsOf,
  replayCheck,
  safeJson,
  sameJson,
  type Depth,
  type Fingerprint,
  type ReplayBase,
  Failure,
} from './tree-invariants.ts'
import {
  autoName,
  cloneModel,
  emptyModel,
  entryHistory,
  joinedBranch,
  modelMessages,
  modelPath,
  pushHistory,
  validId,
  validName,
  type Model,
} from './tree-model.ts'

export interface SavedCheckpoint {
  /** Op index when it was made. */
  at: number
  token: TreeCheckpoint
  json: string
  model: Model
  nodeCount: number
  logSeq: number
  /** A checkpoint made by a copy of the tree restored from `json` (made once, on demand). */
  foreign?: TreeCheckpoint
}

export interface RunOptions {
  /** Full invariant check every `fullEvery` ops (and always at the end). */
  fullEvery: number
  /** Replay check (snapshot + log) every `replayEvery` ops (and always at the end). */
  replayEvery: number
  /** Full byte comparison of failed ops while the tree has at most this many nodes (sampled beyond). */
  byteCheckBelow: number
  /** Keep a snapshot as a replay base every `baseEvery` ops. */
  baseEvery: number
}

export class Runner {
  readonly tree: SessionTree
  m = emptyModel()
  private tick = 0
  private fresh = 0
  private checkpoints: SavedCheckpoint[] = []
  private stale: SavedCheckpoint[] = []
  private bases: ReplayBase[] = []
  private failedOps = 0
  /** Everything up to this seq has been trimmed from the in-memory log. */
  private trimmedTo = 0
  private opIndex = 0
  private lastCount = 0
  readonly stats = { ok: 0, failed: 0, byCode: new Map<string, number>(), byOp: new Map<string, number>() }

  readonly options: RunOptions

  constructor(options: RunOptions) {
    this.options = options
    // Fixed clock: runs are reproducible from the fast-check seed alone.
    this.tree = new SessionTree(SESSION, undefined, { now: () => new Date(Date.UTC(2025, 0, 1) + this.tick++ * 1000) })
    this.bases.push({ json: JSON.stringify(this.tree.snapshot()), logSeq: 0 })
  }

  // ------------------------------------------------ choosing inputs

  private node(choice: NodeChoice): string {
    const ids = this.m.ids
    if (choice.kind === 'unknown') return `ghost-${choice.i % 7}`
    if (choice.kind === 'bad') return BAD_IDS[choice.i % BAD_IDS.length]!
    if (ids.length === 0) return `ghost-${choice.i % 7}`
    if (choice.kind === 'up') {
      let id = this.m.cursor ?? ids[ids.length - 1]!
      for (let k = choice.i % 5; k > 0; k--) id = this.m.parent.get(id) ?? id
      return id
    }
    if (choice.recent) return ids[Math.max(0, ids.length - 1 - (choice.i % 16))]!
    return ids[choice.i % ids.length]!
  }

  private name(choice: NameChoice, kind: 'branch' | 'label'): string {
    switch (choice.kind) {
      case 'existing': {
        const names = kind === 'branch' ? [...this.m.heads.keys()] : [...this.m.labels.keys()]
        if (names.length > 0) return names[choice.i % names.length]!
        return kind === 'branch' ? 'main' : 'start'
      }
      case 'pool': {
        const pool =
          kind === 'branch'
            ? EXERCISE.exoticBranchNames
              ? [...BRANCH_POOL, ...EXOTIC_BRANCH_POOL]
              : BRANCH_POOL
            : LABEL_POOL
        return pool[choice.i % pool.length]!
      }
      case 'fresh':
        return `${kind === 'branch' ? 'b' : 'l'}${++this.fresh}`
      case 'bad': {
        const pool = kind === 'branch' ? BAD_BRANCH : BAD_LABEL
        return pool[choice.i % pool.length]!
      }
    }
  }

  // ------------------------------------------------ running

  run(ops: readonly Op[]): void {
    const { fullEvery, replayEvery } = this.options
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!
      this.opIndex = i
      if (i > 0 && i % this.options.baseEvery === 0)
        this.bases.push({ json: JSON.stringify(this.tree.snapshot()), logSeq: this.tree.logSeq })
      if (this.bases.length > 4) this.bases.splice(1, 1)
      try {
        this.step(op)
        this.cheapCheck(i)
        if ((i + 1) % fullEvery === 0) this.fullCheck()
        if ((i + 1) % replayEvery === 0) this.replayCheck()
      } catch (error) {
        if (error instanceof Failure) {
          error.message = `op #${i} of ${ops.length} ${safeJson(op)} (nodes=${this.m.ids.length}, logSeq=${this.tree.logSeq}):\n${error.message}`
        }
        throw error
      }
    }
    this.fullCheck()
    this.replayCheck()
  }

  private count(name: string, result: TreeResult<unknown>): void {
    this.stats.byOp.set(name, (this.stats.byOp.get(name) ?? 0) + 1)
    if (result.ok) this.stats.ok++
    else {
      this.stats.failed++
      this.stats.byCode.set(result.error.code, (this.stats.byCode.get(result.error.code) ?? 0) + 1)
    }
  }

  /**
   * Run `act`; the model decides the outcome beforehand: `expected` lists the
   * acceptable error codes (empty = must succeed). A failure must leave the
   * snapshot unchanged.
   */
  private expect<T>(what: string, expected: readonly ErrorCode[], act: () => TreeResult<T>): T | undefined {
    const mustFail = expected.length > 0
    let before: Fingerprint | undefined
    if (mustFail) {
      // Small trees: every failure is checked byte for byte. Larger: sampled, the rest cheaply.
      const k = this.failedOps++
      const depth: Depth =
        this.m.ids.length <= this.options.byteCheckBelow || k % 64 === 0 ? 'full' : k % 8 === 0 ? 'state' : 'quick'
      before = fingerprint(this.tree, depth, this.m.ids)
    }
    const result = act()
    this.count(what, result)
    check(
      typeof result === 'object' && result !== null && typeof result.ok === 'boolean',
      `${what} returned a non-result`,
      result,
    )
    if (!result.ok) {
      check(
        Object.hasOwn(TREE_ERROR_CODES, result.error.code),
        `${what} failed with a code that is not the tree's`,
        result.error,
      )
      check(
        typeof result.error.message === 'string' && result.error.message !== '',
        `${what} failed without a message`,
        result.error,
      )
      if (!mustFail) fails(`${what} failed but the model expected success`, result.error)
      check(
        expected.includes(result.error.code),
        `${what} failed with ${result.error.code}, expected one of ${expected.join('|')}`,
        result.error,
      )
      assertUnchanged(this.tree, before!, `failed ${what}`, this.m.ids)
      return undefined
    }
    if (mustFail) fails(`${what} succeeded but the model expected ${expected.join('|')}`, result.value)
    return result.value
  }

  private step(op: Op): void {
    const m = this.m
    const tree = this.tree
    switch (op.k) {
      case 'append': {
        const message: LlmMessage = { role: op.role, content: op.text }
        const codes: ErrorCode[] = []
        let parentId: string | null | undefined
        if (op.parent === 'cursor') parentId = undefined
        else if (op.parent === 'null') parentId = null
        else parentId = this.node(op.parent)
        const effectiveParent = parentId === undefined ? m.cursor : parentId
        const branch = op.branch && this.name(op.branch, 'branch')
        const label = op.label && this.name(op.label, 'label')
        let nodeId: string | undefined
        if (op.id === 'fresh') nodeId = `id-${++this.fresh}`
        else if (op.id === 'minted-like') nodeId = `n${(m.ids.length + 2).toString(36)}`
        else if (op.id === 'dup') nodeId = m.ids.length > 0 ? m.ids[m.ids.length - 1] : undefined
        else if (op.id === 'bad') nodeId = BAD_IDS[this.fresh % BAD_IDS.length]
        // Validation failures first, then structure.
        if (nodeId !== undefined && !validId(nodeId)) codes.push('INVALID_ARGUMENT')
        if (parentId !== undefined && parentId !== null && !validId(parentId)) codes.push('INVALID_ARGUMENT')
        const branchName = branch === undefined ? undefined : validName(branch, MAX_BRANCH)
        if (branch !== undefined && branchName === undefined) codes.push('INVALID_ARGUMENT')
        const labelName = label === undefined ? undefined : validName(label, MAX_LABEL)
        if (label !== undefined && labelName === undefined) codes.push('INVALID_ARGUMENT')
        if (codes.length === 0) {
          if (nodeId !== undefined && m.parent.has(nodeId)) codes.push('INVALID_ARGUMENT')
          if (effectiveParent !== null && !m.parent.has(effectiveParent)) codes.push('NODE_NOT_FOUND')
          if (labelName !== undefined && m.labels.has(labelName)) codes.push('LABEL_EXISTS')
          if (branchName !== undefined && branchName !== m.active && m.heads.has(branchName))
            codes.push('BRANCH_EXISTS')
        }
        const usage: Record<string, JsonValue> | undefined =
          EXERCISE.rollbackUsage && op.usage
            ? op.usage.rare
              ? { cacheReadTokens: op.usage.inputTokens }
              : { inputTokens: op.usage.inputTokens, outputTokens: op.usage.outputTokens }
            : undefined
        const content =
          op.withCallPart && op.role === 'assistant'
            ? [
                { type: 'text' as const, text: op.text },
                { type: 'tool_call' as const, id: `echo-${this.fresh}`, name: 'ls', arguments: null },
              ]
            : undefined
        const options = {
          ...(parentId !== undefined ? { parentId } : {}),
          ...(branch !== undefined ? { branch } : {}),
          ...(label !== undefined ? { label } : {}),
          ...(nodeId !== undefined ? { nodeId } : {}),
          ...(usage ? { usage } : {}),
          ...(EXERCISE.rollbackUsage && op.cost !== undefined && op.cost > 5 ? { cost: op.cost } : {}),
          ...(op.origin ? { origin: { source: 'session', seq: this.tick } } : {}),
          ...(content ? { content } : {}),
        }
        const node = this.expect('append', codes, () => tree.append(message, options))
        if (node) {
          check(nodeId === undefined || node.nodeId === nodeId, 'append ignored the explicit node id', node)
          check(!m.parent.has(node.nodeId), 'append reused a node id', node)
          check(node.parentId === effectiveParent, 'append put the node under the wrong parent', {
            node,
            effectiveParent,
          })
          check(node.type === 'message', 'append of a message must be a message node', node)
          const expectedBranch = joinedBranch(m, effectiveParent, branchName)
          this.addNode(node.nodeId, effectiveParent, message, labelName)
          m.heads.set(expectedBranch, node.nodeId)
          m.active = expectedBranch
          m.cursor = node.nodeId
          check(
            tree.activeBranch === expectedBranch,
            `append joined branch ${tree.activeBranch}, model says ${expectedBranch}`,
          )
          if (this.opIndex % 4 === 0 || this.options.fullEvery === 1)
            sameJson(tree.messages(), modelMessages(m, node.nodeId), 'messages after append')
        }
        return
      }
      case 'toolCall': {
        const known = [...m.toolCalls.keys()]
        const callId = EXERCISE.duplicateCallIds && op.dupCall && known.length > 0 ? known[0]! : `call-${++this.fresh}`
        const codes: ErrorCode[] = m.cursor === null || m.parent.has(m.cursor) ? [] : ['NODE_NOT_FOUND']
        const node = this.expect('append(tool_call)', codes, () =>
          tree.append(null, {
            type: 'tool_call',
            content: [{ type: 'tool_call', id: callId, name: op.name, arguments: op.args }],
          }),
        )
        if (node) {
          const expectedBranch = joinedBranch(m, m.cursor, undefined)
          check(
            node.type === 'tool_call' && node.message === undefined,
            'a tool-call node has no message until its result arrives',
            node,
          )
          this.addNode(node.nodeId, m.cursor, undefined, undefined)
          m.toolCalls.set(callId, node.nodeId)
          m.callOf.set(node.nodeId, callId)
          m.heads.set(expectedBranch, node.nodeId)
          m.active = expectedBranch
          m.cursor = node.nodeId
          check(
            tree.findToolCallNode(callId)?.nodeId === m.toolCalls.get(callId),
            'findToolCallNode disagrees with the model',
            callId,
          )
        }
        return
      }
      case 'compact': {
        const path = modelPath(m, m.cursor)
        const end = Math.max(0, path.length - op.skip)
        const replaces = path.slice(Math.max(0, end - op.count), end)
        const codes: ErrorCode[] = []
        if (op.stranger !== undefined) {
          const stranger = this.node(op.stranger)
          if (!path.includes(stranger)) {
            replaces.push(stranger)
            codes.push('INVALID_ARGUMENT')
          }
        }
        const message: LlmMessage | null = op.withMessage
          ? { role: 'user', content: `[summary of ${replaces.length} entries]` }
          : null
        const node = this.expect('append(compaction)', codes, () =>
          tree.append(message, { type: 'compaction', replaces }),
        )
        if (node) {
          const expectedBranch = joinedBranch(m, m.cursor, undefined)
          check(
            node.type === 'compaction' && JSON.stringify(node.replaces) === JSON.stringify(replaces),
            'compaction entry malformed',
            node,
          )
          this.addNode(node.nodeId, m.cursor, message ?? undefined, undefined)
          m.replaces.set(node.nodeId, replaces)
          m.heads.set(expectedBranch, node.nodeId)
          m.active = expectedBranch
          m.cursor = node.nodeId
          sameJson(tree.messages(), modelMessages(m, node.nodeId), 'messages after a compaction')
        }
        return
      }
      case 'attach': {
        if (!EXERCISE.attach) return
        const known = [...m.toolCalls.keys()]
        const callId =
          op.call.kind === 'known' && known.length > 0
            ? known[op.call.i % known.length]!
            : `no-such-call-${op.text.length}`
        let named: string | undefined
        if (op.byNode === 'right') named = m.toolCalls.get(callId)
        else if (op.byNode === 'older') named = [...m.callOf].find(([, c]) => c === callId)?.[0]
        else if (op.byNode !== undefined) named = this.node(op.byNode)
        const nodeId = op.byNode === undefined ? m.toolCalls.get(callId) : named
        const codes: ErrorCode[] = []
        if (nodeId === undefined || !m.parent.has(nodeId))
          codes.push('NODE_NOT_FOUND', ...(named !== undefined && !validId(named) ? ['INVALID_ARGUMENT' as const] : []))
        else if (m.callOf.get(nodeId) !== callId) codes.push('INVALID_ARGUMENT')
        else if (op.badContent) codes.push('INVALID_ARGUMENT')
        const result = op.badContent
          ? { content: 42 as unknown as string }
          : { content: op.text, ...(op.isError ? { isError: true } : {}) }
        // Attaching the identical result again is idempotent: nothing may change.
        const prior = codes.length > 0 || nodeId === undefined ? undefined : tree.get(nodeId)
        const priorResult = prior?.content?.find((part) => part.type === 'tool_result')
        const idempotent =
          priorResult !== undefined &&
          priorResult.type === 'tool_result' &&
          priorResult.content === op.text &&
          (priorResult.isError ?? false) === op.isError
        const before = idempotent ? fingerprint(this.tree, 'full') : undefined
        const node = this.expect('attachToolResult', codes, () =>
          named === undefined && op.byNode === undefined
            ? tree.attachToolResult(callId, result)
            : tree.attachToolResult(callId, result, { nodeId: named ?? 'ghost-call-node' }),
        )
        if (node && nodeId !== undefined) {
          if (before) assertUnchanged(tree, before, 'idempotent attachToolResult')
          check(node.nodeId === nodeId, `attach folded into ${node.nodeId}, the model expected ${nodeId}`, node)
          check(
            node.message?.role === 'tool' && node.message.content === op.text && node.message.toolCallId === callId,
            'attach did not set the tool message',
            node,
          )
          check(
            node.content?.some(
              (part) => part.type === 'tool_result' && part.toolCallId === callId && part.content === op.text,
            ),
            'attach did not record the result part',
            node,
          )
          check(
            node.content?.filter((part) => part.type === 'tool_result').length === 1,
            'attach must keep exactly one result part',
            node,
          )
          m.message.set(nodeId, { ...node.message! })
        }
        return
      }
      case 'jump': {
        const target = op.target
        if (target === 'null') {
          const view = this.expect('jump(null)', [], () => tree.jump(null, { record: op.record }))
          if (view) {
            if (op.record) pushHistory(m)
            m.cursor = null
            sameJson(view.messages, [], 'jump(null) messages')
          }
          return
        }
        if ('kind' in target) {
          const id = this.node(target)
          const codes: ErrorCode[] = m.parent.has(id)
            ? []
            : validId(id)
              ? ['NODE_NOT_FOUND']
              : ['NODE_NOT_FOUND', 'INVALID_ARGUMENT']
          const view = this.expect('jump(id)', codes, () => tree.jump(id, { record: op.record }))
          if (view) this.afterJumpTo(id, op.record, view.cursor, view.messages)
          return
        }
        if ('label' in target) {
          const raw = this.name(target.label, 'label')
          const name = validName(raw, MAX_LABEL) ?? raw.trim()
          const id = m.labels.get(name)
          const codes: ErrorCode[] = id !== undefined ? [] : ['NODE_NOT_FOUND', 'INVALID_ARGUMENT']
          const view = this.expect('jump({label})', codes, () => tree.jump({ label: raw }, { record: op.record }))
          if (view && id !== undefined) this.afterJumpTo(id, op.record, view.cursor, view.messages)
          return
        }
        const landed = this.jumpToBranch(target.branch)
        if (landed) {
          const { view, head, name } = landed
          check(view.cursor === head && view.branch === name, 'jump({branch}) landed elsewhere', view)
        }
        return
      }
      case 'fork':
      case 'branch':
      case 'branchWithSummary': {
        const target = this.node(op.target)
        const raw = op.name === undefined ? undefined : this.name(op.name, 'branch')
        const name = raw === undefined ? autoName(m, m.active) : validName(raw, MAX_BRANCH)
        const codes: ErrorCode[] = []
        if (op.k === 'branchWithSummary' && op.summary.trim() === '') codes.push('INVALID_ARGUMENT')
        if (!validId(target) || name === undefined) codes.push('INVALID_ARGUMENT')
        if (codes.length === 0 || op.k === 'branchWithSummary') {
          if (!m.parent.has(target)) codes.push('NODE_NOT_FOUND')
          if (name !== undefined && m.heads.has(name)) codes.push('BRANCH_EXISTS')
        }
        const from = m.cursor
        let value: unknown
        if (op.k === 'fork') value = this.expect('fork', codes, () => tree.fork(target, raw))
        else if (op.k === 'branch') value = this.expect('branch', codes, () => tree.branch(target, raw!))
        else value = this.expect('branchWithSummary', codes, () => tree.branchWithSummary(target, op.summary, raw))
        if (value === undefined) return
        pushHistory(m)
        m.heads.set(name!, target)
        m.active = name!
        m.cursor = target
        if (op.k === 'fork') {
          const fork = value as { cursor: string; branch: string; forkCount: number }
          check(fork.cursor === target && fork.branch === name, 'fork parked elsewhere', fork)
          check(fork.forkCount === tree.children(target).length, 'fork reported a wrong forkCount', fork)
        }
        if (op.k === 'branchWithSummary') {
          const node = value as TreeNode
          check(
            node.type === 'branch_summary' && node.parentId === target && node.message === undefined,
            'branchWithSummary node is malformed',
            node,
          )
          check(
            from === null ? node.metadata === undefined : node.metadata?.fromId === from,
            'branchWithSummary did not record where it came from',
            node,
          )
          this.addNode(node.nodeId, target, undefined, undefined)
          m.heads.set(name!, node.nodeId)
          m.cursor = node.nodeId
          // The summary never enters the model's history.
          sameJson(tree.messages(), modelMessages(m, target), 'messages after branchWithSummary')
        }
        check(tree.cursor === m.cursor && tree.activeBranch === name, 'fork/branch left the cursor elsewhere')
        return
      }
      case 'switch': {
        const landed = this.jumpToBranch(op.name)
        if (landed) sameJson(landed.view.messages, modelMessages(m, landed.head), 'jump({branch}) messages')
        return
      }
      case 'select': {
        const id = op.target === 'null' ? null : this.node(op.target)
        const codes: ErrorCode[] = id === null || m.parent.has(id) ? [] : ['NODE_NOT_FOUND', 'INVALID_ARGUMENT']
        const value = this.expect('select', codes, () => tree.select(id))
        if (value) {
          m.selected = id
          check(tree.cursor === m.cursor, 'select moved the cursor')
        }
        return
      }
      case 'label': {
        const id = this.node(op.target)
        const raw = op.text === null ? null : this.name(op.text, 'label')
        const name = raw === null ? null : validName(raw, MAX_LABEL)
        const codes: ErrorCode[] = []
        if (!validId(id) || name === undefined) codes.push('INVALID_ARGUMENT')
        else {
          if (!m.parent.has(id)) codes.push('NODE_NOT_FOUND')
          const holder = name === null ? undefined : m.labels.get(name)
          if (holder !== undefined && holder !== id) codes.push('LABEL_EXISTS')
        }
        const node = this.expect('label', codes, () => tree.label(id, raw))
        if (node) {
          const old = m.nodeLabel.get(id)
          if (old !== undefined) m.labels.delete(old)
          if (name === null || name === undefined) m.nodeLabel.delete(id)
          else {
            m.nodeLabel.set(id, name)
            m.labels.set(name, id)
          }
          check(node.label === (name ?? undefined), 'label not applied', node)
          if (name)
            sameJson(
              tree.labeled(name).map((n) => n.nodeId),
              [id],
              'labeled(text) after label',
            )
        }
        return
      }
      case 'setSummary': {
        const raw = this.name(op.name, 'branch')
        const name = validName(raw, MAX_BRANCH)
        const codes: ErrorCode[] = []
        if (name === undefined) codes.push('INVALID_ARGUMENT')
        else {
          if (!m.heads.has(name)) codes.push('BRANCH_NOT_FOUND')
          if (op.text.trim() === '') codes.push('INVALID_ARGUMENT')
        }
        const summary = this.expect('setBranchSummary', codes, () => tree.setBranchSummary(raw, op.text, op.model))
        if (summary && name !== undefined) {
          check(
            summary.branch === name && summary.nodeId === m.heads.get(name) && summary.summary === op.text,
            'setBranchSummary recorded the wrong summary',
            summary,
          )
          m.summaries.set(name, { text: op.text, nodeId: m.heads.get(name)! })
        }
        return
      }
      case 'back':
      case 'forward': {
        const from = op.k === 'back' ? m.back : m.forward
        const codes: ErrorCode[] = from.length > 0 ? [] : ['HISTORY_EMPTY']
        const view = this.expect(op.k, codes, () => (op.k === 'back' ? tree.back() : tree.forward()))
        if (view) {
          const position = from.pop()!
          ;(op.k === 'back' ? m.forward : m.back).push({ cursor: m.cursor, branch: m.active })
          m.cursor = position.cursor
          m.active = position.branch
          check(
            view.cursor === position.cursor && view.branch === position.branch,
            `${op.k} did not return to the recorded position`,
            { view, position },
          )
          sameJson(view.messages, modelMessages(m, position.cursor), `${op.k} messages`)
        }
        return
      }
      case 'checkpoint': {
        const token = tree.checkpoint()
        this.checkpoints.push({
          at: this.opIndex,
          token,
          json: JSON.stringify(tree.snapshot()),
          model: cloneModel(m),
          nodeCount: tree.nodeCount,
          logSeq: tree.logSeq,
        })
        if (this.checkpoints.length > 6) this.checkpoints.shift()
        return
      }
      case 'rollback': {
        // Mostly undo recent work (so trees still grow), sometimes go far back.
        const recent = this.checkpoints.map((c, i) => [c, i] as const).filter(([c]) => this.opIndex - c.at <= 40)
        const pool = op.i % 40 === 0 ? this.checkpoints.map((c, i) => [c, i] as const) : recent
        if (pool.length === 0) return
        const index = pool[op.i % pool.length]![1]
        const saved = this.checkpoints[index]!
        this.expect('rollback', [], () => tree.rollback(saved.token))
        const json = JSON.stringify(tree.snapshot())
        if (json !== saved.json)
          fails(
            `rollback did not restore the checkpoint snapshot\n  got:      ${json.slice(0, 1500)}\n  expected: ${saved.json.slice(0, 1500)}`,
          )
        check(tree.nodeCount === saved.nodeCount, 'rollback restored a different node count')
        this.m = cloneModel(saved.model)
        this.lastCount = tree.nodeCount
        // Checkpoints made after this one describe a future that no longer exists.
        const later = this.checkpoints.splice(index + 1).filter((c) => c.logSeq > saved.logSeq)
        this.stale.push(...later)
        if (this.stale.length > 6) this.stale.splice(0, this.stale.length - 6)
        this.bases = this.bases.filter((base) => base.logSeq <= saved.logSeq)
        return
      }
      case 'rollbackStale': {
        if (!EXERCISE.staleCheckpoints || this.stale.length === 0) return
        const saved = this.stale[op.i % this.stale.length]!
        this.expect('rollback(stale checkpoint)', ['INVALID_ARGUMENT'], () => tree.rollback(saved.token))
        return
      }
      case 'rollbackForeign': {
        if (!EXERCISE.staleCheckpoints || this.checkpoints.length === 0) return
        // A checkpoint of another tree of the same session: a restored copy of an earlier
        // state (made once per checkpoint), or, cheaper, an empty tree at the same log seq.
        const saved = this.checkpoints[this.checkpoints.length - 1]!
        let token: TreeCheckpoint
        if (this.m.ids.length <= 300 || this.opIndex % 4 === 0) {
          saved.foreign ??= new SessionTree(SESSION, JSON.parse(saved.json)).checkpoint()
          token = saved.foreign
        } else {
          const empty = { ...new SessionTree(SESSION).snapshot(), logSeq: saved.logSeq }
          token = new SessionTree(SESSION, empty).checkpoint()
        }
        this.expect('rollback(foreign checkpoint)', ['INVALID_ARGUMENT'], () => tree.rollback(token))
        return
      }
      case 'trimLog': {
        const through = Math.max(0, tree.logSeq - op.back)
        const before = fingerprint(tree, 'state', m.ids)
        tree.trimLog(through)
        // Trimming the log is bookkeeping: the state and its snapshot do not change.
        assertUnchanged(tree, before, 'trimLog', m.ids)
        this.trimmedTo = Math.max(this.trimmedTo, through)
        check(tree.log(0).length === tree.logSeq - this.trimmedTo, 'trimLog kept the wrong number of log entries', {
          retained: tree.log(0).length,
          logSeq: tree.logSeq,
          trimmedTo: this.trimmedTo,
        })
        // Checkpoints before the trimmed point can no longer be rolled back to.
        const gone = this.checkpoints.filter((c) => c.logSeq < this.trimmedTo)
        this.checkpoints = this.checkpoints.filter((c) => c.logSeq >= this.trimmedTo)
        this.stale.push(...gone)
        if (this.stale.length > 6) this.stale.splice(0, this.stale.length - 6)
        // Replays need the log after their base.
        this.bases = this.bases.filter((base) => base.logSeq >= this.trimmedTo)
        if (this.bases.length === 0) this.bases.push({ json: JSON.stringify(tree.snapshot()), logSeq: tree.logSeq })
        return
      }
      case 'replayGarbage': {
        const seq = tree.logSeq + 1
        const at = '2025-01-01T00:00:00.000Z'
        const okJump = { seq, at, op: 'jump', target: null, record: true }
        const records: unknown[][] = [
          [{ seq: seq + 1, at, op: 'back' }],
          [okJump, { seq: seq + 1, at, op: 'teleport' }],
          [okJump, { seq: seq + 1, at, op: 'jump', target: 'ghost-node', record: true }],
          [okJump, { seq: seq + 1, at: 'yesterday', op: 'select', nodeId: null }],
          [okJump, { seq: seq + 1, at, op: 'fork', target: m.ids[0] ?? 'ghost', branch: '   ' }],
          [
            okJump,
            {
              seq: seq + 1,
              at,
              op: 'append',
              node: { nodeId: 'x-self', parentId: 'x-self', summary: '', createdAt: at },
            },
          ],
        ]
        const input = records[op.kind % records.length]!
        this.expect('replay(garbage)', ['INVALID_ARGUMENT', 'NODE_NOT_FOUND', 'HISTORY_EMPTY'], () =>
          tree.replay(input),
        )
        return
      }
    }
  }

  /**
   * jump({branch}) on the tree, and on the model when it went through (history pushed, the cursor on the
   * branch's head, the branch active); then the view, the head and the trimmed name, for the caller's checks.
   */
  private jumpToBranch(choice: NameChoice) {
    const m = this.m
    const raw = this.name(choice, 'branch')
    const name = raw.trim()
    const head = m.heads.get(name)
    const codes: ErrorCode[] = head !== undefined ? [] : ['BRANCH_NOT_FOUND', 'INVALID_ARGUMENT']
    const view = this.expect('jump({branch})', codes, () => this.tree.jump({ branch: raw }))
    if (!view || head === undefined) return undefined
    pushHistory(m)
    m.cursor = head
    m.active = name
    return { view, head, name }
  }

  private afterJumpTo(id: string, record: boolean, cursor: string | null, messages: readonly LlmMessage[]): void {
    const m = this.m
    if (record) pushHistory(m)
    m.cursor = id
    if (m.heads.get(m.active) !== id) {
      const holders = [...m.heads].filter(([, head]) => head === id).map(([name]) => name)
      if (holders.length > 0) {
        check(holders.includes(this.tree.activeBranch), 'jump to a branch head must activate one of its branches', {
          holders,
          active: this.tree.activeBranch,
        })
        m.active = this.tree.activeBranch
      }
    }
    check(cursor === id, 'jump landed elsewhere', { cursor, id })
    sameJson(messages, modelMessages(m, id), 'jump messages')
  }

  private addNode(id: string, parent: string | null, message: LlmMessage | undefined, label: string | undefined): void {
    const m = this.m
    m.ids.push(id)
    m.parent.set(id, parent)
    if (message) m.message.set(id, message)
    if (label !== undefined) {
      m.nodeLabel.set(id, label)
      m.labels.set(label, id)
    }
  }

  // ------------------------------------------------ invariants

  /** After every op: O(1)-ish state agreement with the model. */
  private cheapCheck(i: number): void {
    const { tree, m } = this
    check(tree.nodeCount >= this.lastCount, `node count decreased from ${this.lastCount} to ${tree.nodeCount}`)
    this.lastCount = tree.nodeCount
    check(tree.nodeCount === m.ids.length, `nodeCount ${tree.nodeCount}, model ${m.ids.length}`)
    check(tree.cursor === m.cursor, `cursor ${tree.cursor}, model ${m.cursor}`)
    check(tree.activeBranch === m.active, `active branch ${tree.activeBranch}, model ${m.active}`)
    check(tree.selectedNode === m.selected, `selected ${tree.selectedNode}, model ${m.selected}`)
    check(m.cursor === null || tree.has(m.cursor), 'the cursor points at a missing node')
    // info() is O(branches): every 4th op.
    if (i % 4 !== 0) return
    const info = tree.info()
    check(info.branchCount === m.heads.size, `branchCount ${info.branchCount}, model ${m.heads.size}`)
    check(info.labelCount === m.labels.size, `labelCount ${info.labelCount}, model ${m.labels.size}`)
    check(
      info.canGoBack === m.back.length > 0 && info.canGoForward === m.forward.length > 0,
      'canGoBack/canGoForward disagree with the model',
      info,
    )
    if (i % 32 === 0) {
      const snapshot = tree.snapshot()
      sameJson(snapshot.history, { back: m.back, forward: m.forward }, 'navigation history')
      const heads = headsOf(snapshot)
      // An ordered list keeps creation order (the model's Map order); a record may reorder keys.
      if (headsField(snapshot as unknown as Record<string, unknown>) === 'branches')
        sameJson(heads, [...m.heads], 'snapshot branch heads vs model (creation order)')
      else sameJson(heads.sort(), [...m.heads].sort(), 'snapshot branch heads vs model')
      const path = tree.path()
      check(path.ok, 'path() of the cursor failed', path)
      const messages = tree.messages()
      sameJson(messages, path.ok ? entryHistory(path.value) : [], 'messages() vs the history of path()')
      sameJson(messages, modelMessages(m, m.cursor), 'messages() vs model')
    }
  }

  /** Everything, recomputed from list(). O(n). */
  fullCheck(): void {
    fullCheck(this.tree, this.m)
  }

  /** Snapshot S + replay(log after S) reproduces the tree exactly (journal semantics). */
  replayCheck(): void {
    replayCheck(this.tree, this.bases)
  }
}

export function runOps(ops: readonly Op[], options: RunOptions): Runner {
  const runner = new Runner(options)
  runner.run(ops)
  return runner
}
