/**
 * Tool calls on each adapter's wire: parallel calls in streams written from the providers' docs,
 * replayed over loopback and cut at random byte offsets (the recorded tool-call streams are
 * checked in recorded-streams.test.ts); the request bodies that carry tools, choices and turns.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { expect, it } from 'vitest'
import type { LLMChunk, LLMProvider, LLMRequest } from '../../../src/index.js'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import { cutAt, loopbacks, writePieces } from '../http/loopback.js'
import { API_KEY } from './cases.js'

type ChatTurn = NonNullable<LLMRequest['turns']>[number]

const serve = loopbacks()
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/tool-calls/${name}`, import.meta.url), 'utf8')
const frames = (name: string) =>
  fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')

/** The provider framing of recorded payload lines. */
const openaiSSE = (name: string) =>
  `${frames(name)
    .map((line) => `data: ${line}\n\n`)
    .join('')}data: [DONE]\n\n`
interface Replay {
  name: string
  body: string
  contentType: string
  make(url: string): LLMProvider
  text: string
  calls: { id?: string; name: string; args: unknown }[]
}

const openaiMake = (url: string) => openai({ baseURL: `${url}/v1`, apiKey: API_KEY, model: 'gpt-4o' })
const anthropicMake = (url: string) => anthropic({ baseURL: url, apiKey: API_KEY, model: 'claude-sonnet-4-5' })

const replays: Replay[] = [
  {
    name: 'openai: two calls interleaved by index',
    body: openaiSSE('openai-parallel-calls.chunks.txt'),
    contentType: 'text/event-stream',
    make: openaiMake,
    text: '',
    calls: [
      { id: 'call_search_Zx1', name: 'search', args: { query: 'Zürich population 🏙️' } },
      { id: 'call_read_Qy2', name: 'read_page', args: { url: 'https://example.org/東京' } },
    ],
  },
  {
    name: 'ollama: two whole calls in one line',
    body: fixture('ollama-parallel-calls.ndjson'),
    contentType: 'application/x-ndjson',
    make: (url) => ollama({ host: url, model: 'qwen3:4b' }),
    text: '',
    calls: [
      { name: 'search', args: { query: 'Zürich population 🏙️' } },
      { name: 'read_page', args: { url: 'https://example.org/東京' } },
    ],
  },
]

async function collect(llm: LLMProvider, req: LLMRequest = { prompt: 'q' }): Promise<LLMChunk[]> {
  const chunks: LLMChunk[] = []
  for await (const chunk of llm.stream(req)) chunks.push(chunk)
  return chunks
}

/** What the chunks say: the text, each complete call, and each call's arguments rebuilt from its deltas. */
function read(chunks: LLMChunk[]) {
  const text = chunks.map((c) => (c.type === 'text' ? c.text : '')).join('')
  const complete = chunks.flatMap((c) => (c.type === 'tool-call' ? [c] : []))
  const fromDeltas = new Map<string, string>()
  for (const c of chunks) if (c.type === 'tool-call-delta') fromDeltas.set(c.id, (fromDeltas.get(c.id) ?? '') + c.argsDelta)
  return { text, complete, fromDeltas, usage: chunks.filter((c) => c.type === 'usage') }
}

it.each(replays)('$name: cut anywhere, the same text and calls; deltas add up to each call', async (replay) => {
  let pieces: Uint8Array[] = []
  const server = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': replay.contentType })
    await writePieces(res, pieces)
    res.end()
  })
  const bytes = new TextEncoder().encode(replay.body)
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }), async (offsets) => {
      pieces = cutAt(bytes, offsets)
      const chunks = await collect(replay.make(server.url))
      const got = read(chunks)
      expect(got.text).toBe(replay.text)
      expect(got.complete.map((c) => ({ ...(replay.calls[0]?.id ? { id: c.id } : {}), name: c.name, args: c.args === '' ? {} : JSON.parse(c.args) }))).toEqual(
        replay.calls,
      )
      for (const call of got.complete) expect(got.fromDeltas.get(call.id)).toBe(call.args)
      expect(new Set(got.complete.map((c) => c.id)).size).toBe(got.complete.length)
      // Every call is complete before the usage chunk, which stays last.
      expect(chunks.at(-1)?.type).toBe('usage')
    }),
    { numRuns: 15 },
  )
})

it('a call streams its pieces while the response is still arriving', async () => {
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  const lines = frames('openai-parallel-calls.chunks.txt')
  const server = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    await writePieces(
      res,
      lines.slice(0, 3).map((line) => `data: ${line}\n\n`),
    )
    await held
    res.end(
      `${lines
        .slice(3)
        .map((line) => `data: ${line}\n\n`)
        .join('')}data: [DONE]\n\n`,
    )
  })
  try {
    const stream = openaiMake(server.url).stream({ prompt: 'q' })[Symbol.asyncIterator]()
    expect((await stream.next()).value).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_search_Zx1', name: 'search', argsDelta: '' })
    expect((await stream.next()).value).toEqual({ type: 'tool-call-delta', index: 0, id: 'call_search_Zx1', name: 'search', argsDelta: '{"query":"Zür' })
    release()
    const rest = read(
      await (async () => {
        const chunks: LLMChunk[] = []
        for (let step = await stream.next(); !step.done; step = await stream.next()) chunks.push(step.value)
        return chunks
      })(),
    )
    expect(rest.complete.map((c) => c.name)).toEqual(['search', 'read_page'])
  } finally {
    release()
  }
})

