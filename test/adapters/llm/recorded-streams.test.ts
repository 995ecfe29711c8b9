/**
 * Real provider streams recorded by public SDKs' test suites (test/fixtures/provider-streams,
 * provenance beside each), replayed through loopback servers: whole, cut at random offsets, and
 * one byte at a time. Each replay must give the text, reasoning, usage, refusal and tool calls
 * the recorded payloads carry.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { anthropic, ollama, openai } from '../../../src/adapters/index.js'
import type { LLMChunk, LLMProvider } from '../../../src/index.js'
import { ProviderError } from '../../../src/index.js'
import { cutAt, loopbacks, writePieces } from '../http/loopback.js'

const ROOT = new URL('../../fixtures/provider-streams/', import.meta.url).pathname

interface Expect {
  text?: string
  reasoning?: string
  refusal?: string
  error?: string
  usage?: { inputTokens?: number; outputTokens?: number; cachedInputTokens?: number; cacheWriteTokens?: number }
  /** The complete tool calls, in order: arguments as an object, or their text when it is not one; the call's id when the sidecar names it. */
  toolCalls?: ({ id?: string; name: string; args: unknown } | { id?: string; name: string; argsText: string })[]
}

interface Fixture {
  family: Family
  name: string
  body: Uint8Array
  source: { repo: string; path: string; commit: string }
  expect: Expect
}

type Family = 'openai-compatible' | 'anthropic' | 'ollama'

function load(family: Family): Fixture[] {
  const dir = join(ROOT, family)
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sse') || file.endsWith('.ndjson'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.(sse|ndjson)$/, '')
      const sidecar = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Pick<Fixture, 'source' | 'expect'>
      return { family, name, body: new Uint8Array(readFileSync(join(dir, file))), ...sidecar }
    })
}

const corpus = { 'openai-compatible': load('openai-compatible'), anthropic: load('anthropic'), ollama: load('ollama') }

/** A small seeded generator, so a failing split can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

function randomCuts(length: number, seed: number): number[] {
  const next = random(seed)
  const count = 1 + Math.floor(next() * 48)
  return Array.from({ length: count }, () => 1 + Math.floor(next() * (length - 1)))
}

/** A fetch that hands the body on one byte per read, whatever the socket delivered. */
const bytewiseFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init)
  const reader = response.body!.getReader()
  let current = new Uint8Array(0)
  let offset = 0
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (offset >= current.length) {
        const read = await reader.read()
        if (read.done) return controller.close()
        current = read.value
        offset = 0
      }
      controller.enqueue(current.subarray(offset, offset + 1))
      offset++
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return new Response(body, { status: response.status, headers: response.headers })
}

const serve = loopbacks()

async function replay(fixture: Fixture, pieces: Uint8Array[], options: { fetch?: typeof fetch } = {}) {
  const contentType = fixture.family === 'ollama' ? 'application/x-ndjson' : 'text/event-stream'
  const server = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': contentType })
    await writePieces(res, pieces)
    res.end()
  })
  const llm = adapterFor(fixture.family, server.url, options.fetch)
  const chunks: LLMChunk[] = []
  let error: unknown
  try {
    for await (const chunk of llm.stream({ prompt: 'replay' })) chunks.push(chunk)
  } catch (caught) {
    error = caught
  }
  return { chunks, error }
}

function adapterFor(family: Family, url: string, fetchImpl?: typeof fetch): LLMProvider {
  const common = { maxRetries: 0, ...(fetchImpl && { fetch: fetchImpl }) }
  if (family === 'openai-compatible') return openai({ baseURL: `${url}/v1`, model: 'recorded', ...common })
  if (family === 'anthropic') return anthropic({ baseURL: url, apiKey: 'sk-ant-replay', model: 'recorded', ...common })
  return ollama({ host: url, model: 'recorded', ...common })
}

function check(fixture: Fixture, got: { chunks: LLMChunk[]; error: unknown }): void {
  const joined = (type: 'text' | 'reasoning') => got.chunks.map((c) => (c.type === type ? c.text : '')).join('')
  const { expect: want } = fixture
  expect(joined('text')).toBe(want.text ?? '')
  expect(joined('reasoning')).toBe(want.reasoning ?? '')
  if (want.refusal !== undefined || want.error !== undefined) {
    expect(got.error).toBeInstanceOf(ProviderError)
    const error = got.error as ProviderError
    if (want.refusal !== undefined) {
      expect(error.code).toBe('refusal')
      expect(error.message).toContain(want.refusal)
    } else expect(error.message).toContain(want.error)
    return
  }
  expect(got.error).toBeUndefined()
  const calls = got.chunks.flatMap((c) => (c.type === 'tool-call' ? [c] : []))
  expect(
    calls.map((c, i) => {
      const wanted = want.toolCalls?.[i] ?? {}
      const args = 'argsText' in wanted ? { argsText: c.args } : { args: c.args.trim() ? JSON.parse(c.args) : {} }
      return { ...('id' in wanted ? { id: c.id } : {}), name: c.name, ...args }
    }),
  ).toEqual(want.toolCalls ?? [])
  // Every call's id is its own: parallel calls are never merged or split.
  expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length)
  // Each call's pieces add up to its arguments.
  for (const call of calls) expect(got.chunks.map((c) => (c.type === 'tool-call-delta' && c.id === call.id ? c.argsDelta : '')).join('')).toBe(call.args)
  const usage = got.chunks.filter((c) => c.type === 'usage')
  if (want.usage === undefined) {
    expect(usage).toEqual([])
    return
  }
  expect(usage).toHaveLength(1)
  expect(got.chunks.at(-1)).toEqual({ type: 'usage', ...want.usage })
}

describe('the recorded corpus', () => {
  it('holds at least 30 OpenAI-compatible, 20 Anthropic and 10 Ollama streams, each with its provenance', () => {
    expect(corpus['openai-compatible'].length).toBeGreaterThanOrEqual(30)
    expect(corpus.anthropic.length).toBeGreaterThanOrEqual(20)
    expect(corpus.ollama.length).toBeGreaterThanOrEqual(10)
    for (const fixture of Object.values(corpus).flat()) {
      expect(fixture.source.repo).toMatch(/^[\w.-]+\/[\w.-]+$/)
      expect(fixture.source.path).not.toBe('')
      expect(fixture.source.commit).toMatch(/^[0-9a-f]{40}$/)
    }
  })

  it('holds real recordings of several tool calls in one reply, each call named with its id', () => {
    const parallel = Object.values(corpus)
      .flat()
      .filter((fixture) => (fixture.expect.toolCalls?.length ?? 0) > 1)
    expect(parallel.length).toBeGreaterThanOrEqual(3)
    for (const fixture of parallel) expect(fixture.expect.toolCalls?.every((call) => typeof call.id === 'string' && call.id !== '')).toBe(true)
  })
})

describe.each(Object.entries(corpus))('%s streams replayed', (_family, fixtures) => {
  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))('%s', async (_name, fixture) => {
    check(fixture, await replay(fixture, [fixture.body]))
    for (const seed of [1, 2, 3]) check(fixture, await replay(fixture, cutAt(fixture.body, randomCuts(fixture.body.length, seed))))
    check(fixture, await replay(fixture, [fixture.body], { fetch: bytewiseFetch }))
  })
})
