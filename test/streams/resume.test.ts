import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { broadcast, fromSSE, pipeSSE, type Broadcast } from '../../src/streams/index.js'
import { researchRun } from './arbitraries.js'
import { collect, eventFrame, scriptedRun } from './helpers.js'
import { startServer } from './server.js'

/** The resume rule a server applies: Last-Event-ID n means "send from seq n + 1". */
function fromSeqOf(lastEventId: string | string[] | undefined): number {
  return typeof lastEventId === 'string' && /^\d+$/.test(lastEventId) ? Number(lastEventId) + 1 : 0
}

/** Yield from a subscription, then cut the connection after `count` events (a network drop). */
async function* dropAfter(events: AsyncIterable<ResearchEvent>, count: number, drop: () => void): AsyncGenerator<ResearchEvent> {
  let sent = 0
  for await (const event of events) {
    if (sent === count) {
      drop()
      return
    }
    yield event
    sent += 1
  }
}

describe('resume over a dropped connection', () => {
  it('every event arrives exactly once, in order, across several drops', async () => {
    await fc.assert(
      fc.asyncProperty(researchRun, fc.array(fc.nat({ max: 8 }), { minLength: 1, maxLength: 4 }), async (events, drops) => {
        let hub: Broadcast | undefined
        let connection = 0
        let dropped = 0
        const lastEventIds: Array<string | undefined> = []
        const server = await startServer((req, res) => {
          hub ??= broadcast(scriptedRun(events), { graceMs: 60_000 })
          const header = req.headers['last-event-id']
          lastEventIds.push(typeof header === 'string' ? header : undefined)
          const subscription = hub.subscribe(fromSeqOf(header))
          const dropAt = drops[connection++]
          const source =
            dropAt === undefined
              ? subscription
              : dropAfter(subscription, dropAt, () => {
                  dropped += 1
                  res.destroy()
                })
          void pipeSSE(source, res, { retryMs: 1, heartbeatMs: 0 }).catch(() => {})
        })
        try {
          const received = await collect(fromSSE(`${server.url}/run`, { retryMs: 1, maxRetries: 20 }))
          expect(received).toEqual(events)
          // One connection, plus one reconnection per drop; only reconnections resume from an id.
          expect(lastEventIds).toHaveLength(dropped + 1)
          expect(lastEventIds[0]).toBeUndefined()
        } finally {
          await server.close()
        }
      }),
      { numRuns: 15 },
    )
  })

  it('a frame cut in half by the drop is discarded, then received whole after resuming', async () => {
    const events = await fc.sample(
      researchRun.filter((run) => run.length >= 4),
      { numRuns: 1, seed: 7 },
    )[0]!
    const hub = broadcast(scriptedRun(events), { finishWithoutSubscribers: true })
    let first = true
    const server = await startServer(async (req, res) => {
      if (first) {
        first = false
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        const whole = events.slice(0, 2).map(eventFrame).join('')
        const half = eventFrame(events[2]!).slice(0, 20)
        res.write(whole + half, () => res.destroy())
        return
      }
      void pipeSSE(hub.subscribe(fromSeqOf(req.headers['last-event-id'])), res, { retryMs: 1, heartbeatMs: 0 })
    })
    try {
      expect(await collect(fromSSE(new URL('/run', server.url), { retryMs: 1 }))).toEqual(events)
    } finally {
      await server.close()
    }
  })

  it('resumes after an event id outside Latin-1 (wpt format-field-id), sending its UTF-8 bytes as browsers do', async () => {
    const events = await fc.sample(
      researchRun.filter((run) => run.length >= 3),
      { numRuns: 1, seed: 11 },
    )[0]!
    const ids = ['\u2026', 'caf\u00e9 \u{1F3D4}']
    const received: string[] = []
    let connection = 0
    const server = await startServer((req, res) => {
      const header = req.headers['last-event-id']
      // Node reads header values as Latin-1: one character a byte, to decode as UTF-8.
      if (typeof header === 'string') received.push(Buffer.from(header, 'latin1').toString('utf8'))
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      const at = connection++
      const frame = (n: number, id?: string) => eventFrame(events[n]!).replace(/^id: .*$/m, `id: ${id ?? events[n]!.seq}`)
      if (at < ids.length) res.write(frame(at, ids[at]), () => res.destroy())
      else
        res.end(
          events
            .slice(ids.length)
            .map((_, i) => frame(ids.length + i))
            .join(''),
        )
    })
    try {
      expect(await collect(fromSSE(`${server.url}/run`, { retryMs: 1 }))).toEqual(events)
      expect(received).toEqual(ids)
    } finally {
      await server.close()
    }
  })

  it('refuses a lastEventId no stream could have sent, before connecting', async () => {
    await expect(collect(fromSSE('http://127.0.0.1:9/run', { lastEventId: '1\n2' }))).rejects.toMatchObject({ code: 'config' })
  })
})
