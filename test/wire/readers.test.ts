/**
 * The wire readers: NDJSON lines and server-sent events come out the same however the bytes are
 * cut, with CR, LF and CRLF, and round-trip with the package's writers.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeSSEFrame, type SSEFrame } from '../../src/streams/sse-frame.js'
import { FrameTooLongError, readLines, readSSE, type EventSourceMessage, type ReadSSEOptions } from '../../src/wire/index.js'
import { splitBytesAt } from '../support/split.js'

const encoder = new TextEncoder()
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}
const cuts = fc.array(fc.nat(), { maxLength: 30 })
const lines = (text: string, at: readonly number[]) => all(readLines(splitBytesAt(encoder.encode(text), at)))
const events = (text: string, at: readonly number[], options?: ReadSSEOptions) => all(readSSE(splitBytesAt(encoder.encode(text), at), options))
const shape = (list: EventSourceMessage[]) => list.map(({ id, event, data }) => ({ id, event, data }))

/** Text with every kind of character a frame can hold: multi-byte, a lone CR inside NDJSON, NUL. */
const lineText = fc
  .string({ unit: fc.oneof(fc.constantFrom('é', '東', '🏔', '\r', '\0', ':', ' '), fc.string({ minLength: 1, maxLength: 1 })) })
  .map((s) => s.replace(/\n/g, ''))

describe('readLines (NDJSON)', () => {
  it('the same lines however the bytes are cut (CRLF, no final newline, multi-byte)', async () => {
    await fc.assert(
      fc.asyncProperty(cuts, async (at) => {
        expect(await lines('{"a":"ü"}\r\n\n{"b":"東京"}\n{"c":"🏔️"}', at)).toEqual(['{"a":"ü"}', '', '{"b":"東京"}', '{"c":"🏔️"}'])
      }),
    )
  })

  it('chunk-split invariance: any lines, LF or CRLF, cut anywhere, read as when whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineText.map((s) => s.replace(/\r$/, ''))),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        cuts,
        async (written, eol, finalBreak, at) => {
          const text = written.join(eol) + (finalBreak ? eol : '')
          const expected = text.split('\n').map((line) => line.replace(/\r$/, ''))
          // Past the last line break, what is left only counts as a line if it holds more than a CR.
          if (expected.at(-1) === '') expected.pop()
          expect(await lines(text, at)).toEqual(expected)
        },
      ),
    )
  })

  it('round-trips JSON values written one per line (as toNDJSON writes them)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue()), cuts, async (values, at) => {
        const text = values.map((value) => `${JSON.stringify(value)}\n`).join('')
        expect((await lines(text, at)).map((line) => JSON.parse(line))).toEqual(values.map((value) => JSON.parse(JSON.stringify(value))))
      }),
    )
  })
})

