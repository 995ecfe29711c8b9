/**
 * Issue 13, finding 8: one abort listener per signal, however many runs and calls wait on it,
 * so a dozen concurrent runs sharing a signal print no MaxListenersExceededWarning.
 */
import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { onAbort } from '../../src/core/util/abort-listener.js'
import { createAgent } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

describe('onAbort', () => {
  it('adds one listener to a signal for any number of waits, and calls each wait that is still on', () => {
    const controller = new AbortController()
    const calls: number[] = []
    const stops = Array.from({ length: 50 }, (_, i) => onAbort(controller.signal, () => calls.push(i)))
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    stops[3]?.()
    controller.abort()
    expect(calls).toHaveLength(49)
    expect(calls).not.toContain(3)
  })

  it('the same function waiting twice is called twice', () => {
    const controller = new AbortController()
    let count = 0
    const bump = () => count++
    onAbort(controller.signal, bump)
    onAbort(controller.signal, bump)
    controller.abort()
    expect(count).toBe(2)
  })
})

describe('many runs on one signal', () => {
  it('twelve concurrent runs sharing a caller signal put one listener on it, and all finish', async () => {
    const shared = new AbortController()
    const llm = scriptedLLM({ replies: () => 'Action: Answer\nok' })
    const search = mockSearch({ corpus: [{ title: 'a', url: 'https://a.example/', snippet: 's' }] })
    const runs = Array.from({ length: 12 }, (_, i) => createAgent({ llm, search }).research(`q${i}`, { signal: shared.signal })[Symbol.asyncIterator]())
    // Every run started (run-start), all still going: the peak of listeners.
    await Promise.all(runs.map((run) => run.next()))
    expect(getEventListeners(shared.signal, 'abort').length).toBeLessThanOrEqual(1)
    const ends = await Promise.all(
      runs.map(async (run) => {
        let last: string | undefined
        for (let step = await run.next(); !step.done; step = await run.next()) last = step.value.type
        return last
      }),
    )
    expect(ends.every((type) => type === 'run-end')).toBe(true)
  })
})
