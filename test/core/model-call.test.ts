import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import type { StrategyEvent } from '../../src/strategy.js'
import { generate } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { inRun } from './in-run.js'

const textOf = (events: readonly { type: string; text?: string }[], type: string) =>
  events
    .filter((e) => e.type === type)
    .map((e) => e.text)
    .join('')

describe('one model-call path', () => {
  it('generate() keeps out-of-band reasoning and think blocks out of the text', async () => {
    const llm = scriptedLLM({ replies: [{ reasoning: 'weighing it. ', text: '<think>blue scatters</think>The sky is blue.' }] })
    const generation = await generate(llm, { prompt: 'why?' })
    expect(generation.text).toBe('The sky is blue.')
    expect(generation.reasoning).toBe('weighing it. blue scatters')
  })

  it('splits any chunking of a reply into the same text and reasoning', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), fc.integer({ min: 1, max: 7 }), async (thought, answer, chunk) => {
        const clean = (s: string) => s.replace(/[<>]/g, '')
        const reply = `<think>${clean(thought)}</think>${clean(answer)}`
        // The whole call, as generate() gives it.
        const generation = await generate(scriptedLLM({ replies: [reply], chunkSize: chunk }), { prompt: 'p' })
        expect(generation.reasoning).toBe(clean(thought))
        expect(generation.text).toBe(clean(answer).trimStart())
        // The same call streamed in a run: its reasoning in pieces as it arrives, its text returned.
        const pieces: string[] = []
        await inRun(
          async (ctx) => {
            const call = ctx.complete('planner', { prompt: 'p' })
            let step = await call.next()
            for (; !step.done; step = await call.next()) if (step.value.type === 'reasoning-token') pieces.push(step.value.text)
            expect(step.value).toBe(clean(answer).trimStart())
          },
          { llm: scriptedLLM({ replies: [reply], chunkSize: chunk }) },
        )
        expect(pieces.join('')).toBe(clean(thought))
      }),
      { numRuns: 100 },
    )
  })

  it("surfaces reasoning as reasoning-token events with the call's role, never in the answer", async () => {
    const finalizer = scriptedLLM({ replies: [{ reasoning: 'Let me think about light.', text: '<think>short waves</think>Blue light scatters most.' }] })
    const answerOnce: Strategy = {
      name: 'answer-once',
      async *run(_q, ctx) {
        const plan = yield* ctx.complete('planner', { prompt: 'plan' })
        const text = yield* ctx.streamAnswer('finalizer', { prompt: plan })
        yield { type: 'answer', text, citations: [] }
      },
    }
    const planner = scriptedLLM({ replies: [{ reasoning: 'plan first', text: 'the plan' }] })
    const run = createAgent({ models: { planner, finalizer }, strategy: answerOnce }).research('Why is the sky blue?')
    const events: ResearchEvent[] = []
    for await (const event of run) events.push(event)
    assertEventInvariants(events)
    const reasoning = events.filter((e) => e.type === 'reasoning-token')
    expect(reasoning.filter((e) => e.role === 'planner').map((e) => e.text)).toEqual(['plan first'])
    // The think block streams as it arrives (here split across two chunks), after the out-of-band reasoning.
    expect(
      textOf(
        reasoning.filter((e) => e.role === 'finalizer'),
        'reasoning-token',
      ),
    ).toBe('Let me think about light.short waves')
    expect(textOf(events, 'answer-token')).toBe('Blue light scatters most.')
    const result = await run.result
    expect(result.answer).toBe('Blue light scatters most.')
    // Reasoning streams before the call's accounting, and the planner's before the answer.
    const types = events.map((e) => e.type)
    expect(types.indexOf('reasoning-token')).toBeLessThan(types.indexOf('llm-call'))
  })

  it("streams reasoning of a call while it holds its slot of the run's limit", async () => {
    const llm = scriptedLLM({
      replies: [
        { reasoning: 'a', text: 'one' },
        { reasoning: 'b', text: 'two' },
      ],
    })
    await inRun(
      async (ctx) => {
        const first = ctx.complete('planner', { prompt: 'a' })
        const second = ctx.complete('planner', { prompt: 'b' })
        const a1 = await first.next()
        expect(a1.value).toMatchObject({ type: 'reasoning-token', text: 'a' })
        // The second call waits for the slot the first still holds.
        const b1 = second.next()
        const events: StrategyEvent[] = []
        for (let s = await first.next(); !s.done; s = await first.next()) events.push(s.value)
        expect(events.map((e) => e.type)).toEqual(['llm-call', 'cost'])
        expect(await b1).toMatchObject({ value: { type: 'reasoning-token', text: 'b' } })
        expect(llm.inFlight.peak).toBe(1)
      },
      { llm, search: mockSearch() },
      { concurrency: 1 },
    )
  })
})