describe('readSSE', () => {
  it('events, names and data however the bytes are cut; comments dropped; a last unterminated event kept', async () => {
    const text = ': hi\r\n\r\nevent: ping\r\ndata: {"type":"ping"}\r\n\r\ndata: line one\ndata: ü 東京\n\nretry: 10\ndata: last'
    await fc.assert(
      fc.asyncProperty(cuts, async (at) => {
        expect((await events(text, at)).map((e) => [e.event, e.data])).toEqual([
          ['ping', '{"type":"ping"}'],
          [undefined, 'line one\nü 東京'],
          [undefined, 'last'],
        ])
      }),
    )
  })

  const frame: fc.Arbitrary<SSEFrame> = fc.record(
    {
      id: lineText.map((s) => s.replace(/[\r\0]/g, '')),
      event: lineText.filter((s) => s !== '').map((s) => s.replace(/[\r\0]/g, '') || 'x'),
      data: fc.string({ unit: fc.oneof(fc.constantFrom('é', '🏔', '\r', '\n', '\r\n', 'data: x', ': y'), fc.string({ maxLength: 1 })) }),
      retry: fc.nat({ max: 100_000 }),
    },
    { requiredKeys: ['data'] },
  )
  const comment = fc.constantFrom(': keep-alive\n\n', ':\n\n', '')

  it('chunk-split invariance and round trip with encodeSSEFrame, with LF, CRLF or CR line ends, the last event kept in either mode', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(comment, frame), { maxLength: 8 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        cuts,
        fc.constantFrom('dispatch' as const, 'drop' as const),
        async (written, eol, at, unterminated) => {
          const text = written
            .map(([before, f]) => before + encodeSSEFrame(f))
            .join('')
            .replace(/\n/g, eol)
          const retries: number[] = []
          const read = await events(text, at, { onRetry: (ms) => retries.push(ms), unterminated })
          expect(shape(read)).toEqual(shape(await events(text, [])))
          // The writer splits data on every line break; the reader joins the lines with LF.
          const expected = written.map(([, f]) => ({ id: f.id, event: f.event, data: (f.data ?? '').split(/\r\n|\r|\n/).join('\n') }))
          expect(shape(read)).toEqual(expected)
          expect(retries).toEqual(written.flatMap(([, f]) => (f.retry === undefined ? [] : [f.retry])))
        },
      ),
    )
  })

  it('keeps the last event of a CR-only body that ends with its blank line (issue 35)', async () => {
    expect((await events('data: a\r\rdata: b\r\r', [], { unterminated: 'drop' })).map((e) => e.data)).toEqual(['a', 'b'])
  })

  it('yields every event as soon as its blank line arrives, before the next bytes are asked for, whatever the line ends and the cuts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), cuts, async (written, eol, at) => {
        const framed = written.map((f) => encodeSSEFrame(f).replace(/\n/g, eol))
        const bytes = encoder.encode(framed.join(''))
        const pieces = splitBytesAt(bytes, at)
        // Where each event is complete: just past the first byte of its blank line's break (a CRLF's CR ends the line).
        const ends: number[] = []
        let offset = 0
        for (const f of framed) {
          offset += encoder.encode(f).length
          ends.push(offset - (eol === '\r\n' ? 1 : 0))
        }
        // Bytes received once each piece is in.
        const received: number[] = []
        for (const piece of pieces) received.push((received.at(-1) ?? 0) + piece.length)
        let pulled = 0
        async function* source() {
          for (const [i, piece] of pieces.entries()) {
            pulled = received[i] as number
            yield piece
          }
        }
        const seenAt: number[] = []
        for await (const _ of readSSE(source(), { unterminated: 'drop' })) seenAt.push(pulled)
        // Each event comes out with the first piece that completes it, before the next is asked for.
        expect(seenAt).toEqual(ends.map((end) => received.find((n) => n >= end)))
      }),
    )
  })

  it('drops a last event the body did not close, when asked to', async () => {
    expect(shape(await events('data: a\n\ndata: cut', [4], { unterminated: 'drop' }))).toEqual([{ id: undefined, event: undefined, data: 'a' }])
  })

  it('refuses an event whose data lines add up past the cap (the parser’s own buffer cap)', async () => {
    const text = 'data: 0123456789\n'.repeat(10)
    await expect(events(`${text}\n`, [], { maxChars: 200 })).resolves.toHaveLength(1)
    await expect(events(text, [7, 33], { maxChars: 50 })).rejects.toMatchObject({ frame: 'event', maxChars: 50 })
  })

  it('refuses a line past the cap, however it is cut', async () => {
    await fc.assert(
      fc.asyncProperty(cuts, async (at) => {
        await expect(events(`data: ok\n\ndata: ${'x'.repeat(60)}`, at, { maxChars: 50 })).rejects.toBeInstanceOf(FrameTooLongError)
      }),
    )
  })
})

it('the readers are total over arbitrary bytes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 }), async (pieces) => {
      await all(readLines(pieces))
      await all(readSSE(pieces))
    }),
  )
})
