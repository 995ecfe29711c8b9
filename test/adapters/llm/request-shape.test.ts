import { afterAll, beforeAll, expect, it } from 'vitest'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import { LaconicError } from '../../../src/index.js'
import { startLoopback, type Loopback, type RecordedRequest } from '../http/loopback.js'
import { anthropicTranscript, ollamaTranscript, openaiTranscript } from './fixtures.js'
import { API_KEY, collect } from './cases.js'

let server: Loopback
beforeAll(async () => {
  server = await startLoopback((req, res) => {
    const body = req.url.startsWith('/api/') ? ollamaTranscript : req.url.endsWith('/messages') ? anthropicTranscript : openaiTranscript
    res.writeHead(200, { 'content-type': req.url.startsWith('/api/') ? 'application/x-ndjson' : 'text/event-stream' })
    res.end(body)
  })
})
afterAll(() => server.close())

const schema = { title: 'Plan step', type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false }
const last = (): RecordedRequest & { json: Record<string, unknown> } => {
  const req = server.requests.at(-1)!
  return { ...req, json: JSON.parse(req.body) as Record<string, unknown> }
}

it('openai: chat completions with usage requested, JSON mode and schema mapped', async () => {
  const llm = openai({ baseURL: `${server.url}/v1/`, apiKey: API_KEY, model: 'gpt-4o-mini', headers: { 'HTTP-Referer': 'https://example.org' } })
  await collect(llm, { system: 'Be brief.', prompt: 'Hi', json: true, maxTokens: 64, temperature: 0 })
  const req = last()
  expect(req.url).toBe('/v1/chat/completions')
  expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`)
  expect(req.headers['http-referer']).toBe('https://example.org')
  expect(req.json).toEqual({
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 64,
    temperature: 0,
    response_format: { type: 'json_object' },
  })
  await collect(llm, { prompt: 'Hi', json: schema })
  expect(last().json.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'Plan_step', schema, strict: true } })
})

it('openai reasoning models get max_completion_tokens and no temperature; others keep max_tokens', async () => {
  for (const [model, override, reasoning] of [
    ['o3-mini', undefined, true],
    ['openai/gpt-5-mini', undefined, true],
    ['gpt-4o-mini', undefined, false],
    ['qwen3:4b', undefined, false],
    ['my-o1-finetune', true, true],
    ['o1-lookalike-local', false, false],
  ] as const) {
    await collect(openai({ baseURL: `${server.url}/v1`, model, ...(override !== undefined && { reasoningModel: override }) }), {
      prompt: 'Hi',
      maxTokens: 64,
      temperature: 0,
    })
    const body = last().json
    expect([model, body.max_completion_tokens, body.max_tokens, body.temperature]).toEqual(
      reasoning ? [model, 64, undefined, undefined] : [model, undefined, 64, 0],
    )
  }
})

it('openai without a key sends no authorization header (local servers)', async () => {
  await collect(openai({ baseURL: `${server.url}/v1`, model: 'local' }))
  expect(last().headers.authorization).toBeUndefined()
})

it('ollama: /api/chat with format, think, options and keep_alive', async () => {
  const llm = ollama({ host: server.url, model: 'qwen3:4b', think: 'low', options: { num_ctx: 8192 }, keepAlive: '5m' })
  await collect(llm, { prompt: 'Hi', json: schema, maxTokens: 100, temperature: 0.2 })
  expect(last().url).toBe('/api/chat')
  expect(last().json).toEqual({
    model: 'qwen3:4b',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
    format: schema,
    think: 'low',
    options: { num_ctx: 8192, num_predict: 100, temperature: 0.2 },
    keep_alive: '5m',
  })
  await collect(ollama({ host: server.url, model: 'qwen3:4b', format: 'json' }), { prompt: 'Hi' })
  expect(last().json.format).toBe('json')
})

it('anthropic: messages with version header, max_tokens default and JSON asked in the system prompt', async () => {
  const llm = anthropic({ baseURL: server.url, apiKey: API_KEY, model: 'claude-haiku-4-5', maxTokens: 512 })
  await collect(llm, { system: 'Be brief.', prompt: 'Hi', json: true })
  const req = last()
  expect(req.url).toBe('/v1/messages')
  expect(req.headers['x-api-key']).toBe(API_KEY)
  expect(req.headers['anthropic-version']).toBe('2023-06-01')
  expect(req.json).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], stream: true })
  expect(req.json.system).toEqual([
    { type: 'text', text: expect.stringMatching(/^Be brief\.\n\nReply with a single JSON value/), cache_control: { type: 'ephemeral' } },
  ])
})

it('missing required options fail at construction with a hint', () => {
  expect(() => anthropic({ apiKey: '', model: 'm' })).toThrow(LaconicError)
  expect(() => anthropic({ apiKey: '', model: 'm' })).toThrow(/apiKey/)
  expect(() => openai({ model: '' })).toThrow(/model/)
  expect(() => ollama({ model: '' })).toThrow(/model/)
})

it('anthropic extended thinking: budget sent, max_tokens above it, no temperature', async () => {
  const llm = anthropic({ baseURL: server.url, apiKey: API_KEY, model: 'claude-sonnet-4-5', maxTokens: 512, thinkingBudget: 2048 })
  await collect(llm, { prompt: 'Hi', temperature: 0 })
  expect(last().json).toMatchObject({ max_tokens: 2560, thinking: { type: 'enabled', budget_tokens: 2048 } })
  expect(last().json.temperature).toBeUndefined()
})
