/**
 * The react strategy's text protocol end to end, through the real `openai` adapter and a loopback
 * OpenAI-compatible server whose model never calls a tool: it writes `Thought / Action / Action
 * Input`, reads the `Observation`, and ends with `Final Answer` citing what it read. Three servers
 * that lead there: one that refuses `tools` (vLLM's 400), one that takes `tools` and ignores them,
 * and an agent set to `toolCalls: 'text'` from the start. Every reply is cut into small pieces.
 */
import { expect, it } from 'vitest'
import { openai } from '../../../src/adapters/index.js'
import type { EventOf, ResearchEvent } from '../../../src/index.js'
import type { AgentOptions } from '../../../src/index.js'
import { createAgent } from '../../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch } from '../../../src/testing/index.js'
import { cutAt, loopbacks, writePieces } from '../../adapters/http/loopback.js'

type ReactOptions = NonNullable<AgentOptions['react']>

const serve = loopbacks()

const search = mockSearch({
  results: {
    'Eiffel Tower architect': [
      { title: 'Eiffel Tower — history', url: 'https://example.org/eiffel', snippet: 'Designed by the firm of Gustave Eiffel.' },
      { title: 'Paris guide', url: 'https://example.org/paris', snippet: 'Visit Paris.' },
    ],
  },
})
const fetch = mockFetch({
  pages: {
    'https://example.org/eiffel': {
      title: 'Eiffel Tower — history',
      text: 'Maurice Koechlin and Émile Nouguier, engineers of the Eiffel firm, drew the first plans in 1884.',
    },
  },
})

/** The model's three replies, in the text protocol only. */
const SEARCH_STEP = 'Thought: I should look this up.\nAction: search\nAction Input: {"query": "Eiffel Tower architect"}'
const READ_STEP =
  'Thought: the first result looks right; read it.\nAction: read_page\nAction Input: https://example.org/eiffel\nObservation: (the model invents one, which is cut off)'
const ANSWER_STEP = 'Thought: the page names them.\nFinal Answer: Maurice Koechlin and Émile Nouguier of the Eiffel firm drew the first plans [1].'
const ANSWER = 'Maurice Koechlin and Émile Nouguier of the Eiffel firm drew the first plans [1].'

