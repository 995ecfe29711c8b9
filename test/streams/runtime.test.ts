import { describe, expect, it } from 'vitest'
import { demoAgent } from '../../examples/sse-server/demo.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { broadcast, fromSSE, sseResponse } from '../../src/streams/index.js'
import { collect } from './helpers.js'

describe('a real run through the streams', () => {
  it('broadcast → sseResponse → fromSSE gives every subscriber the run, invariants intact', async () => {
    const hub = broadcast(demoAgent({ tokenDelayMs: 0 }).research('q'))
    const direct = collect(hub.subscribe())
    const overSSE = await collect(fromSSE(sseResponse(hub.subscribe(), { heartbeatMs: 0 })))
    const events = await direct
    assertEventInvariants(events)
    expect(overSSE).toEqual(events)
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(['run-start', 'llm-call', 'cost', 'plan', 'query', 'result', 'fact', 'knowledge-update', 'answer-token', 'answer', 'run-end']),
    )
  })

  it('cancelling the SSE body of an unshared run aborts it with run-end aborted', async () => {
    const run = demoAgent({ tokenDelayMs: 0 }).research('q')
    const hub = broadcast(run, { finishWithoutSubscribers: false })
    const body = sseResponse(hub.subscribe(), { heartbeatMs: 0 }).body!.getReader()
    await body.read()
    await body.read()
    await body.cancel()
    await hub.finished
    const replayed = await collect(hub.subscribe())
    expect(replayed.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(await run.result).toMatchObject({ reason: 'aborted' })
  })
})
