/**
 * A consumer that leaves a run (`break` out of `for await`) closes every model stream the run
 * opened: a provider's generator paused at a token is returned, so its `finally` (where a real
 * adapter lets go of its connection) runs. Settling is awaited through the strategy's own
 * `finally`, which runs only once everything it delegated to has closed: no sleeps.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, type LLMProvider, type LLMRequest } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { deep, graphReader, react, reflect, report, scratchpad, citedAnswer } from '../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { STRATEGIES, world } from '../checkpoints/world.js'

/** Wraps a model, counting the streams it has open (opened, not yet closed by any path). */
function counting(base: LLMProvider): LLMProvider & { open: () => number } {
  let open = 0
  return {
    ...base,
    open: () => open,
    async *stream(req: LLMRequest) {
      open++
      try {
        yield* base.stream(req)
      } finally {
        open--
      }
    },
  }
}

/** `inner`, with a promise that settles once its generator has closed, whichever way. */
function watched(inner: Strategy): { strategy: Strategy; closed: Promise<void> } {
  let closed!: () => void
  const done = new Promise<void>((resolve) => {
    closed = resolve
  })
  return {
    closed: done,
    strategy: {
      name: inner.name,
      async *run(question, ctx) {
        try {
          return yield* inner.run(question, ctx)
        } finally {
          closed()
        }
      },
    },
  }
}

describe('leaving a run in the middle of a model stream', () => {
  it('closes the stream the answer was coming from', async () => {
    // A reply of many tokens: after the first, the provider is suspended at its next yield.
    const finalizer = counting(scriptedLLM({ replies: ['Paris is the capital of France, as every note says.'] }))
    const answerOnce: Strategy = {
      name: 'answer-once',
      async *run(_q, ctx) {
        const text = yield* ctx.streamAnswer('finalizer', { prompt: 'answer' })
        yield { type: 'answer', text, citations: [] }
      },
    }
    const { strategy, closed } = watched(answerOnce)
    const run = createAgent({ models: { finalizer }, search: mockSearch({ corpus: [] }), strategy }).research('What is the capital of France?')
    let tokens = 0
    for await (const event of run) {
      if (event.type === 'answer-token') {
        tokens++
        expect(finalizer.open()).toBe(1)
        break
      }
    }
    await closed
    expect(tokens).toBe(1)
    expect(finalizer.open()).toBe(0)
  })

  it.each(STRATEGIES)('%s: no stream is left open after a break on the first answer token', async (name) => {
    const base = world(name, 5)
    const llm = counting(base.llm)
    const definition = [scratchpad, graphReader, reflect, deep, react, report].find((d) => d.name === name)
    if (!definition) throw new Error(`no strategy ${name}`)
    const { strategy, closed } = watched(definition({ maxSteps: 3 }))
    const run = createAgent({ llm, search: base.search, strategy }).research('What happened to alpha?')
    let answered = false
    for await (const event of run) {
      if (event.type === 'answer-token') {
        answered = true
        break
      }
    }
    await closed
    expect(answered).toBe(true)
    expect(llm.open()).toBe(0)
  })

  it("closes a planner's stream read while its queries are searched early (scratchpad), left at its first reasoning token", async () => {
    const planner = counting(scriptedLLM({ replies: [{ reasoning: 'I should look this up first.', text: 'Action: Search\nQuery: capital of France' }] }))
    const { strategy, closed } = watched(scratchpad({}))
    const run = createAgent({ models: { planner }, search: mockSearch({ corpus: [] }), strategy }).research('What is the capital of France?')
    let reasoning = false
    for await (const event of run) {
      if (event.type === 'reasoning-token' && event.role === 'planner') {
        reasoning = true
        break
      }
    }
    await closed
    expect(reasoning).toBe(true)
    expect(planner.open()).toBe(0)
  })

  it('closes the stream of a revised answer (verify: revise), left at its first token', async () => {
    // Real text (the Bitcoin paper's first page); the answer's number contradicts it, so the claim is unsupported.
    const source = {
      url: 'https://bitcoin.example/paper.pdf',
      title: 'Bitcoin',
      text: 'Digital signatures provide part of the solution, but the main benefits are lost if a trusted third party is still required to prevent double-spending.',
    }
    const answer = 'Digital signatures provide part of the solution, but the main benefits are lost if 3 trusted third parties are still required [1].'
    const finalizer = counting(scriptedLLM({ replies: [answer, 'Digital signatures provide part of the solution [1], as the paper says at length.'] }))
    const { strategy, closed } = watched({
      name: 'ending',
      async *run(_question, ctx) {
        yield* citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: (n) => (n === 1 ? source : undefined), empty: {} })
        return { reason: 'answered' }
      },
    })
    const run = createAgent({ models: { finalizer }, verify: 'revise', strategy }).research('q')
    let revised = false
    for await (const event of run) {
      if (event.type === 'answer-token' && event.revised) {
        revised = true
        break
      }
    }
    await closed
    expect(revised).toBe(true)
    expect(finalizer.open()).toBe(0)
  })
})
