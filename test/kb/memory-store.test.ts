import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAgent, type EmbeddingProvider, type MemoryStore, type ResearchEvent } from '../../src/index.js'
import { memoryStore, memoryVectorStore } from '../../src/kb/index.js'
import { lanceVectorStore } from '../../src/lancedb/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'

type MemoryEntry = Parameters<MemoryStore['remember']>[0]

/**
 * A deterministic embedder: each word (lower case, stop words out) adds 1 to one of 64
 * dimensions picked by its hash, so texts sharing words are close. It records every batch.
 */
function wordsEmbedder(model = 'words-64'): EmbeddingProvider & { batches: string[][] } {
  const batches: string[][] = []
  const stop = new Set(['the', 'is', 'of', 'a', 'what', 'how', 'in', 'and'])
  return {
    model,
    dimensions: 64,
    batches,
    async embed(texts, options) {
      options?.signal?.throwIfAborted()
      batches.push([...texts])
      const vectors = texts.map((text) => {
        const vector = new Float32Array(64)
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          if (stop.has(word)) continue
          let hash = 7
          for (const c of word) hash = (hash * 31 + c.charCodeAt(0)) >>> 0
          vector[hash % 64]! += 1
        }
        return vector
      })
      return { vectors }
    },
  }
}

const entry = (runId: string, question: string, facts: MemoryEntry['facts']): MemoryEntry => ({
  runId,
  question,
  answer: facts.map((f) => f.text).join(' '),
  facts,
  at: '2026-11-26T12:00:00.000Z',
})

