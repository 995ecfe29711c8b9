/**
 * A whole scratchpad research run through each adapter, against a loopback server that
 * plays planner, note-taker and finalizer in that provider's wire format.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createAgent } from '../../../src/index.js'
import type { ResearchEvent } from '../../../src/index.js'
import { assertEventInvariants, mockSearch } from '../../../src/testing/index.js'
import { startLoopback, writePieces, type Loopback } from '../http/loopback.js'
import { cases, type AdapterCase } from './cases.js'

/** A complete streamed reply (text in small pieces, then usage and the end) in each wire format. */
const replies: Record<AdapterCase['name'], (pieces: string[]) => string[]> = {
  openai: (pieces) => [
    ...pieces.map((p) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(p)}},"finish_reason":null}]}\n\n`),
    'data: {"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":10,"total_tokens":50}}\n\n',
    'data: [DONE]\n\n',
  ],
  ollama: (pieces) => [
    ...pieces.map((p) => `{"model":"qwen3:4b","message":{"role":"assistant","content":${JSON.stringify(p)}},"done":false}\n`),
    '{"model":"qwen3:4b","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":40,"eval_count":10}\n',
  ],
  anthropic: (pieces) => [
    'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":40,"output_tokens":1}}}\n\n',
    ...pieces.map(
      (p) => `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(p)}}}\n\n`,
    ),
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":10}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ],
}

const ANSWER = 'The sky is blue because air scatters blue light most (Rayleigh scattering, https://a.example).'

/** Which role a request is for, from the system prompt it carries. */
function replyFor(body: string): string[] {
  if (body.includes('You are the planner')) {
    return body.includes('(none yet)') ? ['Action: Search\n', 'Query: sky colour'] : ['Action: ', 'Answer']
  }
  if (body.includes('knowledge notes')) return ['Rayleigh scattering ', 'makes the sky blue ', '(https://a.example).']
  return ANSWER.match(/.{1,12}/g) ?? [ANSWER]
}

let server: Loopback | undefined
afterEach(() => server?.close())

describe.each(cases)('$name end to end', (c) => {
  it('a scratchpad run searches, takes notes and streams the answer', async () => {
    server = await startLoopback(async (req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, replies[c.name](replyFor(req.body)))
      res.end()
    })
    const search = mockSearch({ corpus: [{ title: 'Why the sky is blue', url: 'https://a.example', snippet: 'Rayleigh scattering of sunlight: sky colour' }] })
    const agent = createAgent({ llm: c.make(server.url), search })
    const run = agent.research('Why is the sky blue?')
    const events: ResearchEvent[] = []
    for await (const event of run) events.push(event)
    assertEventInvariants(events)
    const result = await run.result
    expect(result.reason).toBe('answered')
    expect(result.answer).toBe(ANSWER)
    expect(search.calls).toEqual(['sky colour'])
    const tokens = events.filter((e) => e.type === 'answer-token')
    expect(tokens.length).toBeGreaterThan(1)
    const calls = events.filter((e) => e.type === 'llm-call')
    expect(calls.length).toBe(server.requests.length)
    expect(calls.every((e) => e.type === 'llm-call' && e.inputTokens === 40 && e.outputTokens === 10)).toBe(true)
  })
  it('a rate-limited first call is retried and surfaces as a warning, not a failure', async () => {
    server = await startLoopback(async (req, res, attempt) => {
      if (attempt === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '1' })
        return void res.end(c.errorBody('slow down'))
      }
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, replies[c.name](replyFor(req.body)))
      res.end()
    })
    const search = mockSearch({ corpus: [{ title: 'Why the sky is blue', url: 'https://a.example', snippet: 'Rayleigh scattering of sunlight: sky colour' }] })
    const events: ResearchEvent[] = []
    for await (const event of createAgent({ llm: c.make(server.url), search }).research('Why is the sky blue?')) events.push(event)
    assertEventInvariants(events)
    expect(events.some((e) => e.type === 'warning' && e.message.includes('slow down'))).toBe(true)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  })
})
