/**
 * Issue 13, finding 5: every reader of lines and events keeps an unfinished line as bytes and refuses one longer than its cap with a typed error, instead of growing the heap.
 */
import { describe, expect, it } from 'vitest'
import { fromNDJSON, fromSSE } from '../../src/streams/index.js'

/** The documented cap on one NDJSON line or SSE event (fromNDJSON's doc, docs/security.md). */
const MAX_LINE_CHARS = 4_000_000

const PIECE = 'x'.repeat(65_536)
/** An unterminated line of about twice the cap, in 64 KB pieces, after `prefix`. */
function* hugeLine(prefix: string): Generator<string> {
  yield prefix
  for (let sent = 0; sent < MAX_LINE_CHARS * 2; sent += PIECE.length) yield PIECE
}
const bytes = (pieces: Iterable<string>) => {
  const encoder = new TextEncoder()
  const all = [...pieces]
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = all.shift()
      if (next === undefined) controller.close()
      else controller.enqueue(encoder.encode(next))
    },
  })
}
async function drain(items: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of items);
  } catch (error) {
    return error
  }
  return undefined
}

describe('oversized lines', () => {
  it('fromNDJSON refuses a line past the cap', async () => {
    expect(await drain(fromNDJSON(hugeLine('{"type":"plan","text":"')))).toMatchObject({
      code: 'bad-response',
      message: expect.stringMatching(/longer than 4000000 characters/),
    })
  })

  it('fromSSE refuses a line past the cap, and does not reconnect for it', async () => {
    expect(await drain(fromSSE(bytes(hugeLine('data: '))))).toMatchObject({ code: 'bad-response' })
  })

  it('fromSSE refuses an event whose many short data lines add up past the cap', async () => {
    const lines = function* () {
      for (let sent = 0; sent < MAX_LINE_CHARS * 2; sent += PIECE.length) yield `data: ${PIECE}\n`
    }
    expect(await drain(fromSSE(bytes(lines())))).toMatchObject({ code: 'bad-response', message: expect.stringContaining('an event of the stream') })
  })

  it('the wire readers under both refuse a line past the cap, named as their cause', async () => {
    const tooLong = { name: 'FrameTooLongError', frame: 'line', maxChars: MAX_LINE_CHARS }
    expect(await drain(fromNDJSON(bytes(hugeLine('{"a":"'))))).toMatchObject({ code: 'bad-response', cause: tooLong })
    expect(await drain(fromSSE(bytes(hugeLine('data: '))))).toMatchObject({ code: 'bad-response', cause: tooLong })
  })

  it('a line of exactly the cap still passes', async () => {
    // Neither line is an event: each reaches onInvalid whole.
    const lines: string[] = []
    await drain(fromNDJSON(bytes(['a'.repeat(1000), 'b'.repeat(MAX_LINE_CHARS - 1000), '\nnext']), { onInvalid: (line) => lines.push(line) }))
    expect(lines.map((line) => line.length)).toEqual([MAX_LINE_CHARS, 4])
  })
})