describe('memoryStore', () => {
  it('recalls the findings nearest the question first, with their source and question', async () => {
    const memory = memoryStore({ store: memoryVectorStore(), embed: wordsEmbedder() })
    await memory.remember(
      entry('r1', 'What is the capital of France?', [{ text: 'Paris is the capital of France.', url: 'https://fr.example/', title: 'France' }]),
    )
    await memory.remember(entry('r2', 'Which river crosses Vienna?', [{ text: 'The Danube flows through Vienna.', url: 'https://at.example/' }]))
    const found = await memory.recall('Which river flows through Vienna?', { limit: 1 })
    expect(found).toEqual([{ text: 'The Danube flows through Vienna.', url: 'https://at.example/', question: 'Which river crosses Vienna?' }])
    const both = await memory.recall('capital of France', { limit: 5 })
    expect(both[0]).toEqual({
      text: 'Paris is the capital of France.',
      url: 'https://fr.example/',
      title: 'France',
      question: 'What is the capital of France?',
    })
    expect(both).toHaveLength(2)
  })

  it('keeps each fact once: within a run, and across runs that found it again', async () => {
    const embed = wordsEmbedder()
    const memory = memoryStore({ store: memoryVectorStore(), embed })
    const fact = { text: 'Paris is the capital of France.', url: 'https://fr.example/' }
    await memory.remember(entry('r1', 'Capital of France?', [fact, { ...fact, url: 'https://fr.example' }]))
    await memory.remember(entry('r2', 'French capital?', [fact]))
    // One text embedded for the first run: the same fact from the same source, its URL normalised.
    expect(embed.batches[0]).toEqual(['Paris is the capital of France.'])
    expect(await memory.recall('capital of France', { limit: 5 })).toHaveLength(1)
  })

  it('recalls only its own records from a store shared with a knowledge base, and nothing from an empty store', async () => {
    const store = memoryVectorStore()
    const embed = wordsEmbedder()
    const memory = memoryStore({ store, embed })
    expect(await memory.recall('anything', { limit: 3 })).toEqual([])
    const [vector] = (await embed.embed(['Paris handbook capital France'])).vectors
    await store.putDocument(
      { id: 'handbook', url: 'file:///handbook.md', title: 'Handbook', hash: 'h', chunks: 1, indexedAt: '2026-01-01T00:00:00.000Z' },
      [
        {
          id: 'handbook#0',
          documentId: 'handbook',
          url: 'file:///handbook.md',
          title: 'Handbook',
          headings: [],
          position: 0,
          text: 'Paris handbook',
          vector: vector!,
        },
      ],
      { model: embed.model, dimensions: 64 },
    )
    await memory.remember(entry('r1', 'Capital?', [{ text: 'Paris is the capital of France.', url: 'https://fr.example/' }]))
    expect((await memory.recall('Paris capital France', { limit: 5 })).map((f) => f.url)).toEqual(['https://fr.example/'])
  })

  it('refuses a store built with another embedding model, and stops when its signal aborts', async () => {
    const store = memoryVectorStore()
    await memoryStore({ store, embed: wordsEmbedder('model-a') }).remember(entry('r1', 'Q?', [{ text: 'A fact.', url: 'https://a.example/' }]))
    const other = memoryStore({ store, embed: wordsEmbedder('model-b') })
    await expect(other.recall('fact')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('model-a') })
    const memory = memoryStore({ store, embed: wordsEmbedder('model-a') })
    const controller = new AbortController()
    controller.abort()
    await expect(memory.recall('fact', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('outlives the process on a LanceDB folder: a store opened again recalls what was written', async () => {
    const path = await mkdtemp(join(tmpdir(), 'laconic-memory-'))
    try {
      const first = lanceVectorStore({ path, table: 'memory' })
      await memoryStore({ store: first, embed: wordsEmbedder() }).remember(
        entry('r1', 'Which river crosses Vienna?', [{ text: 'The Danube flows through Vienna.', url: 'https://at.example/', title: 'Austria' }]),
      )
      await first.close()
      const again = lanceVectorStore({ path, table: 'memory' })
      const found = await memoryStore({ store: again, embed: wordsEmbedder() }).recall('the Danube in Vienna', { limit: 3 })
      await again.close()
      expect(found).toEqual([
        { text: 'The Danube flows through Vienna.', url: 'https://at.example/', title: 'Austria', question: 'Which river crosses Vienna?' },
      ])
    } finally {
      await rm(path, { recursive: true, force: true })
    }
  })

  it('is refused without a vector store or an embedder', () => {
    expect(() => memoryStore({ store: {} as never, embed: wordsEmbedder() })).toThrow('memoryStore needs `store`')
    expect(() => memoryStore({ store: memoryVectorStore(), embed: {} as never })).toThrow('memoryStore needs `embed`')
  })
})

describe('an agent with memoryStore', () => {
  it("answers a later question from an earlier run's finding, citing where it was found", async () => {
    const kept = memoryStore({ store: memoryVectorStore(), embed: wordsEmbedder() })
    let written!: () => void
    const firstWritten = new Promise<void>((resolve) => (written = resolve))
    const store: MemoryStore = { recall: kept.recall, remember: (e, o) => kept.remember(e, o).then(written) }
    const search = mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example/', snippet: 'The capital of France is Paris.' }] })
    const first = createAgent({
      models: {
        planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
        synthesizer: scriptedLLM({ replies: ['Paris is the capital of France [1].', 'Paris is the capital and largest city of France [1].'] }),
      },
      search,
      memory: { store },
    })
    await first.answer('What is the capital of France?')
    await firstWritten

    const planner = scriptedLLM({ replies: ['Action: Answer'] })
    const second = createAgent({
      models: { planner, synthesizer: scriptedLLM({ replies: ['It is the largest city of France [1].'] }) },
      search,
      memory: { store },
    })
    const events: ResearchEvent[] = []
    for await (const event of second.research('How large is Paris, the capital city?')) events.push(event)
    assertEventInvariants(events)
    expect(planner.calls[0]?.prompt).toContain('Paris is the capital and largest city of France. [1]')
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ citations: [{ index: 1, url: 'https://fr.example/', title: 'France' }] })
    expect(search.calls).toHaveLength(1)
  })
})
