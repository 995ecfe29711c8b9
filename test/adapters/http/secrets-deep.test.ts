/**
 * Issue 13, finding 7: no secret anywhere in an error, however deep: the whole cause chain,
 * an AggregateError's errors, stacks, and quotes of a body cut in the middle of a key.
 */
import { describe, expect, it } from 'vitest'
import { brave, httpFetch, tavily } from '../../../src/adapters/index.js'
import { loopbacks } from './loopback.js'

const KEY = 'sk-live-0123456789abcdefSECRET'
const serve = loopbacks()

/** Every text an error carries: messages, stacks, hints, codes, down every cause and into every `errors`. */
function textsOf(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value]
  if (value === null || typeof value !== 'object' || seen.has(value)) return []
  seen.add(value)
  const texts: string[] = []
  for (const key of new Set([...Object.getOwnPropertyNames(value), 'message', 'stack', 'cause'])) {
    texts.push(...textsOf((value as Record<string, unknown>)[key], seen))
  }
  return texts
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

describe('secrets in errors', () => {
  it('are redacted down the whole cause chain and in AggregateError.errors', async () => {
    const deep = new Error('socket said no', {
      cause: new Error('tls', { cause: new Error('proxy', { cause: new Error(`upstream rejected Bearer ${KEY}`) }) }),
    })
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: new AggregateError([deep, new Error(`retry with ${KEY}`)], 'all attempts failed') })
    }
    // brave() with a fetch of the test's own (its `fetch` option), failing the way a proxy chain may.
    const error = await failure(brave({ apiKey: KEY, baseURL: 'http://127.0.0.1:1/x', maxRetries: 0, fetch }).search('q'))
    expect(error).toMatchObject({ code: 'network' })
    const texts = textsOf(error)
    // The chain is still there for debugging, only redacted.
    expect(texts.some((text) => text.includes('upstream rejected Bearer [redacted]'))).toBe(true)
    expect(texts.some((text) => text.includes('retry with [redacted]'))).toBe(true)
    for (const text of texts) expect(text).not.toContain(KEY)
  })

  it.each([
    ['brave', (url: string) => brave({ apiKey: KEY, baseURL: url, maxRetries: 0 })],
    ['tavily', (url: string) => tavily({ apiKey: KEY, baseURL: url, maxRetries: 0 })],
  ])('%s: a non-JSON body echoing the key where the quote is cut leaves no fragment of it', async (_name, make) => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      // The key straddles the 120th character, where the quoted start of the body is cut.
      res.end(`${'x'.repeat(110)}${KEY} and this is not JSON`)
    })
    const error = await failure(make(url).search('q'))
    expect(error).toMatchObject({ code: 'bad-response' })
    for (const text of textsOf(error)) expect(text).not.toContain(KEY.slice(0, 10))
  })

  it('an error status whose message is cut mid-key leaves no fragment of it', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `${'y'.repeat(290)} your key ${KEY} is wrong` } }))
    })
    const error = await failure(brave({ apiKey: KEY, baseURL: url, maxRetries: 0 }).search('q'))
    expect(error).toMatchObject({ code: 'http', status: 400 })
    for (const text of textsOf(error)) expect(text).not.toContain(KEY.slice(0, 10))
  })

  it('a refused URL is quoted cut to a sane length', async () => {
    const long = `http://127.0.0.1/${'a'.repeat(100_000)}`
    const error = await failure(httpFetch().fetch(long))
    expect(error).toMatchObject({ code: 'blocked-url' })
    expect((error as Error).message.length).toBeLessThan(500)
    expect(((error as { url: string }).url ?? '').length).toBeLessThanOrEqual(2001)
  })
})
