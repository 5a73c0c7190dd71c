/**
 * What a stock switch's copy keeps of its original's `source` (`safeCopySource`): plain provenance
 * stays; a kind whose owner reads its position in the log is re-sourced as this plugin's relay.
 */
import { describe, expect, it } from 'vitest'
import { safeCopySource } from '../../../src/surface/copy.ts'

const relay = { kind: 'plugin', plugin: 'dsh-session-tree', form: 'relay' }

describe('safeCopySource', () => {
  it('keeps a typed prompt and ordinary plugin context', () => {
    expect(safeCopySource({ kind: 'user' })).toEqual({ kind: 'user' })
    expect(safeCopySource({ kind: 'plugin', plugin: 'dsh-system-prompt' })).toEqual({
      kind: 'plugin',
      plugin: 'dsh-system-prompt',
    })
  })

  it("re-sources DSH's compaction checkpoint: the copy must not name the compaction (DSH's Chat would draw it at the copy)", () => {
    // The shape dsh-compaction's compactCheckpointSource gives a checkpoint of `/compact`, and of an automatic one.
    const manual = {
      kind: 'plugin',
      plugin: 'dsh-compaction-basic',
      compactionId: 'c1',
      sourceCommandId: 'cmd-1',
    }
    expect(safeCopySource(manual)).toEqual(relay)
    expect(safeCopySource({ kind: 'plugin', plugin: 'dsh-compaction-basic', compactionId: 'c2' })).toEqual(relay)
  })

  it('re-sources time readings and unknown kinds', () => {
    expect(safeCopySource({ kind: 'plugin', plugin: 'time-context' })).toEqual(relay)
    expect(safeCopySource({ kind: 'subagent' })).toEqual(relay)
  })
})
