// Each model call tells the backend how much of its prompt the role's previous call shared
// (whole lines), and the anthropic adapter marks that prefix for the prompt cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { anthropic } from '../../src/adapters/index.js'
import { createAgent } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { startLoopback, type Loopback } from '../adapters/http/loopback.js'
import { anthropicTranscript } from '../adapters/llm/fixtures.js'

const prompts = ['Question: Q?\nNotebook:\n- fact one\nLast search: alpha', 'Question: Q?\nNotebook:\n- fact one\n- fact two\nLast search: alps', 'Other\n']

/** Calls the extractor role with each prompt, and the planner once between them. */
const calls: Strategy = {
  name: 'calls',
  async *run(_q, ctx) {
    yield* ctx.complete('extractor', { system: 'Extract.', prompt: prompts[0]! })
    yield* ctx.complete('planner', { prompt: 'Question: Q?\nplan' })
    yield* ctx.complete('extractor', { system: 'Extract.', prompt: prompts[1]! })
    yield* ctx.complete('extractor', { system: 'Extract.', prompt: prompts[2]! })
    yield* ctx.complete('extractor', { system: 'Extract.', prompt: prompts[2]!, cachePrefix: 2 })
    yield { type: 'answer', text: 'done', citations: [] }
  },
}

describe('prompt cache prefix', () => {
  it("sets cachePrefix to the whole lines a role's prompt shares with its previous one, never across roles", async () => {
    const llm = scriptedLLM({ replies: () => 'ok' })
    await createAgent({ llm, strategy: calls }).answer('Q?')
    expect(llm.calls.map((c) => c.cachePrefix)).toEqual([undefined, undefined, 'Question: Q?\nNotebook:\n- fact one\n'.length, undefined, 2])
  })

  describe('on the Anthropic wire', () => {
    let server: Loopback
    beforeAll(async () => {
      server = await startLoopback((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(anthropicTranscript)
      })
    })
    afterAll(() => server.close())

    it('marks the system text and the stable prefix of the prompt with cache_control', async () => {
      const llm = anthropic({ baseURL: server.url, apiKey: 'k', model: 'claude-haiku-4-5' })
      await createAgent({ llm, strategy: calls }).answer('Q?')
      const bodies = server.requests.map((r) => JSON.parse(r.body) as { system?: unknown; messages: { content: unknown }[] })
      const ephemeral = { type: 'ephemeral' }
      expect(bodies[0]!.system).toEqual([{ type: 'text', text: 'Extract.', cache_control: ephemeral }])
      expect(bodies[0]!.messages[0]!.content).toBe(prompts[0])
      expect(bodies[1]!.system).toBeUndefined()
      expect(bodies[2]!.messages[0]!.content).toEqual([
        { type: 'text', text: 'Question: Q?\nNotebook:\n- fact one\n', cache_control: ephemeral },
        { type: 'text', text: '- fact two\nLast search: alps' },
      ])
      expect(bodies[3]!.messages[0]!.content).toBe(prompts[2])
    })
  })
})