const frame = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`
/** An OpenAI chat-completions stream of `text`, a few characters per delta, with no tool call. */
function textStream(text: string): string {
  const deltas = text.match(/[\s\S]{1,7}/g) ?? []
  return [
    frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...deltas.map((content) => frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    frame({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 300, completion_tokens: 40, total_tokens: 340 } }),
    'data: [DONE]\n\n',
  ].join('')
}

interface Body {
  messages: { role: string; content: string | null }[]
  tools?: unknown[]
}

/** Which reply the model gives: by the observations the request carries. */
function replyTo(body: Body): string {
  const observations = body.messages.filter((m) => m.role === 'user' && m.content?.startsWith('Observation:'))
  if (observations.length === 0) return SEARCH_STEP
  if (observations.length === 1) return READ_STEP
  return ANSWER_STEP
}

interface Server {
  name: string
  react?: ReactOptions
  /** The server's answer to a request that offers tools: undefined streams the model's text as usual. */
  onTools?: { status: number; body: unknown }
  /** The warning the run gives when it switches protocol, if it does. */
  switched?: RegExp
  /** Whether each request to the server offered tools. */
  offered: boolean[]
}

const servers: Server[] = [
  {
    name: 'a server that refuses tools (vLLM without --enable-auto-tool-choice)',
    onTools: {
      status: 400,
      body: {
        object: 'error',
        message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    },
    switched: /cannot call tools/,
    // Refused, then the same step again in the text protocol.
    offered: [true, false, false, false],
  },
  // The first reply's action is taken as it is, and the protocol is spoken from then on.
  { name: 'a server that takes tools and ignores them', switched: /wrote a text-protocol action/, offered: [true, false, false] },
  { name: "an agent set to toolCalls: 'text'", react: { toolCalls: 'text' }, offered: [false, false, false] },
]

it.each(servers)('$name: search, read_page, then a cited answer, all in the text protocol', async (server) => {
  let cut = 0
  const loopback = await serve(async (req, res) => {
    const body = JSON.parse(req.body) as Body
    if (body.tools && server.onTools) {
      res.writeHead(server.onTools.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(server.onTools.body))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    // Chunk boundaries anywhere: inside labels, frames and multi-byte characters.
    const bytes = new TextEncoder().encode(textStream(replyTo(body)))
    cut++
    await writePieces(
      res,
      cutAt(
        bytes,
        Array.from({ length: 40 }, (_, i) => ((i + 1) * (97 + cut * 13)) % bytes.length),
      ),
    )
    res.end()
  })
  const agent = createAgent({ llm: openai({ baseURL: `${loopback.url}/v1`, model: 'llama-3.2-3b' }), search, fetch, strategy: 'react', react: server.react })
  const run = agent.research('Who drew the first plans of the Eiffel Tower?')
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  const of = <T extends ResearchEvent['type']>(type: T) => events.filter((e): e is EventOf<T> => e.type === type)

  const result = await run.result
  expect(result.reason).toBe('answered')
  expect(result.answer).toBe(ANSWER)
  expect(result.citations).toEqual([{ index: 1, url: 'https://example.org/eiffel', title: 'Eiffel Tower — history' }])
  expect(of('tool-call').map((e) => [e.name, e.args])).toEqual([
    ['search', { query: 'Eiffel Tower architect' }],
    ['read_page', { url: 'https://example.org/eiffel' }],
  ])
  expect(of('tool-result').map((e) => e.ok)).toEqual([true, true])
  expect(of('page').map((e) => e.url)).toEqual(['https://example.org/eiffel'])
  const warnings = of('warning').map((w) => w.message)
  if (server.switched) expect(warnings.filter((m) => server.switched!.test(m))).toHaveLength(1)
  else expect(warnings).toEqual([])

  // After the switch (or from the start) no request offers tools, and each explains the protocol.
  const bodies = loopback.requests.map((r) => JSON.parse(r.body) as Body)
  expect(bodies.map((b) => Boolean(b.tools))).toEqual(server.offered)
  const textRequests = bodies.filter((b) => !b.tools)
  for (const body of textRequests) expect(body.messages[0]?.content).toContain('Action Input:')
  const last = textRequests
    .at(-1)!
    .messages.map((m) => m.content ?? '')
    .join('\n')
  expect(last).toContain('Observation: [1] Eiffel Tower — history')
  expect(last).toContain('drew the first plans in 1884')
  // The invented Observation in the model's reply never reaches the tool or the next prompt as a result.
  expect(last).not.toContain('Observation: (the model invents one')
})

it('the last step: an action there is asked once more over the wire, and the answer it then gives stands', async () => {
  const loopback = await serve(async (req, res) => {
    const body = JSON.parse(req.body) as Body
    const last = body.messages.at(-1)?.content ?? ''
    // Told it has no steps left, the model answers; until then it only acts.
    const reply = last.includes('no steps left') ? ANSWER_STEP : body.messages.some((m) => m.content?.startsWith('Observation:')) ? READ_STEP : SEARCH_STEP
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    const bytes = new TextEncoder().encode(textStream(reply))
    await writePieces(
      res,
      cutAt(
        bytes,
        Array.from({ length: 30 }, (_, i) => ((i + 1) * 89) % bytes.length),
      ),
    )
    res.end()
  })
  const llm = openai({ baseURL: `${loopback.url}/v1`, model: 'llama-3.2-3b' })
  const agent = createAgent({ llm, search, fetch, strategy: 'react', react: { toolCalls: 'text', maxSteps: 2 } })
  const run = agent.research('Who drew the first plans of the Eiffel Tower?')
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  const result = await run.result
  expect(result.reason).toBe('max-iterations')
  expect(result.answer).toBe(ANSWER)
  // search ran; the last step's read_page did not; the retry was the third and last request.
  expect(events.filter((e) => e.type === 'tool-call').map((e) => (e.type === 'tool-call' ? e.name : ''))).toEqual(['search'])
  const bodies = loopback.requests.map((r) => JSON.parse(r.body) as Body)
  expect(bodies).toHaveLength(3)
  expect(bodies[2]!.messages.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('Action: read_page') })
  // The invented Observation of the acting reply is cut from the model's turn here too.
  expect(bodies[2]!.messages.at(-2)!.content).not.toContain('the model invents one')
})
