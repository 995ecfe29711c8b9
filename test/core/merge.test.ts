import { describe, expect, it } from 'vitest'
import { createMerge } from '../../src/strategy.js'

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of source) out.push(item)
  return out
}

/** A merge of a fixed set of sources, as a strategy builds one. */
function merge<E>(...sources: AsyncIterable<E>[]): AsyncIterable<E> {
  const m = createMerge<E>()
  for (const source of sources) m.add(source)
  return m
}

/** A promise and the function that settles it: a gate the test opens. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

describe('merge', () => {
  it('interleaves sources in arrival order, each in its own order', async () => {
    // Each item waits for a gate the test opens, in the order a0, b0, b1, a1; the reader
    // opens `seen[i]` when it has taken item i, so the next gate opens only after that.
    const gates = ['a0', 'b0', 'b1', 'a1'].map(gate)
    const seen = gates.map(gate)
    const gated = async function* (name: string, order: number[]): AsyncGenerator<string> {
      for (const [i, index] of order.entries()) {
        await gates[index]!.opened
        yield `${name}${i}`
      }
    }
    const out: string[] = []
    const reading = (async () => {
      for await (const item of merge(gated('a', [0, 3]), gated('b', [1, 2]))) {
        out.push(item)
        seen[out.length - 1]?.open()
      }
    })()
    for (const [i, next] of gates.entries()) {
      next.open()
      await seen[i]!.opened
    }
    await reading
    expect(out).toEqual(['a0', 'b0', 'b1', 'a1'])
  })

  it('takes sources added while it is read', async () => {
    const m = createMerge<string>()
    m.add(
      (async function* () {
        yield 'parent'
        m.add(
          (async function* () {
            yield 'child0'
            yield 'child1'
          })(),
        )
        yield 'parent-done'
      })(),
    )
    expect((await collect(m)).sort()).toEqual(['child0', 'child1', 'parent', 'parent-done'])
  })

  it('rethrows a source failure and stops the other sources', async () => {
    const waiting = gate()
    const resume = gate()
    const stopped = gate()
    const slow = (async function* () {
      try {
        waiting.open()
        await resume.opened
        yield 'after the failure'
      } finally {
        stopped.open()
      }
    })()
    // biome-ignore lint/correctness/useYield: a source that fails before its first event
    const failing = (async function* () {
      await waiting.opened
      throw new Error('boom')
    })()
    await expect(collect(merge<string>(slow, failing))).rejects.toThrow('boom')
    // The merge asked the slow source to return; it does once its await ends (else this waits forever).
    resume.open()
    await stopped.opened
  })
})
