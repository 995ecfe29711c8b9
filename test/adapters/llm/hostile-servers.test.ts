/**
 * Issue 13, findings 4 to 6, against each adapter: a server that drips forever, one that
 * sends a line without end, and a 200 that is not a stream at all.
 */
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ProviderError, type LLMChunk } from '../../../src/index.js'
import { loopbacks } from '../http/loopback.js'
import { API_KEY, cases, collectUntilError } from './cases.js'

const serve = loopbacks()
/** The documented cap on one line or SSE event of a response (docs/adapters.md, docs/security.md). */
const MAX_LINE_CHARS = 4_000_000
// A test cut short by its timeout must not leave the next one on fake timers.
afterEach(() => {
  vi.useRealTimers()
})

/** Writes `piece` every 10 ms until the client goes away. */
const drip = (res: import('node:http').ServerResponse, piece: string) => {
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(piece)), 10)
  res.on('close', () => clearInterval(timer))
}

/** Waits for the socket to drain or close, leaving no listener behind (one per wait would pile up). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done)
      resolve()
    }
    res.once('drain', done).once('close', done)
  })
}

describe.each(cases)('$name against hostile servers', (c) => {
  it('a server that keeps dripping bytes is cut off at the total deadline, with a timeout error, not retried', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      res.write(c.textFrame('Hello'))
      // A keep-alive comment (SSE) or a blank line (NDJSON): never idle, never done.
      drip(res, c.name === 'ollama' ? '\n' : ': ping\n\n')
    })
    // The deadline passes once "Hello" is in, by the test's clock: on a busy machine a real 300 ms
    // can run out before the first frame arrives, which is not what this test is about.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const chunks: LLMChunk[] = []
    let error: unknown
    try {
      for await (const chunk of c.make(server.url, { timeouts: { totalMs: 300 }, maxRetries: 2 }).stream({ prompt: 'q' })) {
        chunks.push(chunk)
        if (chunk.type === 'text') vi.advanceTimersByTime(300)
      }
    } catch (caught) {
      error = caught
    } finally {
      vi.useRealTimers()
    }
    expect(chunks).toEqual([{ type: 'text', text: 'Hello' }])
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'timeout', provider: c.name, retryable: false })
    expect((error as Error).message).toContain('not done within 300 ms')
    expect(server.requests).toHaveLength(1)
  })

  it('a line longer than the cap fails with a typed error instead of growing the heap', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      res.write(c.textFrame('Hello'))
      // One unterminated line, sent in 64 KB pieces, until the client hangs up.
      const piece = (c.name === 'ollama' ? '{"x":"' : 'data: ') + 'x'.repeat(65_536)
      res.write(piece)
      const filler = 'x'.repeat(65_536)
      for (let sent = 0; sent < MAX_LINE_CHARS * 2 && !res.destroyed; sent += filler.length) {
        if (!res.write(filler)) await drainedOrClosed(res)
      }
      res.end()
    })
    const { got, error } = await collectUntilError(c.make(server.url, { maxRetries: 0 }), { prompt: 'q' })
    expect(got.text).toBe('Hello')
    expect(error).toMatchObject({ code: 'bad-response' })
    expect((error as Error).message).toMatch(/longer than 4000000 characters/)
  })
})

describe.each(cases.filter((c) => c.name !== 'ollama'))('$name: a 200 that is not an event stream', (c) => {
  it.each([
    [
      'an HTML login page',
      'text/html; charset=utf-8',
      '<!doctype html><html><head><title>Sign in</title></head><body>Sign in to continue</body></html>',
      'Sign in',
    ],
    ['a JSON error body quoting the key', 'application/json', JSON.stringify({ error: { message: `invalid key ${API_KEY}` } }), 'invalid key [redacted]'],
    ['a JSON body sent without a content-type', '', JSON.stringify({ error: { message: 'quota exceeded' } }), 'quota exceeded'],
  ])('%s is a bad-response error quoting the start of the body, redacted', async (_what, type, body, quoted) => {
    const server = await serve((_req, res) => {
      res.writeHead(200, type ? { 'content-type': type } : {})
      res.end(body)
    })
    const { got, error } = await collectUntilError(c.make(server.url, { maxRetries: 0 }), { prompt: 'q' })
    expect(got.text).toBe('')
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'bad-response', provider: c.name, status: 200 })
    expect((error as Error).message).toContain(quoted)
    expect((error as Error).message).not.toContain(API_KEY)
  })

  it('an event stream without its content-type is still read, token by token', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(c.transcript)
    })
    const { text } = await (async () => {
      let text = ''
      for await (const chunk of c.make(server.url).stream({ prompt: 'q' })) if (chunk.type === 'text') text += chunk.text
      return { text }
    })()
    expect(text.length).toBeGreaterThan(0)
  })
})
