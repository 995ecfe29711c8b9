/** A schema on the wire for each backend, and the OpenAI-compatible fallback when a server refuses it. */
import { afterEach, expect, it } from 'vitest'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import type { LLMRequest } from '../../../src/index.js'
import { startLoopback, type Loopback } from '../http/loopback.js'
import { API_KEY, collect } from './cases.js'

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const schema = { title: 'plan', type: 'object', properties: { queries: { type: 'array', items: { type: 'string' } } }, required: ['queries'] }
const REPLY = '{"queries":["sky colour"]}'
const openaiStream =
  ['{"queries":', '["sky', ' colour"]}'].map((c) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: c } }] })}\n\n`).join('') +
  'data: [DONE]\n\n'

let server: Loopback | undefined
afterEach(() => server?.close())

/** An OpenAI-compatible server that answers 400 to the response formats it does not know. */
async function picky(accepts: ReadonlySet<string>): Promise<Loopback> {
  return startLoopback((req, res) => {
    const format = (JSON.parse(req.body) as { response_format?: { type: string } }).response_format?.type ?? 'none'
    if (!accepts.has(format)) {
      res.writeHead(400, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ error: { message: `response_format ${format} is not supported`, type: 'invalid_request_error' } }))
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(openaiStream)
  })
}

const formatsSent = (s: Loopback) => s.requests.map((r) => (JSON.parse(r.body) as { response_format?: { type: string } }).response_format?.type ?? 'none')

it('openai: a refused json_schema falls back to json_object, then to none, says so, and remembers it', async () => {
  server = await picky(new Set(['none']))
  const llm = openai({ baseURL: `${server.url}/v1`, apiKey: API_KEY, model: 'small' })
  const retries: RetryInfo[] = []
  const first = await collect(llm, { prompt: 'Plan.', json: schema, onRetry: (info) => retries.push(info) })
  expect(first.text).toBe(REPLY)
  expect(formatsSent(server)).toEqual(['json_schema', 'json_object', 'none'])
  expect(retries.map((r) => [r.status, r.reason])).toEqual([
    [400, 'the server refused a JSON Schema response format (400); asking again with JSON mode'],
    [400, 'the server refused JSON mode (400); asking again with no response format'],
  ])
  // The adapter learned it: the next schema call and the next JSON call go straight without one.
  await collect(llm, { prompt: 'Plan again.', json: schema })
  await collect(llm, { prompt: 'JSON.', json: true })
  expect(formatsSent(server).slice(3)).toEqual(['none', 'none'])
})

it('openai: a server that takes JSON mode keeps it, and a plain call is never downgraded', async () => {
  server = await picky(new Set(['json_object', 'none']))
  const llm = openai({ baseURL: `${server.url}/v1`, apiKey: API_KEY, model: 'small' })
  await collect(llm, { prompt: 'Plan.', json: schema })
  await collect(llm, { prompt: 'Plan again.', json: schema })
  await collect(llm, { prompt: 'Hello.' })
  expect(formatsSent(server)).toEqual(['json_schema', 'json_object', 'json_object', 'none'])
})

it('openai: a 400 that has nothing to do with the format is not retried', async () => {
  server = await startLoopback((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end('{"error":{"message":"context too long"}}')
  })
  const llm = openai({ baseURL: `${server.url}/v1`, apiKey: API_KEY, model: 'small' })
  await expect(collect(llm, { prompt: 'Hi.' })).rejects.toMatchObject({ status: 400 })
  expect(server.requests).toHaveLength(1)
})

it('ollama: the schema is the format', async () => {
  server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' })
    res.end(
      `${JSON.stringify({ message: { role: 'assistant', content: REPLY }, done: false })}\n${JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 5, eval_count: 3 })}\n`,
    )
  })
  const llm = ollama({ host: server.url, model: 'qwen3:4b' })
  expect((await collect(llm, { prompt: 'Plan.', json: schema })).text).toBe(REPLY)
  expect((JSON.parse(server.requests[0]?.body ?? '{}') as { format: unknown }).format).toEqual(schema)
})

it('anthropic: a schema call is a forced tool whose streamed input is the reply', async () => {
  const events = [
    { type: 'message_start', message: { id: 'm', role: 'assistant', content: [], usage: { input_tokens: 12, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'structured_reply', input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"queries":' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '["sky colour"]}' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  ]
  server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''))
  })
  const llm = anthropic({ baseURL: server.url, apiKey: API_KEY, model: 'claude-haiku-4-5' })
  const got = await collect(llm, { system: 'Plan searches.', prompt: 'Plan.', json: schema })
  expect(got.text).toBe(REPLY)
  expect(got.chunks.some((c) => c.type === 'tool-call' || c.type === 'tool-call-delta')).toBe(false)
  const body = JSON.parse(server.requests[0]?.body ?? '{}') as Record<string, unknown>
  expect(body.tools).toEqual([{ name: 'structured_reply', description: expect.any(String), input_schema: schema }])
  expect(body.tool_choice).toEqual({ type: 'tool', name: 'structured_reply' })
  expect(body.system).toEqual([{ type: 'text', text: 'Plan searches.', cache_control: { type: 'ephemeral' } }])
})
