/**
 * Issue 29: a server that drips a byte every 300 ms never trips a 1.5 s silence limit; the whole
 * call must still end, at twice the provider's `timeoutMs`. The body is a stream the test feeds
 * on the test's clock: each time the client asks for more, 300 ms pass and one byte comes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { brave, duckduckgo, searxng, tavily } from '../../../src/adapters/index.js'
import type { SearchProvider } from '../../../src/index.js'

afterEach(() => {
  vi.useRealTimers()
})

/** A `fetch` whose 200 body drips one byte per read, 300 ms (fake) after the read began. */
function drippingFetch(): { fetch: typeof globalThis.fetch; bytes: () => number } {
  let bytes = 0
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    const signal = init?.signal ?? undefined
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true })
        },
        pull(controller) {
          vi.advanceTimersByTime(300)
          if (signal?.aborted) return
          bytes++
          controller.enqueue(new Uint8Array([0x20]))
        },
      },
      { highWaterMark: 0 },
    )
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } })
  }
  return { fetch, bytes: () => bytes }
}

const noPacing = { wait: async () => {} }
const providers: [string, (fetch: typeof globalThis.fetch) => SearchProvider][] = [
  ['brave', (fetch) => brave({ apiKey: 'k', timeoutMs: 1500, maxRetries: 2, fetch })],
  ['tavily', (fetch) => tavily({ apiKey: 'k', timeoutMs: 1500, maxRetries: 2, fetch })],
  ['searxng', (fetch) => searxng({ baseURL: 'http://127.0.0.1:9', timeoutMs: 1500, maxRetries: 2, fetch })],
  ['duckduckgo', (fetch) => duckduckgo({ timeoutMs: 1500, maxRetries: 2, pacer: noPacing, fetch })],
]

describe.each(providers)('%s with timeoutMs 1500 against a body that drips a byte every 300 ms', (name, make) => {
  it('ends at the whole-call limit (3 s), with a timeout error, not retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const dripping = drippingFetch()
    const error = await make(dripping.fetch)
      .search('llama')
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect(error).toMatchObject({ code: 'timeout', provider: name, retryable: false })
    expect((error as Error).message).toContain('not done within 3000 ms')
    // Ten reads of 300 ms each: the silence limit never tripped, the whole-call one did.
    expect(dripping.bytes()).toBe(9)
  })
})
