/**
 * A results page the extraction pool could not read in time (hostile markup: see
 * duckduckgo-parse.test.ts for the real budget cutting a real page) fails the search with a
 * clear, non-retried error. The pool is stubbed to fail as it does when a page outlives its
 * budget, so this test does not spend the 5 s budget on a thread.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { duckduckgo } from '../../../src/adapters/index.js'
import { createPacer } from '../../../src/adapters/index.js'
import { startLoopback, type Loopback } from '../http/loopback.js'

vi.mock('../../../src/adapters/fetch/off-thread.js', () => ({
  offThread: ({ timeoutMs }: { timeoutMs: number }) => Promise.reject(new Error(`not done within ${timeoutMs} ms`)),
}))

let server: Loopback | undefined
afterEach(async () => {
  await server?.close()
})

it('a results page not read within its budget is a bad-response error, not retried', async () => {
  server = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' })
    res.end('<html><body><div class="result">…</div></body></html>')
  })
  const search = duckduckgo({ endpoint: `${server.url}/html/`, pacer: createPacer({ intervalMs: 0 }), maxRetries: 2, backoff: { initialMs: 1, maxMs: 1 } })
  await expect(search.search('llama')).rejects.toMatchObject({
    code: 'bad-response',
    provider: 'duckduckgo',
    retryable: false,
    message: expect.stringContaining('could not be read (not done within 5000 ms)'),
  })
  expect(server.requests).toHaveLength(1)
})
