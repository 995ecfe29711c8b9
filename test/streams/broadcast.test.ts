import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { broadcast } from '../../src/streams/index.js'
import { stamp } from './arbitraries.js'
import { collect, gate, scriptedRun } from './helpers.js'
import { zeroCost } from '../support/cost.js'

function tokens(count: number): ResearchEvent[] {
  return stamp([
    { type: 'run-start', question: 'q', strategy: 's' },
    ...Array.from({ length: count }, (_, i) => ({ type: 'answer-token' as const, text: `t${i} ` })),
    { type: 'run-end', reason: 'answered', cost: zeroCost() },
  ])
}

describe('broadcast', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('serves 3 subscribers: fast ones get everything, a late one replays, a slow one is cut off', async () => {
    const events = tokens(200)
    const lateMayJoin = gate()
    const run = scriptedRun(events, { 20: lateMayJoin.promise })
    const hub = broadcast(run, { maxBuffer: 50 })

    const fast = collect(hub.subscribe())
    // The slow subscriber takes one event and then stops reading while the run goes on.
    const slow = hub.subscribe()
    const slowFirst = await slow.next()
    // The late one joins while the run waits before seq 20.
    await run.pausedAt(20)
    expect(run.state.pulled).toBe(20)
    const late = collect(hub.subscribe())
    lateMayJoin.open()
    const fastDone = await fast
    const lateDone = await late
    const slowRest = await collect(slow)

    expect(fastDone).toEqual(events)
    expect(run.state.pulled).toBe(events.length)
    expect(run.state.aborted).toBe(false)
    expect(lateDone).toEqual(events)

    const slowSeen = [slowFirst.value as ResearchEvent, ...slowRest]
    const warning = slowSeen.at(-1)
    expect(warning).toMatchObject({ type: 'warning', code: 'slow-subscriber', runId: 'run-1' })
    const delivered = slowSeen.slice(0, -1)
    // What it did get is a gap-free prefix of the run, bounded by its buffer.
    expect(delivered).toEqual(events.slice(0, delivered.length))
    expect(delivered.length).toBeLessThanOrEqual(1 + 50)
    // The warning names the last seq it got, so resubscribing from seq + 1 continues exactly.
    expect(warning?.seq).toBe(delivered.at(-1)?.seq)
    expect(await collect(hub.subscribe((warning?.seq ?? 0) + 1))).toEqual(events.slice(delivered.length))
  })

  it('a second fast subscriber joining mid-run gets the history, then the live events, with no gap', async () => {
    const events = tokens(10)
    const midway = gate()
    const hub = broadcast(scriptedRun(events, { 6: midway.promise }))
    const first = hub.subscribe()
    const seen: ResearchEvent[] = []
    while (seen.length < 6) seen.push((await first.next()).value as ResearchEvent)
    const second = hub.subscribe()
    midway.open()
    expect(await collect(second)).toEqual(events)
    expect([...seen, ...(await collect(first))]).toEqual(events)
  })

  it('subscribe(fromSeq) replays from that seq', async () => {
    const events = tokens(5)
    const hub = broadcast(scriptedRun(events), { finishWithoutSubscribers: true })
    await collect(hub.subscribe())
    expect(await collect(hub.subscribe(3))).toEqual(events.slice(3))
    expect(await collect(hub.subscribe(100))).toEqual([])
  })

  it('without replay a late subscriber sees only live events', async () => {
    const events = tokens(6)
    const later = gate()
    const run = scriptedRun(events, { 4: later.promise })
    const hub = broadcast(run, { replay: false })
    const first = collect(hub.subscribe())
    await run.pausedAt(4)
    expect(run.state.pulled).toBe(4)
    const second = collect(hub.subscribe())
    later.open()
    expect(await first).toEqual(events)
    expect(await second).toEqual(events.slice(4))
  })

  it('aborts the run when the last subscriber leaves', async () => {
    const never = gate()
    const run = scriptedRun(tokens(5), { 3: never.promise })
    const hub = broadcast(run)
    const a = hub.subscribe()
    const b = hub.subscribe()
    await a.next()
    await a.return()
    expect(run.state.aborted).toBe(false)
    expect(hub.subscriberCount).toBe(1)
    for await (const event of b) if (event.seq === 2) break
    expect(run.state.aborted).toBe(true)
    expect(hub.subscriberCount).toBe(0)
  })

  it('a sole subscriber cut off for lagging does not abort the run: it can resubscribe and catch up', async () => {
    const run = scriptedRun(tokens(20))
    const hub = broadcast(run, { maxBuffer: 3 })
    const slow = hub.subscribe()
    await slow.next() // then stop reading while the run streams on
    await hub.finished
    expect(run.state.aborted).toBe(false)
    const seen = await collect(slow)
    const warning = seen.at(-1)
    expect(warning).toMatchObject({ type: 'warning', code: 'slow-subscriber' })
    // Resubscribing from where the warning says gets the rest, up to run-end.
    const resumeFrom = Number(/from seq (\d+)/.exec((warning as { message: string }).message)?.[1])
    const rest = await collect(hub.subscribe(resumeFrom))
    expect(rest.at(-1)?.type).toBe('run-end')
    expect(rest[0]?.seq).toBe(resumeFrom)
  })

  it('with finishWithoutSubscribers the run completes and stays replayable', async () => {
    const events = tokens(5)
    const resume = gate()
    const run = scriptedRun(events, { 3: resume.promise })
    const hub = broadcast(run, { finishWithoutSubscribers: true })
    for await (const event of hub.subscribe()) if (event.seq === 1) break
    resume.open()
    await hub.finished
    expect(run.state.pulled).toBe(events.length)
    const all = await collect(hub.subscribe())
    expect(run.state.aborted).toBe(false)
    expect(all).toEqual(events)
  })

  it('within graceMs a returning subscriber keeps the run alive', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const events = tokens(5)
    const resume = gate()
    const run = scriptedRun(events, { 3: resume.promise })
    const hub = broadcast(run, { graceMs: 50 })
    for await (const event of hub.subscribe()) if (event.seq === 1) break
    vi.advanceTimersByTime(49)
    const back = hub.subscribe(2)
    // The grace timer is cleared by the return: the full grace passing later aborts nothing.
    vi.advanceTimersByTime(1_000)
    resume.open()
    expect(await collect(back)).toEqual(events.slice(2))
    expect(run.state.aborted).toBe(false)
  })

  it('after graceMs with nobody back, the run is aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const never = gate()
    const run = scriptedRun(tokens(5), { 3: never.promise })
    const hub = broadcast(run, { graceMs: 50 })
    for await (const event of hub.subscribe()) if (event.seq === 1) break
    vi.advanceTimersByTime(49)
    expect(run.state.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(run.state.aborted).toBe(true)
  })

  it('stops and closes a plain iterable (no abort) when everyone leaves', async () => {
    let closed = false
    async function* endless(): AsyncGenerator<ResearchEvent> {
      try {
        for (let seq = 0; ; seq++) yield { type: 'answer-token', text: 'x', runId: 'r', seq, time: seq }
      } finally {
        closed = true
      }
    }
    const hub = broadcast(endless(), { maxBuffer: 10_000 })
    for await (const event of hub.subscribe()) if (event.seq === 3) break
    // The pump closes the iterable before it marks the broadcast finished.
    await hub.finished
    expect(closed).toBe(true)
  })

  it('delivers a failing run’s error to every subscriber after its events', async () => {
    async function* failing(): AsyncGenerator<ResearchEvent> {
      yield tokens(0)[0] as ResearchEvent
      throw new Error('strategy bug')
    }
    const hub = broadcast(failing())
    const seen: ResearchEvent[] = []
    await expect(
      (async () => {
        for await (const event of hub.subscribe()) seen.push(event)
      })(),
    ).rejects.toThrow('strategy bug')
    expect(seen).toHaveLength(1)
    await expect(collect(hub.subscribe())).rejects.toThrow('strategy bug')
  })

  it('refuses a maxBuffer or fromSeq that makes no sense, naming the parameter', () => {
    expect(() => broadcast(scriptedRun([]), { maxBuffer: 0 })).toThrow(/`maxBuffer`/)
    expect(() => broadcast(scriptedRun([])).subscribe(-1)).toThrow(/`fromSeq`/)
  })
})
