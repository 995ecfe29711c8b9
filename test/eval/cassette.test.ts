import { readdir, readFile } from 'node:fs/promises'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCassette } from '../../src/eval/index.js'
import { createAgent, type AgentOptions, type FetchProvider, type LLMChunk, ProviderError } from '../../src/index.js'
import { mockFetch, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { extractiveModel } from '../support/extractive-model.js'

const CORPUS = [
  { title: 'Eiffel Tower', url: 'https://en.test/eiffel', snippet: 'The Eiffel Tower was completed in 1889.' },
  { title: 'Everest', url: 'https://en.test/everest', snippet: 'Mount Everest is 8849 metres tall.' },
]

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

async function collect(stream: AsyncIterable<LLMChunk>): Promise<LLMChunk[]> {
  const out: LLMChunk[] = []
  for await (const chunk of stream) out.push(chunk)
  return out
}

const tmp = () => mkdtemp(join(tmpdir(), 'laconic-cassette-'))

describe('cassettes', () => {
  it('a recorded research run replays with no provider called, to the same result and the same events', async () => {
    const folder = await tmp()
    const options = (): AgentOptions => ({
      llm: extractiveModel(),
      search: mockSearch({ corpus: CORPUS }),
      fetch: mockFetch({ pages: { 'https://en.test/eiffel': 'The tower was completed in 1889.' } }),
      strategy: 'scratchpad',
    })
    const recordOptions = options()
    const recorded = await createAgent(openCassette(folder, { mode: 'record' }).wrap(recordOptions)).answer('When was the Eiffel Tower completed?')
    expect((recordOptions.search as ReturnType<typeof mockSearch>).calls.length).toBeGreaterThan(0)

    const replayOptions = options()
    const replayRun = createAgent(openCassette(folder, { mode: 'replay' }).wrap(replayOptions)).research('When was the Eiffel Tower completed?')
    const types: string[] = []
    for await (const event of replayRun) types.push(event.type)
    const replayed = await replayRun.result
    expect((replayOptions.llm as ReturnType<typeof scriptedLLM>).calls).toHaveLength(0)
    expect((replayOptions.search as ReturnType<typeof mockSearch>).calls).toHaveLength(0)
    expect(replayed.answer).toBe(recorded.answer)
    expect(replayed.citations).toEqual(recorded.citations)
    expect(replayed.cost).toEqual(recorded.cost)
    expect(types).toContain('answer-token')
  })

  it('replays a model stream chunk for chunk, and a failure as it failed', async () => {
    const folder = await tmp()
    const failing = scriptedLLM({
      model: 'm',
      replies: [{ text: 'half an answer', error: new ProviderError('upstream 503', { code: 'http', provider: 'openai', status: 503 }) }, 'two'],
    })
    const recording = openCassette(folder, { mode: 'record' }).wrap({ llm: failing }).llm!
    const firstChunks: LLMChunk[] = []
    await expect(
      (async () => {
        for await (const chunk of recording.stream({ prompt: 'one' })) firstChunks.push(chunk)
      })(),
    ).rejects.toThrow('upstream 503')
    const second = await collect(recording.stream({ prompt: 'two' }))

    const replay = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ model: 'm', replies: [] }) }).llm!
    expect(await collect(replay.stream({ prompt: 'two' }))).toEqual(second)
    const replayedChunks: LLMChunk[] = []
    const failure = await (async () => {
      for await (const chunk of replay.stream({ prompt: 'one' })) replayedChunks.push(chunk)
    })().catch((error: unknown) => error)
    expect(replayedChunks).toEqual(firstChunks)
    expect(failure).toBeInstanceOf(ProviderError)
    expect(failure).toMatchObject({ message: 'upstream 503', code: 'http', status: 503, provider: 'openai' })
  })

  it('keys requests by provider and normalized request: whitespace in a query, a signal or a retry callback do not matter; the model name does', async () => {
    const folder = await tmp()
    const search = mockSearch({ corpus: CORPUS })
    const recorder = openCassette(folder).wrap({ llm: scriptedLLM({ model: 'a', replies: ['x'] }), search })
    await recorder.search!.search('  Eiffel   Tower ', { limit: 3 })
    await recorder.search!.search('Eiffel Tower', { limit: 3, signal: new AbortController().signal, onRetry: () => {} })
    expect(search.calls).toHaveLength(1)
    await collect(recorder.llm!.stream({ prompt: 'p', signal: new AbortController().signal }))
    const otherModel = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ model: 'b', replies: [] }) }).llm!
    await expect(collect(otherModel.stream({ prompt: 'p' }))).rejects.toThrow(/has no recorded model call to b/)
  })

  it('replay-only names the missing request; record-missing fills the gap and keeps what was there', async () => {
    const folder = await tmp()
    const first = mockSearch({ corpus: CORPUS })
    await openCassette(folder)
      .wrap({ llm: scriptedLLM({ replies: [] }), search: first })
      .search!.search('Eiffel Tower')
    const replayOnly = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: mockSearch() }).search!
    await expect(replayOnly.search('Mount Everest height', { limit: 5 })).rejects.toThrow(
      /has no recorded search "Mount Everest height" \(limit 5\).*record-missing/,
    )

    const second = mockSearch({ corpus: CORPUS })
    const filling = openCassette(folder, { mode: 'record-missing' }).wrap({ llm: scriptedLLM({ replies: [] }), search: second }).search!
    await filling.search('Eiffel Tower')
    await filling.search('Mount Everest height', { limit: 5 })
    expect(second.calls).toEqual(['Mount Everest height'])
    expect(await replayOnly.search('Mount Everest height', { limit: 5 })).toEqual(await filling.search('Mount Everest height', { limit: 5 }))
  })

  it('never stores API keys or authorization headers', async () => {
    const folder = await tmp()
    const key = 'sk-live-0123456789abcdefSECRET'
    const own = 'tok_9f8e7d6c5b4a'
    const fetch: FetchProvider = {
      async fetch(url) {
        if (url.includes('broken')) throw new ProviderError(`request to ${url} failed: Authorization: Bearer ${own}xyz1234`, { code: 'http', provider: 'x' })
        return { url, text: `Echoed back: Authorization: Bearer ${key}. Also ${own}.` }
      },
    }
    const llm = scriptedLLM({ model: 'm', replies: [`my key is ${key}`] })
    const wrapped = openCassette(folder, { mode: 'record', secrets: [own] }).wrap({ llm, fetch, search: mockSearch() })
    await wrapped.fetch!.fetch(`https://api.test/page?api_key=${key}&q=1`)
    await wrapped.fetch!.fetch(`https://api.test/broken?token=${own}`).catch(() => undefined)
    await collect(wrapped.llm!.stream({ prompt: `use ${own}` }))
    const stored = (await Promise.all((await filesUnder(folder)).map((file) => readFile(file, 'utf8')))).join('\n')
    expect(stored).not.toContain(key)
    expect(stored).not.toContain(own)
    expect(stored).not.toMatch(/Bearer (?!\[redacted\])/)
    expect(stored).toContain('api_key=[redacted]')
    // The redacted request still replays: it is looked up under the key it was stored with.
    const replay = openCassette(folder, { mode: 'replay', secrets: [own] }).wrap({ llm, fetch: mockFetch({ pages: {} }), search: mockSearch() })
    expect((await replay.fetch!.fetch(`https://api.test/page?api_key=${key}&q=1`)).text).toContain('Bearer [redacted]')
  })
})
