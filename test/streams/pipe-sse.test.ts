import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { broadcast, fromSSE, pipeSSE, sseResponse, toSSE } from '../../src/streams/index.js'
import { stamp } from './arbitraries.js'
import { collect, gate, readText, scriptedRun } from './helpers.js'
import { startServer } from './server.js'
import { zeroCost } from '../support/cost.js'

const events: ResearchEvent[] = stamp([
  { type: 'run-start', question: 'q', strategy: 's' },
  { type: 'query', queryId: 'q1', query: 'first' },
  { type: 'query', queryId: 'q2', query: 'second' },
  { type: 'run-end', reason: 'answered', cost: zeroCost() },
])

/** Open the stream, read until `seq` arrives, then hang up like a closed browser tab. */
function readThenHangUp(url: string, seq: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        if (text.includes(`id: ${seq}\n`)) {
          req.destroy()
          resolve()
        }
      })
    })
    req.on('error', (error) => (req.destroyed ? resolve() : reject(error)))
    req.end()
  })
}

describe('pipeSSE', () => {
  it('streams the run to a node:http response with the SSE headers', async () => {
    const server = await startServer((_req, res) => void pipeSSE(scriptedRun(events), res, { heartbeatMs: 0, headers: { 'x-run': 'one' } }))
    try {
      const response = await fetch(server.url)
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      expect(response.headers.get('cache-control')).toBe('no-cache')
      expect(response.headers.get('x-accel-buffering')).toBe('no')
      expect(response.headers.get('x-run')).toBe('one')
      expect(await collect(fromSSE(response))).toEqual(events)
    } finally {
      await server.close()
    }
  })

  it('aborts the run when the client disconnects', async () => {
    const never = gate()
    const run = scriptedRun(events, { 2: never.promise })
    const piped = gate()
    const server = await startServer((_req, res) => void pipeSSE(run, res, { heartbeatMs: 0 }).then(piped.open))
    try {
      await readThenHangUp(server.url, 1)
      await piped.promise
      expect(run.state.aborted).toBe(true)
      expect(run.state.returned).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('a client leaving a broadcast leaves the run going for the others', async () => {
    const later = gate()
    const run = scriptedRun(events, { 2: later.promise })
    const hub = broadcast(run)
    const other = collect(hub.subscribe())
    const piped = gate()
    const server = await startServer((_req, res) => void pipeSSE(hub.subscribe(), res, { heartbeatMs: 0 }).then(piped.open))
    try {
      await readThenHangUp(server.url, 1)
      await piped.promise
      later.open()
      expect(await other).toEqual(events)
      expect(run.state.aborted).toBe(false)
    } finally {
      await server.close()
    }
  })
})

describe('sseResponse', () => {
  it('is a Response with the SSE headers and the toSSE body', async () => {
    const response = sseResponse(scriptedRun(events), { heartbeatMs: 0, headers: { 'cache-control': 'no-store' }, status: 201 })
    expect(response.status).toBe(201)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(response.headers.get('x-accel-buffering')).toBe('no')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe(await readText(toSSE(scriptedRun(events), { heartbeatMs: 0 })))
  })

  it('aborts the run when the runtime cancels the body', async () => {
    const never = gate()
    const run = scriptedRun(events, { 1: never.promise })
    const response = sseResponse(run, { heartbeatMs: 0 })
    const reader = response.body!.getReader()
    await reader.read()
    await reader.read()
    await reader.cancel()
    expect(run.state.aborted).toBe(true)
  })
})
