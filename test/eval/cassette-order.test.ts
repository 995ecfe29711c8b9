/**
 * A replay repeats the order the recording handed results over in, so a strategy that works
 * concurrently asks the recorded prompts again. The recordings here come from held providers:
 * every search, page and model chunk waits until the test releases it, in an order the test
 * chooses (a seeded one, and fast-check's), one at a time, each handed to the run before the
 * next (as a network does). No clock is read: the test orders everything with promises and turns
 * of the event loop.
 */
import { appendFile, mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type EvalEvent, evaluate, openCassette, readResults } from '../../src/eval/index.js'
import {
  type AgentOptions,
  createAgent,
  type FetchProvider,
  type LLMChunk,
  type LLMProvider,
  type LLMRequest,
  type ResearchEvent,
  type SearchOptions,
  type SearchProvider,
} from '../../src/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { anyStrategyReply as reply, hash, searchResults as results } from '../support/any-strategy-model.js'

type FetchOptions = NonNullable<Parameters<FetchProvider['fetch']>[1]>

const QUESTION = 'What do alpha and beta have in common?'

/**
 * Providers whose every answer (a search, a page, each model chunk and a stream's end) waits
 * until the test releases it; `delivered` counts what reached the run through the cassette.
 */
function heldWorld() {
  const holds: (() => void)[] = []
  let told: (() => void) | undefined
  let released = 0
  let delivered = 0
  let onDelivered: (() => void) | undefined
  const tell = () => {
    told?.()
    told = undefined
  }
  /** Waits for the test, or for `signal` (as a real provider stops when its request is aborted). */
  const hold = (signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const release = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        holds.splice(holds.indexOf(release), 1)
        reject(signal?.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      holds.push(release)
      tell()
    })
  const model = scriptedLLM({ model: 'held', replies: reply, chunkSize: 24 })
  const llm: LLMProvider = {
    model: 'held',
    async *stream(req) {
      for await (const chunk of model.stream(req)) {
        await hold(req.signal)
        yield chunk
      }
      await hold(req.signal)
    },
  }
  const search: SearchProvider = {
    async search(query, opts) {
      await hold(opts?.signal)
      return results(query)
    },
  }
  const fetch: FetchProvider = {
    async fetch(url, opts) {
      await hold(opts?.signal)
      return { url, title: `Page ${url}`, text: `The page at ${url} says ${hash(url) % 13}.` }
    },
  }
  const deliver = () => {
    delivered++
    onDelivered?.()
  }
  return {
    providers: { llm, search, fetch },
    deliver,
    /** A new hold, or `wake()`. */
    next: () => new Promise<void>((resolve) => (told = resolve)),
    wake: tell,
    /** Everything released has reached the run. */
    settled: () =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (delivered >= released) {
            onDelivered = undefined
            resolve()
          }
        }
        onDelivered = check
        check()
      }),
    /** Releases the hold `choice` picks among those waiting; false when none waits. */
    release(choice: number): boolean {
      if (!holds.length) return false
      const [resolve] = holds.splice(choice % holds.length, 1)
      released++
      resolve?.()
      return true
    },
  }
}

const loopTurn = () => new Promise((resolve) => setImmediate(resolve))

/** The run's side of the cassette: each search, page and chunk handed to it is counted, and every request kept in order. */
function observed(options: AgentOptions, deliver: () => void, asked: string[]): AgentOptions {
  const llm = options.llm as LLMProvider
  const search = options.search as SearchProvider
  const fetch = options.fetch as FetchProvider
  return {
    ...options,
    llm: {
      ...(llm.model !== undefined ? { model: llm.model } : {}),
      async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
        asked.push(`llm ${req.system?.slice(0, 40)}|${req.prompt}|${JSON.stringify(req.turns ?? [])}`)
        for await (const chunk of llm.stream(req)) {
          deliver()
          yield chunk
        }
        deliver()
      },
    },
    search: {
      search(query: string, opts?: SearchOptions) {
        asked.push(`search ${query}`)
        return search.search(query, opts).finally(deliver)
      },
    },
    fetch: {
      fetch(url: string, opts?: FetchOptions) {
        asked.push(`fetch ${url}`)
        return fetch.fetch(url, opts).finally(deliver)
      },
    },
  }
}

/** What must repeat: every event but its timings, and the result. */
function comparable(events: ResearchEvent[]) {
  return JSON.parse(JSON.stringify(events, (key, value) => (/Ms$|^runId$|^elapsed|^time$/.test(key) ? undefined : value))) as unknown[]
}

const SETTINGS: Partial<AgentOptions> = {
  graphReader: { concurrency: 4, maxSteps: 10, maxPagesPerNode: 1 },
  scratchpad: { maxSteps: 4 },
  reflect: { maxSteps: 3 },
  deep: { maxSteps: 3, searchesPerQuestion: 3, readPages: 2 },
  react: { maxSteps: 4 },
}

