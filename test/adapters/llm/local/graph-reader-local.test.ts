/**
 * A whole graph-reader run on a real inference engine: node-llama-cpp samples from a tiny
 * random GGUF (biased towards short strings so runs stay quick), every structured call is
 * constrained by its strategy's schema, and every reply must be JSON of that schema.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { local } from '../../../../src/adapters/index.js'
import type { LLMChunk, LLMProvider, LLMRequest, ResearchEvent } from '../../../../src/index.js'
import { createAgent } from '../../../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch } from '../../../../src/testing/index.js'
import { writeTinyGguf } from './tiny-gguf.js'

type LocalModel = ReturnType<typeof local>

type JsonSchema = NonNullable<LLMRequest['tools']>[number]['parameters']

let dir: string
let model: LocalModel
let unavailable: string | undefined

/**
 * Letters and closing marks likely, a closing quote likelier. Structured calls run at
 * temperature 0, so the quote wins and strings stay short; prefer letters and greedy decoding
 * fills every string to its maxLength and runs past the calls' maxTokens.
 */
function shortWords(byte: number): number {
  const c = String.fromCharCode(byte)
  if (c === '"') return 3.2
  if (/[a-z]/.test(c) || c === ']' || c === '}') return 3
  if (c === ' ') return 2.5
  if (/[0-9]/.test(c)) return 2
  if (c === ',') return 1
  return -5
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'laconic-local-run-'))
  await writeTinyGguf(join(dir, 'words.gguf'), { preference: shortWords })
  model = local({ model: join(dir, 'words.gguf'), gpu: false, threads: 1, parallel: 2 })
  try {
    await model.load()
  } catch (error) {
    if (process.env.CI) throw error
    unavailable = `node-llama-cpp cannot run here (${(error as Error).message})`
    console.warn(`[skipped] local graph-reader run: ${unavailable}`)
  }
}, 120_000)

afterAll(async () => {
  await model?.close()
  await rm(dir, { recursive: true, force: true })
})

/** Passes calls through and keeps each structured call's schema beside the reply it got. */
function recording(llm: LLMProvider): LLMProvider & { structured: Array<{ schema: JsonSchema; reply: string }> } {
  const structured: Array<{ schema: JsonSchema; reply: string }> = []
  return {
    structured,
    local: true,
    async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
      let reply = ''
      for await (const chunk of llm.stream(req)) {
        if (chunk.type === 'text') reply += chunk.text
        yield chunk
      }
      if (typeof req.json === 'object') structured.push({ schema: req.json, reply })
    },
  }
}

/** The schema features the strategies use: types (with null), properties/required, items, bounds. */
function violations(value: unknown, schema: JsonSchema, path = '$'): string[] {
  const types = ([] as unknown[]).concat(schema.type ?? [])
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value
  if (types.length && !types.includes(kind) && !(kind === 'integer' && types.includes('number'))) return [`${path}: ${kind} is not ${types.join('|')}`]
  const out: string[] = []
  if (typeof value === 'string' && typeof schema.maxLength === 'number' && [...value.replace(/\uFFFD+/g, '\uFFFD')].length > schema.maxLength)
    out.push(`${path}: longer than ${schema.maxLength}`)
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) out.push(`${path}: below ${schema.minimum}`)
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) out.push(`${path}: more than ${schema.maxItems} items`)
    for (const [i, item] of value.entries()) out.push(...violations(item, schema.items as JsonSchema, `${path}[${i}]`))
  }
  if (kind === 'object') {
    const object = value as Record<string, unknown>
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
    for (const key of (schema.required ?? []) as string[]) if (!(key in object)) out.push(`${path}.${key}: missing`)
    for (const [key, item] of Object.entries(object)) {
      const itemSchema = properties[key] ?? (typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as JsonSchema) : undefined)
      if (itemSchema) out.push(...violations(item, itemSchema, `${path}.${key}`))
    }
  }
  return out
}

it('graph-reader runs to an answer on node-llama-cpp, every structured reply JSON of its schema', { timeout: 180_000 }, async ({ skip }) => {
  if (unavailable) skip(unavailable)
  const llm = recording(model)
  const pages = { 'https://example.org/sky': 'The sky is blue because air scatters blue light more than red light (Rayleigh scattering).' }
  const agent = createAgent({
    strategy: 'graph-reader',
    llm,
    search: mockSearch({ results: () => [{ title: 'Sky', url: 'https://example.org/sky', snippet: pages['https://example.org/sky'] }] }),
    fetch: mockFetch({ pages }),
    graphReader: { maxSteps: 4, concurrency: 2 },
  })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('Why is the sky blue?')) events.push(event)
  assertEventInvariants(events)
  expect(events.at(-1)).toMatchObject({ type: 'run-end', reason: expect.stringMatching(/^(answered|max-iterations)$/) })
  expect(llm.structured.length).toBeGreaterThanOrEqual(2) // the plan and at least one node
  for (const { schema, reply } of llm.structured) {
    let parsed: unknown
    expect(
      () => {
        parsed = JSON.parse(reply)
      },
      `${String(schema.title)}: ${reply}`,
    ).not.toThrow()
    expect(violations(parsed, schema), `${String(schema.title)}: ${reply}`).toEqual([])
  }
  const llmCalls = events.filter((e) => e.type === 'llm-call')
  expect(llmCalls.every((e) => e.type === 'llm-call' && e.inputTokens > 0)).toBe(true)
})
