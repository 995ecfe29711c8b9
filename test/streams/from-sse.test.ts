import { describe, expect, it } from 'vitest'
import { LaconicError, type ResearchEvent } from '../../src/index.js'
import { fromSSE, toSSE } from '../../src/streams/index.js'
import { stamp } from './arbitraries.js'
import { collect, eventFrame, scriptedRun } from './helpers.js'
import { startServer } from './server.js'
import { zeroCost } from '../support/cost.js'

const events: ResearchEvent[] = stamp([
  { type: 'run-start', question: 'q', strategy: 's' },
  { type: 'answer-token', text: 'a' },
  { type: 'answer-token', text: 'b' },
  { type: 'run-end', reason: 'answered', cost: zeroCost() },
])

function sse(res: import('node:http').ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.end(body)
}

async function failure(promise: Promise<unknown>): Promise<LaconicError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(LaconicError)
  return error as LaconicError
}

describe('fromSSE', () => {
  it('sends Last-Event-ID and drops events at or below it', async () => {
    const seen: Array<string | undefined> = []
    const server = await startServer((req, res) => {
      seen.push(req.headers['last-event-id'] as string | undefined)
      sse(res, events.map(eventFrame).join(''))
    })
    try {
      expect(await collect(fromSSE(server.url, { lastEventId: '1' }))).toEqual(events.slice(2))
      expect(seen).toEqual(['1'])
    } finally {
      await server.close()
    }
  })

  it('reconnects after a 503 and stops at the end frame', async () => {
    let calls = 0
    const server = await startServer((_req, res) => {
      calls += 1
      if (calls === 1) {
        res.writeHead(503).end()
        return
      }
      void new Response(toSSE(scriptedRun(events), { heartbeatMs: 0, retryMs: 1 })).text().then((body) => sse(res, body))
    })
    try {
      expect(await collect(fromSSE(server.url, { retryMs: 1 }))).toEqual(events)
      expect(calls).toBe(2)
    } finally {
      await server.close()
    }
  })

  it('stops without an error on HTTP 204 (the SSE "do not reconnect")', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end())
    try {
      expect(await collect(fromSSE(server.url, { retryMs: 1 }))).toEqual([])
    } finally {
      await server.close()
    }
  })

  it.each([
    [404, 'not-found'],
    [401, 'auth'],
    [400, 'http'],
  ])('fails with a coded error on HTTP %i', async (status, code) => {
    const server = await startServer((_req, res) => res.writeHead(status).end('nope'))
    try {
      expect((await failure(collect(fromSSE(server.url)))).code).toBe(code)
    } finally {
      await server.close()
    }
  })

  it('refuses a body that is not an event stream', async () => {
    const server = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'))
    try {
      expect((await failure(collect(fromSSE(server.url)))).code).toBe('bad-response')
    } finally {
      await server.close()
    }
  })

  it('gives up after maxRetries reconnections that bring nothing new', async () => {
    let calls = 0
    const server = await startServer((_req, res) => {
      calls += 1
      sse(res, eventFrame(events[0]!))
    })
    try {
      const error = await failure(collect(fromSSE(server.url, { retryMs: 1, maxRetries: 2 })))
      expect(error.code).toBe('network')
      expect(error.message).toMatch(/maxRetries/)
      expect(calls).toBe(3)
    } finally {
      await server.close()
    }
  })

  it('throws an aborted error when the signal aborts mid-stream', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(eventFrame(events[0]!))
    })
    const controller = new AbortController()
    try {
      const error = await failure(
        (async () => {
          for await (const _event of fromSSE(server.url, { signal: controller.signal })) controller.abort()
        })(),
      )
      expect(error.code).toBe('aborted')
    } finally {
      await server.close()
    }
  })

  it('closes the connection when the consumer stops early', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve))
    const server = await startServer((_req, res) => {
      res.on('close', closed)
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(events.slice(0, 2).map(eventFrame).join(''))
    })
    try {
      for await (const _event of fromSSE(server.url)) break
      await connectionClosed
    } finally {
      await server.close()
    }
  })

  it('reads a Response once and does not reconnect', async () => {
    const body = events.slice(0, 2).map(eventFrame).join('')
    const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    expect(await collect(fromSSE(response))).toEqual(events.slice(0, 2))
    expect((await failure(collect(fromSSE(new Response(body))))).code).toBe('bad-response')
  })
})
