/**
 * An XML answer the extraction pool could not read in time (see scholarly-parse.test.ts for the
 * real budget cutting a real body) fails the search with a clear error, not retried. The pool is
 * stubbed to fail as it does when a body outlives its budget, so this does not spend 5 s of a thread.
 */
import { readFileSync } from 'node:fs'
import { expect, it, vi } from 'vitest'
import { arxiv, createPacer, pubmed } from '../../../src/adapters/index.js'
import { loopbacks } from '../http/loopback.js'

vi.mock('../../../src/adapters/fetch/off-thread.js', () => ({
  offThread: ({ timeoutMs }: { timeoutMs: number }) => Promise.reject(new Error(`not done within ${timeoutMs} ms`)),
}))

const serve = loopbacks()
const fixture = (name: string) => readFileSync(new URL(`../../fixtures/scholarly/${name}`, import.meta.url), 'utf8')
const options = { pacer: createPacer({ intervalMs: 0 }), maxRetries: 2, backoff: { initialMs: 1, maxMs: 1 } }

it.each([
  ['arxiv', (baseURL: string) => arxiv({ baseURL, ...options }), 'arxiv-search.xml', 'the feed could not be read (not done within 5000 ms)'],
  ['pubmed', (baseURL: string) => pubmed({ baseURL, ...options }), 'pubmed-esearch.xml', 'the esearch response could not be read (not done within 5000 ms)'],
])('%s: an answer not read within its budget is a bad-response error, not retried', async (provider, make, body, message) => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/xml' })
    res.end(fixture(body))
  })
  await expect(make(server.url).search('llama')).rejects.toMatchObject({
    code: 'bad-response',
    provider,
    retryable: false,
    message: expect.stringContaining(`${provider}: ${message}`),
    hint: expect.stringContaining('hostile or broken markup'),
  })
  expect(server.requests).toHaveLength(1)
})
