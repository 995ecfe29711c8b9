/**
 * Every structured call of every strategy sends its JSON Schema on the wire: each strategy runs
 * through the real openai adapter against a loopback server that answers each call by its
 * schema's name with a schema-valid reply, and records what it was sent. The schema a strategy
 * declares is the one its request to the model names (`LLMRequest.json`), recorded on the way in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openai } from '../../src/adapters/index.js'
import type { LLMProvider, LLMRequest } from '../../src/index.js'
import { createAgent } from '../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch } from '../../src/testing/index.js'
import { startLoopback, type Loopback } from '../adapters/http/loopback.js'

type JsonSchema = NonNullable<LLMRequest['tools']>[number]['parameters']

const FACT = 'Air scatters blue light more than red light.'
const replies: Record<string, (turn: number) => unknown> = {
  research_plan: () => ({ goal: 'explain the colour', steps: ['find the cause'], key_elements: ['Rayleigh scattering'], queries: ['why is the sky blue'] }),
  extracted_facts: () => ({ facts: [{ text: FACT, source: 1 }] }),
  node_check: () => ({ answerable: true, missing: '', queries: [] }),
  condensed_facts: () => ({ facts: [{ text: FACT, sources: [1] }] }),
  search_queries: () => ({ queries: ['why is the sky blue'] }),
  reflection: () => ({ slots: { cause: `${FACT} [1]` }, need_more: false, new_queries: [] }),
  next_step: (turn) =>
    turn === 0
      ? { is_complete: false, next_question: 'Why does air scatter blue light?', reasoning: 'the cause' }
      : { is_complete: true, reasoning: 'covered' },
  sub_answer: () => ({ answer: `${FACT} [1]`, confidence: 0.9, facts: [{ text: FACT, sources: [1] }], need_more: false, queries: [] }),
  research_report: () => ({
    title: 'Why the sky is blue',
    main_findings: [`${FACT} [1]`],
    conclusions: ['Rayleigh scattering.'],
    limitations: ['One source.'],
    recommendations: ['Read more.'],
    sources_summary: 'One page.',
  }),
}

let server: Loopback
const turns = new Map<string, number>()
beforeAll(async () => {
  server = await startLoopback((req, res) => {
    const body = JSON.parse(req.body) as { response_format?: { json_schema?: { name: string } } }
    const name = body.response_format?.json_schema?.name
    const turn = name ? (turns.get(name) ?? 0) : 0
    if (name) turns.set(name, turn + 1)
    const reply = name ? JSON.stringify(replies[name]?.(turn) ?? {}) : 'The sky is blue because air scatters blue light most [1].'
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    // Sent in small pieces, as a server streams tokens.
    for (const piece of reply.match(/.{1,7}/gs) ?? []) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`)
    res.end('data: [DONE]\n\n')
  })
})
afterAll(() => server.close())

/** The model `inner`, recording each request the strategy makes of it before it goes on the wire. */
function recording(inner: LLMProvider): { llm: LLMProvider; requests: LLMRequest[] } {
  const requests: LLMRequest[] = []
  const llm: LLMProvider = Object.assign(Object.create(inner) as LLMProvider, {
    stream: (req: LLMRequest) => {
      requests.push(req)
      return inner.stream(req)
    },
  })
  return { llm, requests }
}

/** The schemas the strategy declared in its requests, by title; one schema per title. */
function declared(requests: readonly LLMRequest[]): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>()
  for (const req of requests) {
    if (typeof req.json !== 'object') continue
    const title = (req.json as { title?: unknown }).title
    expect(typeof title).toBe('string')
    const seen = schemas.get(title as string)
    if (seen) expect(req.json).toEqual(seen)
    schemas.set(title as string, req.json)
  }
  return schemas
}

describe.each([
  ['graph-reader', ['research_plan', 'extracted_facts', 'node_check']],
  ['reflect', ['search_queries', 'reflection']],
  ['deep', ['next_step', 'sub_answer', 'research_report']],
] as const)('%s', (strategy, mustSee) => {
  it('sends the declared schema with every structured call, and reads the schema-valid replies', async () => {
    const before = server.requests.length
    turns.clear()
    const { llm, requests } = recording(openai({ baseURL: `${server.url}/v1`, model: 'gpt-4o-mini', apiKey: 'sk-test' }))
    const agent = createAgent({
      strategy,
      llm,
      search: mockSearch({ results: () => [{ title: 'Sky', url: 'https://example.org/sky', snippet: FACT }] }),
      fetch: mockFetch({ pages: { 'https://example.org/sky': FACT } }),
    })
    const events = []
    for await (const event of agent.research('Why is the sky blue?')) events.push(event)
    assertEventInvariants(events)
    expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    expect(events.filter((e) => e.type === 'warning' && e.code === 'unparseable-output')).toEqual([])

    const sent = server.requests.slice(before).map((r) => JSON.parse(r.body) as { messages: { content: string }[]; response_format?: unknown })
    const structured = sent.filter((body) => /JSON only/i.test(body.messages[0]?.content ?? ''))
    expect(structured.length).toBeGreaterThan(0)
    // Every structured call declared its schema, and the wire carries each one.
    const schemas = declared(requests)
    expect(requests.filter((req) => typeof req.json === 'object')).toHaveLength(structured.length)
    const names = new Set<string>()
    for (const body of structured) {
      const format = body.response_format as { type: string; json_schema: { name: string; schema: JsonSchema } }
      expect(format.type).toBe('json_schema')
      expect(format.json_schema.schema).toEqual(schemas.get(format.json_schema.name))
      names.add(format.json_schema.name)
    }
    for (const name of mustSee) expect(names).toContain(name)
  })
})
