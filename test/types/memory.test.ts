/** Type-level tests of long-term memory: the agent's `memory` option and `memoryStore` of `laconic-research/kb`. */
import { describe, expectTypeOf, it } from 'vitest'
import type { AgentOptions, Cost, MemoryStore, ResearchOptions, SessionState, SearchOptions } from '../../src/index.js'
import type { memoryStore, VectorStore } from '../../src/kb/index.js'

type MemoryStoreOptions = NonNullable<Parameters<typeof memoryStore>[0]>

type MemoryEntry = Parameters<MemoryStore['remember']>[0]
type MemoryOptions = NonNullable<AgentOptions['memory']>
type MemoryWritePolicy = NonNullable<MemoryOptions['writePolicy']>
type RecalledFinding = Awaited<ReturnType<MemoryStore['recall']>>[number]
type SessionFact = SessionState['facts'][number]
type UsageReporter = NonNullable<SearchOptions['onUsage']>

describe('long-term memory', () => {
  it('is an agent option around a MemoryStore, with bounded recall and a write policy', () => {
    expectTypeOf<AgentOptions['memory']>().toEqualTypeOf<MemoryOptions | undefined>()
    expectTypeOf<MemoryOptions['store']>().toEqualTypeOf<MemoryStore>()
    expectTypeOf<MemoryOptions['recall']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<MemoryOptions['recallChars']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<MemoryOptions['writePolicy']>().toEqualTypeOf<MemoryWritePolicy | undefined>()
    expectTypeOf<MemoryWritePolicy>().toEqualTypeOf<false | { minAnswerChars?: number; minFindings?: number }>()
    expectTypeOf<false>().toExtend<MemoryWritePolicy>()
    expectTypeOf<{ minAnswerChars: 80 }>().toExtend<MemoryWritePolicy>()
    expectTypeOf<true>().not.toExtend<MemoryWritePolicy>()
    // A write happens after run-end: what it spent is told here, outside the run's cost.
    expectTypeOf<MemoryOptions['onWrite']>().toEqualTypeOf<((cost: Cost, runId: string) => void) | undefined>()
  })

  it('writes entries of findings and recalls findings with their source and question', () => {
    expectTypeOf<MemoryStore['remember']>().parameters.toEqualTypeOf<[entry: MemoryEntry, options?: { signal?: AbortSignal; onUsage?: UsageReporter }]>()
    expectTypeOf<MemoryStore['recall']>().parameters.toEqualTypeOf<
      [question: string, options?: { limit?: number; signal?: AbortSignal; onUsage?: UsageReporter }]
    >()
    expectTypeOf<MemoryStore['recall']>().returns.toEqualTypeOf<Promise<RecalledFinding[]>>()
    expectTypeOf<MemoryEntry['facts']>().toEqualTypeOf<SessionFact[]>()
    expectTypeOf<RecalledFinding>().toEqualTypeOf<{ text: string; url: string; title?: string; question: string }>()
    expectTypeOf<ResearchOptions['recalled']>().toEqualTypeOf<RecalledFinding[] | undefined>()
  })

  it('memoryStore keeps memory in a vector store, embedded', () => {
    expectTypeOf<typeof memoryStore>().parameters.toEqualTypeOf<[options: MemoryStoreOptions]>()
    expectTypeOf<ReturnType<typeof memoryStore>>().toEqualTypeOf<MemoryStore>()
    expectTypeOf<MemoryStoreOptions['store']>().toEqualTypeOf<VectorStore>()
  })
})