/** Records one run through held providers released in the order `choices` picks, and returns what it did. */
async function record(
  folder: string,
  strategy: string,
  choices: readonly number[],
  mode: 'record' | 'record-missing' = 'record',
  extra: Partial<AgentOptions> = {},
) {
  const world = heldWorld()
  const asked: string[] = []
  const cassette = openCassette(folder, { mode })
  const agent = createAgent(observed(cassette.wrap({ ...world.providers, strategy, ...SETTINGS, ...extra }), world.deliver, asked))
  const run = agent.research(QUESTION)
  const events: ResearchEvent[] = []
  let finished = false
  const reading = (async () => {
    for await (const event of run) events.push(event)
  })().finally(() => {
    finished = true
    world.wake()
  })
  for (let step = 0; ; step++) {
    await world.settled()
    // The run takes in what it was handed and asks what it asks next.
    await loopTurn()
    await loopTurn()
    if (world.release(choices[step % choices.length] ?? 0)) continue
    if (finished) break
    await world.next()
  }
  await reading
  return { events: comparable(events), asked, result: await run.result }
}

/** Replays the run from the cassette alone: a provider called would fail the test. */
async function replay(folder: string, strategy: string, extra: Partial<AgentOptions> = {}) {
  const refuse = () => {
    throw new Error('a provider was called during a replay')
  }
  const none = { llm: { model: 'held', stream: refuse } as LLMProvider, search: { search: refuse }, fetch: { fetch: refuse } }
  const asked: string[] = []
  const agent = createAgent(observed(openCassette(folder, { mode: 'replay' }).wrap({ ...none, strategy, ...SETTINGS, ...extra }), () => {}, asked))
  const run = agent.research(QUESTION)
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return { events: comparable(events), asked, result: await run.result }
}

/** A seeded order of picks, so each strategy's recording differs from the order calls were made in. */
const seeded = (seed: number) => Array.from({ length: 97 }, (_, i) => hash(`${seed}:${i}`))

const tmp = () => mkdtemp(join(tmpdir(), 'laconic-order-'))

describe('a replay repeats the recorded order', () => {
  it.each(['graph-reader', 'scratchpad', 'reflect', 'deep', 'react', 'report'])(
    '%s: results released in a shuffled order replay to the same events, prompts and result',
    async (strategy) => {
      const folder = await tmp()
      const recorded = await record(folder, strategy, seeded(7))
      expect(recorded.result.error).toBeUndefined()
      const replayed = await replay(folder, strategy)
      expect(replayed.asked).toEqual(recorded.asked)
      expect(replayed.events).toEqual(recorded.events)
      expect(replayed.result.answer).toBe(recorded.result.answer)
      expect(replayed.result.citations).toEqual(recorded.result.citations)
      expect(replayed.result.cost).toEqual(recorded.result.cost)
    },
  )

  it('graph-reader at concurrency 4 asks concurrently here (else the test above proves nothing)', async () => {
    const folder = await tmp()
    const inOrder = await record(folder, 'graph-reader', [0])
    const shuffled = await record(await tmp(), 'graph-reader', seeded(7))
    // Released in another order, the run asks other prompts: the order is what a replay must repeat.
    expect(shuffled.asked).not.toEqual(inOrder.asked)
  })

  it('graph-reader at concurrency 4: any release order replays exactly (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), async (choices) => {
        const folder = await tmp()
        const recorded = await record(folder, 'graph-reader', choices)
        const replayed = await replay(folder, 'graph-reader')
        expect(replayed.asked).toEqual(recorded.asked)
        expect(replayed.events).toEqual(recorded.events)
        expect(replayed.result.answer).toBe(recorded.result.answer)
      }),
      { numRuns: 12 },
    )
  })

  it('record-missing follows the recording, records what is new in the order it came, and that replays exactly', async () => {
    const folder = await tmp()
    await record(folder, 'graph-reader', seeded(3), 'record', { graphReader: { concurrency: 4, maxSteps: 4, maxPagesPerNode: 1 } })
    const extended = await record(folder, 'graph-reader', seeded(5), 'record-missing')
    const replayed = await replay(folder, 'graph-reader')
    expect(replayed.asked).toEqual(extended.asked)
    expect(replayed.events).toEqual(extended.events)
  })
})

