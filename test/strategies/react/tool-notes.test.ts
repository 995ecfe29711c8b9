/**
 * React's notes of its steps, as the model meets them: past `react.contextTokens`, old steps fold
 * into short notes, so each request stays within the budget plus the last step. Runs of react
 * read one page a step; what the model was sent is what the scripted model received, and which
 * steps were folded is in the run's checkpoint.
 */
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createAgent, memoryCheckpoints, type LLMRequest } from '../../../src/index.js'
import { estimateTokens } from '../../../src/strategy.js'
import { mockFetch, scriptedLLM } from '../../../src/testing/index.js'
import { shownText } from '../../support/shown-text.js'

const url = (i: number) => `https://example.org/${i}`

/** A react run that reads `steps` pages of `chars` characters, one a step, then answers; the requests it made, and the steps it folded. */
async function readPages(steps: number, chars: number, contextTokens?: number): Promise<{ requests: LLMRequest[]; compacted: number }> {
  const pages = Object.fromEntries(Array.from({ length: steps }, (_, i) => [url(i), { title: `Page ${i}`, text: 'x'.repeat(chars) }]))
  const llm = scriptedLLM({
    replies: (_req, i) => (i < steps ? { text: '', toolCalls: [{ id: `c${i}`, name: 'read_page', args: { url: url(i) } }] } : 'Done [1].'),
  })
  const checkpoints = memoryCheckpoints()
  const agent = createAgent({
    llm,
    fetch: mockFetch({ pages }),
    strategy: 'react',
    react: { maxSteps: steps + 2, finalAnswer: () => true, ...(contextTokens !== undefined ? { contextTokens } : {}) },
  })
  const run = agent.research('q', { checkpoints })
  for await (const _ of run);
  expect((await run.result).reason).toBe('answered')
  const state = (await checkpoints.load(run.runId))?.state as { steps: { compacted?: boolean }[] }
  expect(state.steps).toHaveLength(steps)
  return { requests: llm.calls, compacted: state.steps.filter((s) => s.compacted).length }
}

it('past the budget, old steps fold into notes: the request stays within budget plus the last step', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 100, max: 4000 }),
      fc.integer({ min: 600, max: 8000 }),
      async (steps, chars, budget) => {
        const { requests, compacted } = await readPages(steps, chars, budget)
        // The request after the last read.
        const request = requests[steps]!
        const tokens = estimateTokens(shownText(request))
        const last = request.turns?.find((t) => t.role === 'tool' && t.callId === `c${steps - 1}`)
        // The last step is always whole; every compacted step left its note (while the notes fit).
        expect(last).toBeDefined()
        const lastStep = estimateTokens(last?.role === 'tool' ? last.content : '') + 200
        expect(tokens).toBeLessThanOrEqual(Math.max(budget, 0) + lastStep + estimateTokens(request.prompt))
        if (compacted > 0) expect(request.prompt).toContain(`- read [${compacted}]`)
        // Sources keep their numbers whatever was folded.
        expect(request.prompt).toContain(`[${steps}] Page ${steps - 1}`)
      },
    ),
  )
})

it('20 steps of 3,000-character pages fit an 8k model with the default budget', async () => {
  const { requests, compacted } = await readPages(20, 3000)
  const sizes = requests.map((req) => estimateTokens(shownText(req)))
  expect(sizes).toHaveLength(21)
  expect(Math.max(...sizes)).toBeLessThanOrEqual(8192 - 1024)
  expect(compacted).toBeGreaterThan(0)
  // Without compaction the same steps would need far more.
  expect(estimateTokens('x'.repeat(3000)) * 20).toBeGreaterThan(8192)
})
