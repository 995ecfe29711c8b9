import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { inOrder } from '../../../src/strategies/report/in-order.js'

type Out = ['open' | 'close', number] | ['piece', number, string]

describe('inOrder', () => {
  it('streams every piece once, each section whole and in outline order, whatever order they arrive in (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((count) =>
          fc.tuple(
            fc.constant(count),
            // Each section: its pieces; then a shuffle of all steps that keeps each section's own order.
            fc.array(fc.array(fc.string({ minLength: 1, maxLength: 3 }), { maxLength: 4 }), { minLength: count, maxLength: count }),
            fc.array(fc.nat({ max: count - 1 }), { minLength: 40, maxLength: 40 }),
          ),
        ),
        ([count, pieces, picks]) => {
          const out: Out[] = []
          const order = inOrder<Out>(count, 0, {
            open: (i) => [['open', i]],
            piece: (i, text) => [['piece', i, text]],
            close: (i) => [['close', i]],
          })
          const next = pieces.map(() => 0)
          const ended = pieces.map(() => false)
          const step = (i: number) => {
            if (ended[i]) return
            if (next[i]! < pieces[i]!.length) out.push(...order.push(i, pieces[i]![next[i]!++]!))
            else {
              ended[i] = true
              out.push(...order.end(i))
            }
          }
          for (const pick of picks) step(pick)
          for (let i = 0; i < count; i++) while (!ended[i]) step(i)

          const expected: Out[] = []
          pieces.forEach((list, i) => {
            expected.push(['open', i], ...list.map((text): Out => ['piece', i, text]), ['close', i])
          })
          expect(out).toEqual(expected)
          expect(order.head()).toBe(count)
        },
      ),
    )
  })

  it('holds a later section until the one before it ends', () => {
    const order = inOrder<string>(2, 0, { open: (i) => [`open ${i}`], piece: (_, t) => [t], close: (i) => [`close ${i}`] })
    expect(order.push(1, 'b')).toEqual([])
    expect(order.end(1)).toEqual([])
    expect(order.push(0, 'a')).toEqual(['open 0', 'a'])
    expect(order.end(0)).toEqual(['close 0', 'open 1', 'b', 'close 1'])
  })
})