it('openai: any interleaving of pieces, cut anywhere, rebuilds each call whole, in the order the calls started', async () => {
  const calls = fc.array(fc.record({ name: fc.constantFrom('search', 'read_page', 'x'), args: fc.string({ maxLength: 30 }) }), { minLength: 1, maxLength: 4 })
  // One server for every run: it replays the stream of the run at hand, cut where the run says.
  let pieces: Uint8Array[] = []
  const server = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    await writePieces(res, pieces)
    res.end()
  })
  const frame = (call: Record<string, unknown>) =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] })}\n\n`
  await fc.assert(
    fc.asyncProperty(calls, fc.array(fc.nat(), { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 20 }), async (wanted, choices, offsets) => {
      // Each call is split into pieces; pieces of different calls interleave in the order `choices` picks.
      const queues = wanted.map((call, index) => {
        const pieces = call.args.match(/.{1,3}/gsu) ?? []
        return [
          frame({ index, id: `id${index}`, type: 'function', function: { name: call.name, arguments: '' } }),
          ...pieces.map((args) => frame({ index, function: { arguments: args } })),
        ]
      })
      const stream: string[] = []
      // Calls start in index order, as providers send them.
      for (const queue of queues) stream.push(queue.shift()!)
      let pick = 0
      while (queues.some((q) => q.length)) {
        const open = queues.filter((q) => q.length)
        const queue = open[(choices[pick++] ?? 0) % open.length]!
        stream.push(queue.shift()!)
      }
      stream.push('data: [DONE]\n\n')
      const bytes = new TextEncoder().encode(stream.join(''))
      pieces = cutAt(
        bytes,
        offsets.map((offset) => offset % bytes.length),
      )
      const out = await collect(openaiMake(server.url))
      expect(out.flatMap((c) => (c.type === 'tool-call' ? [{ name: c.name, args: c.args }] : []))).toEqual(wanted)
    }),
  )
})

const turns: ChatTurn[] = [
  {
    role: 'assistant',
    text: 'Looking.',
    toolCalls: [
      { id: 'c1', name: 'search', args: '{"query":"q"}' },
      { id: 'c2', name: 'read_page', args: 'not json' },
    ],
  },
  { role: 'tool', callId: 'c1', name: 'search', content: '[1] A' },
  { role: 'tool', callId: 'c2', name: 'read_page', content: 'bad arguments', isError: true },
  { role: 'user', text: 'Cite sources.' },
]
const tools = [
  { name: 'search', description: 'Search the web', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
]

async function bodyOf(make: (url: string) => LLMProvider, req: LLMRequest): Promise<Record<string, unknown>> {
  let body = ''
  const server = await serve((recorded, res) => {
    body = recorded.body
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end('{"error":{"message":"stop here"}}')
  })
  await collect(make(server.url), req).catch(() => undefined)
  return JSON.parse(body) as Record<string, unknown>
}

it('openai: tools, a forced choice, and past turns as assistant tool_calls and tool messages', async () => {
  const body = await bodyOf(openaiMake, { prompt: 'Q', tools, toolChoice: { name: 'search' }, turns })
  expect(body.tools).toEqual([{ type: 'function', function: tools[0] }])
  expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'search' } })
  expect(body.messages).toEqual([
    { role: 'user', content: 'Q' },
    {
      role: 'assistant',
      content: 'Looking.',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'search', arguments: '{"query":"q"}' } },
        { id: 'c2', type: 'function', function: { name: 'read_page', arguments: 'not json' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '[1] A' },
    { role: 'tool', tool_call_id: 'c2', content: 'bad arguments' },
    { role: 'user', content: 'Cite sources.' },
  ])
  expect((await bodyOf(openaiMake, { prompt: 'Q', tools: [], toolChoice: 'none' })).tools).toBeUndefined()
})

it('anthropic: input_schema tools, choices mapped, results as tool_result blocks of one user message', async () => {
  const body = await bodyOf(anthropicMake, { prompt: 'Q', tools, toolChoice: 'required', turns })
  expect(body.tools).toEqual([{ name: 'search', description: 'Search the web', input_schema: tools[0]!.parameters }])
  expect(body.tool_choice).toEqual({ type: 'any' })
  expect(body.messages).toEqual([
    { role: 'user', content: 'Q' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'c1', name: 'search', input: { query: 'q' } },
        // Arguments that are not a JSON object go back as an empty input (the API wants an object).
        { type: 'tool_use', id: 'c2', name: 'read_page', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: '[1] A' },
        { type: 'tool_result', tool_use_id: 'c2', content: 'bad arguments', is_error: true },
        { type: 'text', text: 'Cite sources.' },
      ],
    },
  ])
  expect((await bodyOf(anthropicMake, { prompt: 'Q', tools, toolChoice: { name: 'search' } })).tool_choice).toEqual({ type: 'tool', name: 'search' })
  expect((await bodyOf(anthropicMake, { prompt: 'Q', tools, toolChoice: 'none' })).tool_choice).toEqual({ type: 'none' })
})

it('ollama: tools as OpenAI describes them, calls with object arguments, results named by tool', async () => {
  const make = (url: string) => ollama({ host: url, model: 'qwen3:4b' })
  const body = await bodyOf(make, { prompt: 'Q', tools, turns })
  expect(body.tools).toEqual([{ type: 'function', function: tools[0] }])
  expect(body.messages).toEqual([
    { role: 'user', content: 'Q' },
    {
      role: 'assistant',
      content: 'Looking.',
      tool_calls: [{ function: { name: 'search', arguments: { query: 'q' } } }, { function: { name: 'read_page', arguments: {} } }],
    },
    { role: 'tool', content: '[1] A', tool_name: 'search' },
    { role: 'tool', content: 'bad arguments', tool_name: 'read_page' },
    { role: 'user', content: 'Cite sources.' },
  ])
  // No tool choice on this wire: `none` means no tools at all.
  expect((await bodyOf(make, { prompt: 'Q', tools, toolChoice: 'none' })).tools).toBeUndefined()
})
