import { request } from 'node:http'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { broadcast, pipeSSE, toSSE } from '../../src/streams/index.js'
import { stamp } from './arbitraries.js'
import { collect, eventFrame, gate, readText, scriptedRun } from './helpers.js'
import { startServer } from './server.js'

const events: ResearchEvent[] = stamp([
  { type: 'run-start', question: 'q', strategy: 's' },
  { type: 'answer-token', text: 'héllo\nwörld' },
  { type: 'answer-token', text: ' again' },
  { type: 'run-end', reason: 'answered', cost: zeroCost() },
])

/** The raw response body as received, chunk by chunk (one entry per socket read). */
function readBody(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.setEncoding('utf8')
      let text = ''
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve(text))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('pipeSSE wire text', () => {
  it('writes exactly the bytes toSSE produces', async () => {
    const server = await startServer((_req, res) => void pipeSSE(scriptedRun(events), res, { heartbeatMs: 0, retryMs: 1234 }))
    try {
      expect(await readBody(server.url)).toBe(await readText(toSSE(scriptedRun(events), { heartbeatMs: 0, retryMs: 1234 })))
    } finally {
      await server.close()
    }
  })

  it('a subscriber that fell behind gets every waiting frame, in order, with the same bytes', async () => {
    const hub = broadcast(scriptedRun(events))
    // Drain the run into the history before the client subscribes: all frames are waiting at once.
    await collect(hub.subscribe())
    const server = await startServer((_req, res) => void pipeSSE(hub.subscribe(), res, { heartbeatMs: 0 }))
    try {
      const body = await readBody(server.url)
      expect(body).toBe(`retry: 3000\n\n${events.map(eventFrame).join('')}event: end\ndata: [DONE]\n\n`)
    } finally {
      await server.close()
    }
  })

  it('sends heartbeat comments while the run is quiet, then carries on', async () => {
    const quiet = gate()
    const run = scriptedRun(events, { 1: quiet.promise })
    const server = await startServer((_req, res) => void pipeSSE(run, res, { heartbeatMs: 5 }))
    try {
      const body = new Promise<string>((resolve, reject) => {
        const req = request(server.url, (res) => {
          res.setEncoding('utf8')
          let text = ''
          res.on('data', (chunk: string) => {
            text += chunk
            if (text.split(': heartbeat\n\n').length > 2) quiet.open()
          })
          res.on('end', () => resolve(text))
        })
        req.on('error', reject)
        req.end()
      })
      const text = await body
      expect(text.indexOf(': heartbeat')).toBeGreaterThan(text.indexOf('event: run-start'))
      expect(text.lastIndexOf(': heartbeat')).toBeLessThan(text.indexOf('id: 1\n'))
      expect(text.replaceAll(': heartbeat\n\n', '')).toBe(await readText(toSSE(scriptedRun(events), { heartbeatMs: 0 })))
    } finally {
      await server.close()
    }
  })
})

/** A response that records each write as text, and says when the next one comes. */
function recordingResponse() {
  const writes: string[] = []
  let onWrite: (() => void) | undefined
  const res = {
    writeHead: () => undefined,
    write: (chunk: Uint8Array) => {
      writes.push(new TextDecoder().decode(chunk))
      onWrite?.()
      return true
    },
    end: () => undefined,
    on: () => undefined,
    once: () => undefined,
  }
  const nextWrite = () => new Promise<void>((resolve) => (onWrite = resolve))
  return { res, writes, nextWrite }
}

describe('pipeSSE batching', () => {
  it('the head goes out at once, and the events the run makes in the same turn go out together in the next write', async () => {
    const later = gate()
    const hub = broadcast(scriptedRun(events, { 2: later.promise }))
    const clients = [recordingResponse(), recordingResponse(), recordingResponse()]
    const done = clients.map((client) => pipeSSE(hub.subscribe(), client.res, { heartbeatMs: 0 }))
    // Written before anything else ran: the head does not wait for the run.
    for (const client of clients) expect(client.writes).toEqual(['retry: 3000\n\n'])
    await Promise.all(clients.map((client) => client.nextWrite()))
    for (const client of clients) expect(client.writes).toEqual(['retry: 3000\n\n', `${eventFrame(events[0]!)}${eventFrame(events[1]!)}`])
    later.open()
    await Promise.all(done)
    for (const client of clients) expect(client.writes.join('')).toBe(`retry: 3000\n\n${events.map(eventFrame).join('')}event: end\ndata: [DONE]\n\n`)
  })

  it('the head goes out when the run has nothing yet', async () => {
    const first = gate()
    const { res, writes, nextWrite } = recordingResponse()
    const written = nextWrite()
    const done = pipeSSE(scriptedRun(events, { 0: first.promise }), res, { heartbeatMs: 0 })
    await written
    expect(writes).toEqual(['retry: 3000\n\n'])
    first.open()
    await done
    expect(writes.join('')).toBe(`retry: 3000\n\n${events.map(eventFrame).join('')}event: end\ndata: [DONE]\n\n`)
  })

  it('frames already waiting for a client go out in one write', async () => {
    const hub = broadcast(scriptedRun(events))
    await collect(hub.subscribe())
    const writes: string[] = []
    const res = {
      writeHead: () => undefined,
      write: (chunk: Uint8Array) => writes.push(new TextDecoder().decode(chunk)) > 0,
      end: () => undefined,
      on: () => undefined,
      once: () => undefined,
    }
    await pipeSSE(hub.subscribe(), res, { heartbeatMs: 0 })
    expect(writes).toEqual(['retry: 3000\n\n', `${events.map(eventFrame).join('')}event: end\ndata: [DONE]\n\n`])
  })
})

describe('frame encoding', () => {
  it('encodes an event once: every client of a broadcast is written the same bytes object, equal to its wire text', async () => {
    // Pauses before events 1 and 2, so events 0 and 1 each go out alone, in a write of their own.
    const next = gate()
    const last = gate()
    const run = scriptedRun(events, { 1: next.promise, 2: last.promise })
    const hub = broadcast(run)
    const client = () => {
      const writes: Uint8Array[] = []
      const res = {
        writeHead: () => undefined,
        write: (chunk: Uint8Array) => writes.push(chunk) > 0,
        end: () => undefined,
        on: () => undefined,
        once: () => undefined,
      }
      return { writes, done: pipeSSE(hub.subscribe(), res, { heartbeatMs: 0 }) }
    }
    const first = client()
    const second = client()
    /** pipeSSE writes once a turn of the event loop is over. */
    const turnsEnded = async () => {
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
    }
    await run.pausedAt(1)
    await turnsEnded()
    next.open()
    await run.pausedAt(2)
    await turnsEnded()
    last.open()
    await Promise.all([first.done, second.done])
    for (const seq of [0, 1]) {
      // Write 0 is the retry hint; write 1 + seq carries event `seq` alone.
      const bytes = first.writes[1 + seq] as Uint8Array
      expect(second.writes[1 + seq]).toBe(bytes)
      expect(new TextDecoder().decode(bytes)).toBe(eventFrame(events[seq]!))
    }
  })

  it('toSSE hands each reader its own copy, so one reader cannot corrupt another', async () => {
    const first = toSSE(scriptedRun(events), { heartbeatMs: 0 }).getReader()
    await first.read() // retry hint
    const { value } = await first.read()
    value!.fill(0)
    expect(await readText(toSSE(scriptedRun(events), { heartbeatMs: 0 }))).toContain(eventFrame(events[0]!))
  })
})
