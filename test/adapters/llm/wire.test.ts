/**
 * How each adapter reads its provider's frames: one or a few frames replayed from a loopback
 * server in the provider's framing (SSE `data:` lines, NDJSON lines), the bytes cut at any
 * points, and what `stream()` yields or throws asserted.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ProviderError, type LLMChunk } from '../../../src/index.js'
import { cutAt, loopbacks, writePieces } from '../http/loopback.js'
import { type AdapterCase, cases } from './cases.js'

const serve = loopbacks()
const encoder = new TextEncoder()
const adapter = (name: AdapterCase['name']) => cases.find((c) => c.name === name) as AdapterCase
const cuts = fc.array(fc.nat({ max: 600 }), { maxLength: 12 })

interface Replayed {
  chunks: LLMChunk[]
  error?: unknown
}

/**
 * One server for a test: it answers each call with `frames` in the calling adapter's framing,
 * written in pieces cut at `offsets`; the adapter does not retry.
 */
async function replayer(): Promise<(name: AdapterCase['name'], frames: readonly string[], offsets?: readonly number[]) => Promise<Replayed>> {
  let body = new Uint8Array(0)
  let at: readonly number[] = []
  let contentType = ''
  const server = await serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': contentType })
    await writePieces(res, cutAt(body, at))
    res.end()
  })
  return async (name, frames, offsets = []) => {
    const c = adapter(name)
    body = encoder.encode(frames.map((frame) => (name === 'ollama' ? `${frame}\n` : `data: ${frame}\n\n`)).join(''))
    at = offsets
    contentType = c.contentType
    const chunks: LLMChunk[] = []
    try {
      for await (const chunk of c.make(server.url, { maxRetries: 0 }).stream({ prompt: 'q' })) chunks.push(chunk)
    } catch (error) {
      return { chunks, error }
    }
    return { chunks }
  }
}

/** `check` holds for the call replaying `frames`, however the bytes are cut. */
async function everyCut(name: AdapterCase['name'], frames: readonly string[], check: (replayed: Replayed) => void): Promise<void> {
  const replay = await replayer()
  await fc.assert(
    fc.asyncProperty(cuts, async (offsets) => check(await replay(name, frames, offsets))),
    { numRuns: 15 },
  )
}

describe.each(cases.map((c) => c.name))('%s frame reader', (name) => {
  it('is total over arbitrary text and arbitrary JSON: chunks, or a typed ProviderError', async () => {
    const replay = await replayer()
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ choices: [v], message: v, delta: v, type: 'content_block_delta', usage: v })),
        ),
        cuts,
        async (frame, offsets) => {
          const { chunks, error } = await replay(name, [frame], offsets)
          expect(Array.isArray(chunks)).toBe(true)
          if (error !== undefined) expect(error).toBeInstanceOf(ProviderError)
        },
      ),
    )
  })

  it('a truncated object is malformed, not an exception', async () => {
    await everyCut(name, ['{"message":{"content":"x"'], ({ chunks, error }) => {
      expect(chunks).toEqual([])
      expect(error).toBeInstanceOf(ProviderError)
      expect(error).toMatchObject({ code: 'bad-response', provider: name, message: expect.stringContaining('malformed chunk') })
    })
  })
})

it('openai: usage carries a reported cost (OpenRouter) and reasoning stays out of text', async () => {
  await everyCut(
    'openai',
    ['{"choices":[{"delta":{"reasoning":"hmm","content":"A"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"cost":0.0002}}'],
    (got) => {
      expect(got).toEqual({
        chunks: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'A' },
          { type: 'usage', inputTokens: 3, outputTokens: 1, cost: 0.0002 },
        ],
      })
    },
  )
})

it('openai: a transient error object is retryable, a refusal is not', async () => {
  await everyCut('openai', ['{"error":{"message":"upstream overloaded","code":502}}'], ({ error }) => {
    expect(error).toMatchObject({ name: 'ProviderError', retryable: true, providerMessage: 'upstream overloaded' })
  })
  await everyCut('openai', ['{"error":{"message":"bad request","type":"invalid_request_error"}}'], ({ error }) => {
    expect(error).toMatchObject({ name: 'ProviderError', retryable: false, providerMessage: 'bad request' })
  })
})

