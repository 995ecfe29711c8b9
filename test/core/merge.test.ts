import { describe, expect, it, vi } from 'vitest'
import { createMerge, merge } from '../../src/core/index.js'
import { sleep } from '../../src/testing/index.js'

async function* timed(name: string, delays: number[]): AsyncGenerator<string> {
  for (const [i, ms] of delays.entries()) {
    await sleep(ms)
    yield `${name}${i}`
  }
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of source) out.push(item)
  return out
}

describe('merge', () => {
  it('interleaves sources in arrival order, each in its own order', async () => {
    // Each item waits for a gate the test opens, in the order a0, b0, b1, a1.
    const gates = ['a0', 'b0', 'b1', 'a1'].map(() => {
      let open!: () => void
      const opened = new Promise<void>((resolve) => (open = resolve))
      return { open, opened }
    })
    const gated = async function* (name: string, order: number[]): AsyncGenerator<string> {
      for (const [i, gate] of order.entries()) {
        await gates[gate]!.opened
        yield `${name}${i}`
      }
    }
    const out: string[] = []
    const reading = (async () => {
      for await (const item of merge(gated('a', [0, 3]), gated('b', [1, 2]))) out.push(item)
    })()
    for (const [i, gate] of gates.entries()) {
      gate.open()
      await vi.waitFor(() => expect(out).toHaveLength(i + 1))
    }
    await reading
    expect(out).toEqual(['a0', 'b0', 'b1', 'a1'])
  })

  it('takes sources added while it is read', async () => {
    const m = createMerge<string>()
    m.add(
      (async function* () {
        yield 'parent'
        m.add(timed('child', [1, 1]))
        yield 'parent-done'
      })(),
    )
    expect((await collect(m)).sort()).toEqual(['child0', 'child1', 'parent', 'parent-done'])
  })

  it('rethrows a source failure and stops the other sources', async () => {
    let stopped = false
    let open!: () => void
    const gate = new Promise<void>((resolve) => (open = resolve))
    const slow = (async function* () {
      try {
        await gate
        yield 'after the failure'
      } finally {
        stopped = true
      }
    })()
    // biome-ignore lint/correctness/useYield: a source that fails before its first event
    const failing = (async function* () {
      await sleep(1)
      throw new Error('boom')
    })()
    await expect(collect(merge<string>(slow, failing))).rejects.toThrow('boom')
    // The merge asked the slow source to return; it does once its await ends.
    open()
    await sleep(5)
    expect(stopped).toBe(true)
  })
})
