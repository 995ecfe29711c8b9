import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { broadcast, pipeSSE } from '../../src/streams/index.js'
import { stamp } from './arbitraries.js'
import { eventFrame, gate, scriptedRun } from './helpers.js'

/** The most frames one write carries, as docs/streams.md states it ("at most 64 frames a write"). */
const MAX_BATCH = 64

function tokens(count: number): ResearchEvent[] {
  return stamp([
    { type: 'run-start', question: 'q', strategy: 's' },
    ...Array.from({ length: count }, (_, i) => ({ type: 'answer-token' as const, text: `t${i} ` })),
    { type: 'run-end', reason: 'answered', cost: zeroCost() },
  ])
}

const HEAD = 'retry: 3000\n\n'
const END = 'event: end\ndata: [DONE]\n\n'
const frames = (events: readonly ResearchEvent[]) => events.map(eventFrame).join('')

/** pipeSSE writes once a turn of the event loop is over: after this, every write it had due is done. */
const turnEnded = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A response whose socket buffer is full while `full` is set; `drain()` empties it, as Node would. */
function flowResponse(options: { full?: boolean; failOnWrite?: number } = {}) {
  const writes: string[] = []
  const drainListeners: (() => void)[] = []
  let ended = false
  const state = { full: options.full ?? false }
  const res = {
    writeHead: () => undefined,
    write(chunk: Uint8Array) {
      if (writes.length === options.failOnWrite) throw new Error('the socket broke')
      writes.push(new TextDecoder().decode(chunk))
      return !state.full
    },
    end: () => {
      ended = true
    },
    on: () => undefined,
    once: (_event: 'drain', listener: () => void) => void drainListeners.push(listener),
  }
  return {
    res,
    writes,
    state,
    ended: () => ended,
    drain() {
      state.full = false
      for (const listener of drainListeners.splice(0)) listener()
    },
  }
}

describe('pipeSSE flow control', () => {
  it('writes nothing more while the socket is full; after drain, every frame waiting goes out in one write', async () => {
    const events = tokens(5)
    const more = gate()
    const last = gate()
    const run = scriptedRun(events, { 2: more.promise, 6: last.promise })
    const client = flowResponse({ full: true })
    const done = pipeSSE(broadcast(run).subscribe(), client.res, { heartbeatMs: 0 })
    await run.pausedAt(2)
    await turnEnded()
    expect(client.writes).toEqual([HEAD, frames(events.slice(0, 2))])
    more.open()
    await run.pausedAt(6)
    await turnEnded()
    expect(client.writes).toHaveLength(2)
    client.drain()
    await turnEnded()
    expect(client.writes).toEqual([HEAD, frames(events.slice(0, 2)), frames(events.slice(2, 6))])
    last.open()
    await done
    expect(client.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    expect(client.ended()).toBe(true)
  })

  it('a client whose socket stays full is cut off past maxBuffer while the others get everything', async () => {
    const events = tokens(20)
    const rest = gate()
    const run = scriptedRun(events, { 1: rest.promise })
    const hub = broadcast(run, { maxBuffer: 3 })
    const stuck = flowResponse({ full: true })
    const fine = flowResponse()
    const stuckDone = pipeSSE(hub.subscribe(), stuck.res, { heartbeatMs: 0 })
    const fineDone = pipeSSE(hub.subscribe(), fine.res, { heartbeatMs: 0 })
    // The first write fills the stuck client's socket; the rest of the run comes after it.
    await run.pausedAt(1)
    await turnEnded()
    expect(stuck.writes).toEqual([HEAD, frames(events.slice(0, 1))])
    rest.open()
    await fineDone
    expect(fine.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    expect(run.state.aborted).toBe(false)
    // Once its socket drains, it gets what it had waiting and the warning, and no `end` frame:
    // a client reconnects with the warning's id as its Last-Event-ID and resumes from there.
    stuck.drain()
    await stuckDone
    const body = stuck.writes.join('')
    expect(body).not.toContain(END)
    const ids = [...body.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))
    const warning = body.slice(body.lastIndexOf('id: '))
    expect(warning).toContain('event: warning\n')
    expect(warning).toContain('"code":"slow-subscriber"')
    const delivered = ids.slice(0, -1)
    expect(delivered).toEqual(delivered.map((_, i) => i))
    // The first event, written before the socket filled, and the 3 its buffer held.
    expect(delivered).toHaveLength(1 + 3)
    expect(ids.at(-1)).toBe(delivered.at(-1))
    expect(stuck.ended()).toBe(true)
  })

  it('a burst longer than maxBuffer in one turn reaches a client that keeps up, MAX_BATCH frames a write', async () => {
    const events = tokens(2 * MAX_BATCH)
    const run = scriptedRun(events)
    const client = flowResponse()
    await pipeSSE(broadcast(run, { maxBuffer: 3 }).subscribe(), client.res, { heartbeatMs: 0 })
    expect(client.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    const framesPerWrite = client.writes.slice(1).map((write) => write.split('\n\n').length - 1)
    expect(framesPerWrite).toEqual([MAX_BATCH, MAX_BATCH, 2 + 1])
  })

  it('a plain stream is read no further than one event past a full socket', async () => {
    const events = tokens(10 * MAX_BATCH)
    const run = scriptedRun(events)
    const client = flowResponse({ full: true })
    const done = pipeSSE(run, client.res, { heartbeatMs: 0 })
    await turnEnded()
    await turnEnded()
    // One write's worth (a burst goes out MAX_BATCH frames at a time), and one event read ahead.
    expect(run.state.pulled).toBe(MAX_BATCH + 1)
    expect(client.writes).toHaveLength(2)
    client.drain()
    await done
    expect(client.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    expect(run.state.aborted).toBe(false)
  })

  it('every client gets the ids it resumes from, live and replayed, though each frame is encoded once', async () => {
    const events = tokens(6)
    const resume = gate()
    const run = scriptedRun(events, { 4: resume.promise })
    const hub = broadcast(run)
    const first = flowResponse()
    const done = [pipeSSE(hub.subscribe(), first.res, { heartbeatMs: 0 })]
    await run.pausedAt(4)
    // Two clients reconnect mid-run: Last-Event-ID 1 (replay 2 and 3, then live) and 3 (live only).
    const second = flowResponse()
    const third = flowResponse()
    done.push(pipeSSE(hub.subscribe(2), second.res, { heartbeatMs: 0 }), pipeSSE(hub.subscribe(4), third.res, { heartbeatMs: 0 }))
    resume.open()
    await Promise.all(done)
    expect(first.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    expect(second.writes.join('')).toBe(`${HEAD}${frames(events.slice(2))}${END}`)
    expect(third.writes.join('')).toBe(`${HEAD}${frames(events.slice(4))}${END}`)
  })

  it('a write that throws ends that response with the error; the other clients and the run go on', async () => {
    const events = tokens(5)
    const run = scriptedRun(events)
    const hub = broadcast(run)
    const broken = flowResponse({ failOnWrite: 1 })
    const fine = flowResponse()
    const brokenDone = pipeSSE(hub.subscribe(), broken.res, { heartbeatMs: 0 })
    await pipeSSE(hub.subscribe(), fine.res, { heartbeatMs: 0 })
    await expect(brokenDone).rejects.toThrow('the socket broke')
    expect(broken.ended()).toBe(true)
    expect(fine.writes.join('')).toBe(`${HEAD}${frames(events)}${END}`)
    expect(run.state.aborted).toBe(false)
  })
})