it('ollama: /api/generate lines (response, thinking) read the same way', async () => {
  await everyCut('ollama', ['{"model":"m","response":"Hi","thinking":"t","done":false}'], (got) => {
    expect(got).toEqual({
      chunks: [
        { type: 'reasoning', text: 't' },
        { type: 'text', text: 'Hi' },
      ],
    })
  })
})

it('anthropic: input tokens include cached ones; message_delta updates output', async () => {
  const start = '{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":10,"output_tokens":1}}}'
  const delta = '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}'
  await everyCut('anthropic', [start], (got) => {
    expect(got).toEqual({ chunks: [{ type: 'usage', inputTokens: 15, outputTokens: 1, cachedInputTokens: 10 }] })
  })
  await everyCut('anthropic', [delta], (got) => {
    expect(got).toEqual({ chunks: [{ type: 'usage', outputTokens: 42 }] })
  })
  // Both in one stream: the delta's output count replaces the start's.
  await everyCut('anthropic', [start, delta], (got) => {
    expect(got).toEqual({ chunks: [{ type: 'usage', inputTokens: 15, outputTokens: 42, cachedInputTokens: 10 }] })
  })
})

describe('provider quirks seen in recorded streams', () => {
  it('openai: array content parts (Mistral) split into text and reasoning', async () => {
    const frame = JSON.stringify({
      choices: [
        {
          delta: {
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'Two plus two.' }] },
              { type: 'text', text: '4' },
              { type: 'image_url', image_url: 'x' },
            ],
          },
        },
      ],
    })
    await everyCut('openai', [frame], (got) => {
      expect(got).toEqual({
        chunks: [
          { type: 'reasoning', text: 'Two plus two.' },
          { type: 'text', text: '4' },
        ],
      })
    })
    await everyCut('openai', ['{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"plain"}]}}]}'], (got) => {
      expect(got).toEqual({ chunks: [{ type: 'reasoning', text: 'plain' }] })
    })
  })

  it('openai: delta.refusal is a refusal, not text', async () => {
    await everyCut('openai', ['{"choices":[{"delta":{"content":null,"refusal":"I can\'t help with that."}}]}'], ({ chunks, error }) => {
      expect(chunks).toEqual([])
      expect(error).toMatchObject({ name: 'ProviderError', code: 'refusal', providerMessage: "I can't help with that." })
    })
  })

  it('openai: usage under x_groq alone is read, and cached prompt tokens are kept', async () => {
    await everyCut('openai', ['{"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":45,"completion_tokens":662}}}'], (got) => {
      expect(got).toEqual({ chunks: [{ type: 'usage', inputTokens: 45, outputTokens: 662 }] })
    })
    await everyCut(
      'openai',
      ['{"choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}}'],
      (got) => {
        expect(got).toEqual({ chunks: [{ type: 'usage', inputTokens: 2006, outputTokens: 300, cachedInputTokens: 1920 }] })
      },
    )
  })

  it('anthropic: cache writes are named within the input tokens; stop_reason refusal is a refusal', async () => {
    await everyCut(
      'anthropic',
      ['{"type":"message_start","message":{"usage":{"input_tokens":3,"cache_creation_input_tokens":2000,"cache_read_input_tokens":0,"output_tokens":1}}}'],
      (got) => {
        expect(got).toEqual({ chunks: [{ type: 'usage', inputTokens: 2003, outputTokens: 1, cacheWriteTokens: 2000 }] })
      },
    )
    // The refusal ends the call with its explanation (the frame's usage goes with it: there is no answer to count).
    await everyCut(
      'anthropic',
      [
        '{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"explanation":"Blocked under the usage policy."}},"usage":{"output_tokens":5}}',
      ],
      ({ chunks, error }) => {
        expect(chunks).toEqual([])
        expect(error).toMatchObject({ name: 'ProviderError', code: 'refusal', providerMessage: 'Blocked under the usage policy.' })
      },
    )
  })

  it('ollama: a done line without counts reports no counts (not zero)', async () => {
    await everyCut('ollama', ['{"model":"m","message":{"content":""},"done":true,"done_reason":"stop"}'], (got) => {
      expect(got).toEqual({ chunks: [] })
    })
    await everyCut('ollama', ['{"model":"m","response":"","done":true,"eval_count":12}'], (got) => {
      expect(got).toEqual({ chunks: [{ type: 'usage', outputTokens: 12 }] })
    })
  })
})
