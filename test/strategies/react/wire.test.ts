/**
 * The react strategy over each real adapter and a loopback server speaking its wire: the model
 * calls `search` (arguments streamed in pieces), gets the result back in the provider's own
 * format, and answers with a citation.
 */
import { expect, it } from 'vitest'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import type { LLMProvider } from '../../../src/index.js'
import { createAgent } from '../../../src/index.js'
import { assertEventInvariants, mockSearch } from '../../../src/testing/index.js'
import type { ResearchEvent } from '../../../src/index.js'
import { loopbacks, writePieces } from '../../adapters/http/loopback.js'

const serve = loopbacks()

const search = mockSearch({
  results: {
    'Eiffel Tower architect': [{ title: 'Eiffel Tower — history', url: 'https://example.org/eiffel', snippet: 'Designed by the firm of Gustave Eiffel.' }],
  },
})
const ANSWER = ['The firm of ', 'Gustave Eiffel [1].']

interface Wire {
  name: string
  contentType: string
  make(url: string): LLMProvider
  /** The frames of a reply that calls search with `{"query":"Eiffel Tower architect"}`, its arguments in two pieces. */
  call(): string[]
  answer(): string[]
  /** The search result as the second request carries it back. */
  resultIn(body: Record<string, unknown>): unknown
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
const data = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
const messages = (body: Record<string, unknown>) => body.messages as Record<string, unknown>[]

const wires: Wire[] = [
  {
    name: 'openai',
    contentType: 'text/event-stream',
    make: (url) => openai({ baseURL: `${url}/v1`, model: 'gpt-4o-mini' }),
    call: () => [
      data({
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              content: null,
              tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'search', arguments: '' } }],
            },
          },
        ],
      }),
      data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"query":"Eiffel' } }] } }] }),
      data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ' Tower architect"}' } }] } }] }),
      data({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      data({ choices: [], usage: { prompt_tokens: 90, completion_tokens: 12 } }),
      'data: [DONE]\n\n',
    ],
    answer: () => [
      ...ANSWER.map((text) => data({ choices: [{ index: 0, delta: { content: text } }] })),
      data({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      'data: [DONE]\n\n',
    ],
    resultIn: (body) => messages(body).find((m) => m.role === 'tool'),
  },
  {
    name: 'anthropic',
    contentType: 'text/event-stream',
    make: (url) => anthropic({ baseURL: url, apiKey: 'sk-ant-test-key', model: 'claude-haiku-4-5' }),
    call: () => [
      sse('message_start', {
        type: 'message_start',
        message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 90, output_tokens: 1 } },
      }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'search', input: {} } }),
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"Eiffel' } }),
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: ' Tower architect"}' } }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } }),
      sse('message_stop', { type: 'message_stop' }),
    ],
    answer: () => [
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ...ANSWER.map((text) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_stop', { type: 'message_stop' }),
    ],
    resultIn: (body) => (messages(body).at(-1)?.content as Record<string, unknown>[] | undefined)?.find((block) => block.type === 'tool_result'),
  },
  {
    name: 'ollama',
    contentType: 'application/x-ndjson',
    make: (url) => ollama({ host: url, model: 'qwen3:4b' }),
    call: () => [
      `${JSON.stringify({ model: 'qwen3:4b', message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'search', arguments: { query: 'Eiffel Tower architect' } } }] }, done: false })}\n`,
      `${JSON.stringify({ model: 'qwen3:4b', message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 90, eval_count: 12 })}\n`,
    ],
    answer: () => [
      ...ANSWER.map((text) => `${JSON.stringify({ model: 'qwen3:4b', message: { role: 'assistant', content: text }, done: false })}\n`),
      `${JSON.stringify({ model: 'qwen3:4b', message: { role: 'assistant', content: '' }, done: true })}\n`,
    ],
    resultIn: (body) => messages(body).find((m) => m.role === 'tool'),
  },
]

it.each(wires)('$name: search called over the wire, its result sent back in the provider format, a cited answer', async (wire) => {
  const server = await serve(async (req, res) => {
    const body = JSON.parse(req.body) as Record<string, unknown>
    const answered = JSON.stringify(body.messages).includes('Eiffel Tower — history')
    res.writeHead(200, { 'content-type': wire.contentType })
    await writePieces(res, answered ? wire.answer() : wire.call())
    res.end()
  })
  const agent = createAgent({ llm: wire.make(server.url), search, strategy: 'react' })
  const run = agent.research('Who designed the Eiffel Tower?')
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  const result = await run.result
  expect(result.answer).toBe('The firm of Gustave Eiffel [1].')
  expect(result.citations).toEqual([{ index: 1, url: 'https://example.org/eiffel', title: 'Eiffel Tower — history' }])
  expect(events.filter((e) => e.type === 'tool-call').map((e) => e.type === 'tool-call' && e.args)).toEqual([{ query: 'Eiffel Tower architect' }])
  expect(server.requests).toHaveLength(2)
  const first = JSON.parse(server.requests[0]!.body) as Record<string, unknown>
  expect(JSON.stringify(first.tools)).toContain('"search"')
  const second = JSON.parse(server.requests[1]!.body) as Record<string, unknown>
  expect(JSON.stringify(wire.resultIn(second))).toContain('[1] Eiffel Tower — history')
})
