import fc from 'fast-check'
import { expect, test } from 'vitest'
import { readLines, readSSE } from '../../../src/adapters/http/index.js'
import { cutAt } from './loopback.js'

async function* from(pieces: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* pieces
}
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}
const offsets = (max: number) => fc.array(fc.integer({ min: 1, max: max - 1 }), { maxLength: 30 })

test('readLines: the same lines however the bytes are cut (CRLF, no final newline, multi-byte)', async () => {
  const bytes = new TextEncoder().encode('{"a":"ü"}\r\n\n{"b":"東京"}\n{"c":"🏔️"}')
  await fc.assert(
    fc.asyncProperty(offsets(bytes.length), async (cuts) => {
      expect(await all(readLines(from(cutAt(bytes, cuts))))).toEqual(['{"a":"ü"}', '', '{"b":"東京"}', '{"c":"🏔️"}'])
    }),
  )
})

test('readSSE: events, names and data however the bytes are cut; comments dropped', async () => {
  const text = ': hi\r\n\r\nevent: ping\r\ndata: {"type":"ping"}\r\n\r\ndata: line one\ndata: ü 東京\n\nretry: 10\ndata: last'
  const bytes = new TextEncoder().encode(text)
  await fc.assert(
    fc.asyncProperty(offsets(bytes.length), async (cuts) => {
      const events = await all(readSSE(from(cutAt(bytes, cuts))))
      expect(events.map((e) => [e.event, e.data])).toEqual([
        ['ping', '{"type":"ping"}'],
        [undefined, 'line one\nü 東京'],
        [undefined, 'last'],
      ])
    }),
  )
})

test('readers are total over arbitrary bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), async (pieces) => {
      await all(readLines(from(pieces)))
      await all(readSSE(from(pieces)))
    }),
  )
})
