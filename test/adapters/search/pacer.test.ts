import { describe, expect, it } from 'vitest'
import { createPacer } from '../../../src/adapters/index.js'

describe('createPacer', () => {
  it('spaces request starts by the interval, in order, on an injected clock', async () => {
    let now = 10_000
    const waits: number[] = []
    const pacer = createPacer({
      intervalMs: 1000,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms)
      },
    })
    await Promise.all([pacer.wait(), pacer.wait(), pacer.wait()])
    expect(waits).toEqual([1000, 2000])
    now += 5000
    await pacer.wait()
    expect(waits).toEqual([1000, 2000])
    now += 200
    await pacer.wait()
    expect(waits).toEqual([1000, 2000, 800])
  })

  it('rejects at once when the signal is already aborted', async () => {
    const pacer = createPacer({ intervalMs: 0 })
    await expect(pacer.wait(AbortSignal.abort())).rejects.toMatchObject({ code: 'aborted' })
  })
})