describe('a replay that no longer matches its recording', () => {
  const refused: SearchProvider = { search: () => Promise.reject(new Error('a provider was called during a replay')) }

  /** Records searches for `queries` made at once, released last first. */
  async function recordSearches(folder: string, queries: string[]) {
    const world = heldWorld()
    const wrapped = openCassette(folder, { mode: 'record' }).wrap({ ...world.providers })
    const done = queries.map((query) => wrapped.search!.search(query).finally(world.deliver))
    for (let step = 0; step < queries.length; step++) {
      await world.settled()
      await loopTurn()
      world.release(queries.length - 1 - step)
    }
    await Promise.all(done)
  }

  it('hands results over in the recorded order though they are all there at once', async () => {
    const folder = await tmp()
    await recordSearches(folder, ['one', 'two', 'three'])
    const wrapped = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: refused })
    const order: string[] = []
    await Promise.all(['one', 'two', 'three'].map((query) => wrapped.search!.search(query).then(() => order.push(query))))
    expect(order).toEqual(['three', 'two', 'one'])
  })

  it('a recorded request that never comes is passed over, not waited for forever', async () => {
    const folder = await tmp()
    await recordSearches(folder, ['one', 'two'])
    const replaying = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: refused })
    // "one" was handed over after "two", which this run never asks (evaluate names it: the last test).
    expect(await replaying.search!.search('one')).toEqual(results('one'))
  })

  it('a request its recording did not make fails at once, naming it, and what waited is handed over', async () => {
    const folder = await tmp()
    await recordSearches(folder, ['one', 'two'])
    await recordSearches(folder, ['three'])
    const replaying = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: refused })
    const one = replaying.search!.search('one')
    // "three" is in the cassette, but this run's recording (one, two) never asked it.
    await expect(replaying.search!.search('three')).rejects.toThrow(/asked search "three", which its recording .* did not ask/)
    expect(await one).toEqual(results('one'))
  })

  it('a call the recorded run stopped is stopped again at its recorded step, with this run’s abort', async () => {
    const folder = await tmp()
    const world = heldWorld()
    const wrapped = openCassette(folder, { mode: 'record' }).wrap({ ...world.providers })
    const controller = new AbortController()
    const one = wrapped.search!.search('one', { signal: controller.signal }).catch((error: unknown) => error)
    const two = wrapped.search!.search('two').finally(world.deliver)
    await loopTurn()
    controller.abort(new Error('stopped one'))
    expect(await one).toMatchObject({ message: 'stopped one' })
    world.release(0)
    await two

    const replaying = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: refused })
    const again = new AbortController()
    again.abort(new Error('stopped again'))
    const settled: string[] = []
    await Promise.all([
      replaying.search!.search('one', { signal: again.signal }).catch((error: Error) => settled.push(`one: ${error.message}`)),
      replaying.search!.search('two').then(() => settled.push('two')),
    ])
    // In the recorded order: "one" ended (stopped) before "two" was answered.
    expect(settled).toEqual(['one: stopped again', 'two'])
    // A run that does not stop it is told the cassette has no more of it.
    const unstopped = openCassette(folder, { mode: 'replay' }).wrap({ llm: scriptedLLM({ replies: [] }), search: refused })
    await expect(unstopped.search!.search('one')).rejects.toThrow(/only up to where its run stopped it/)
  })

  it('evaluate: a recorded request the replay never makes ends the eval with an error naming it', async () => {
    const folder = await tmp()
    const rows = [{ id: 'q1', question: QUESTION, answers: ['x'] }]
    const configs = [{ name: 'g', agent: { ...unheld(), strategy: 'graph-reader', ...SETTINGS } }]
    const cassette = join(folder, 'cassette')
    const recorded: EvalEvent[] = []
    for await (const event of evaluate({ dataset: rows, configs, out: join(folder, 'recorded'), cassette: openCassette(cassette, { mode: 'record' }) }))
      recorded.push(event)
    expect(recorded.at(-1)).toMatchObject({ type: 'eval-end', reason: 'done' })
    // As if the recording had also searched "phantom" after everything else: this run never does.
    const [orderFile] = await readdir(join(cassette, 'order'))
    await appendFile(join(cassette, 'order', orderFile as string), `${JSON.stringify(['i', 999, 'search/0', 'search "phantom"'])}\n`)
    const replayed: EvalEvent[] = []
    for await (const event of evaluate({ dataset: rows, configs, out: join(folder, 'replayed'), cassette: openCassette(cassette, { mode: 'replay' }) }))
      replayed.push(event)
    expect(replayed.at(-1)).toMatchObject({
      type: 'eval-end',
      reason: 'error',
      error: expect.stringMatching(/asked search "phantom", which this replay did not/),
    })
    expect(await readResults(join(folder, 'replayed'))).toEqual([])
  })
})

/** The world's replies with nothing held: the run goes at its own pace. */
function unheld(): Pick<AgentOptions, 'llm' | 'search' | 'fetch'> {
  return {
    llm: scriptedLLM({ model: 'held', replies: reply, chunkSize: 24 }),
    search: { search: async (query) => results(query) },
    fetch: { fetch: async (url) => ({ url, title: `Page ${url}`, text: `The page at ${url} says ${hash(url) % 13}.` }) },
  }
}
