/** Type-level tests of long-term memory: the agent's `memory` option and `memoryStore` of `laconic-research/kb`. */
import { describe, expectTypeOf, it } from 'vitest'
import type {
  AgentOptions,
  MemoryEntry,
  MemoryOptions,
  MemoryStore,
  MemoryWritePolicy,
  RecalledFinding,
  ResearchOptions,
  SessionFact,
} from '../../src/index.js'
import type { MemoryStoreOptions, memoryStore, VectorStore } from '../../src/kb/index.js'

describe('long-term memory', () => {
  it('is an agent option around a MemoryStore, with bounded recall and a write policy', () => {
    expectTypeOf<AgentOptions['memory']>().toEqualTypeOf<MemoryOptions | undefined>()
    expectTypeOf<MemoryOptions['store']>().toEqualTypeOf<MemoryStore>()
    expectTypeOf<MemoryOptions['recall']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<MemoryOptions['recallChars']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<MemoryOptions['writePolicy']>().toEqualTypeOf<MemoryWritePolicy | undefined>()
    expectTypeOf<false>().toExtend<MemoryWritePolicy>()
    expectTypeOf<{ minAnswerChars: 80 }>().toExtend<MemoryWritePolicy>()
    expectTypeOf<true>().not.toExtend<MemoryWritePolicy>()
  })

  it('writes entries of findings and recalls findings with their source and question', () => {
    expectTypeOf<MemoryStore['remember']>().parameters.toEqualTypeOf<[entry: MemoryEntry, options?: { signal?: AbortSignal }]>()
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
