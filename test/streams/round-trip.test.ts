import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { fromNDJSON, fromSSE, toNDJSON, toSSE } from '../../src/streams/index.js'
import { chunkBytes, cuts, eventSequence, researchRun } from './arbitraries.js'
import { collect, streamOf } from './helpers.js'

async function* from(events: readonly ResearchEvent[]): AsyncGenerator<ResearchEvent> {
  yield* events
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer())
}

describe('SSE round trip', () => {
  it('any run → toSSE → fromSSE gives the same events, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(researchRun, cuts, async (events, at) => {
        const bytes = await bytesOf(toSSE(from(events), { heartbeatMs: 0 }))
        const back = await collect(fromSSE(streamOf(chunkBytes(bytes, at))))
        expect(back).toEqual(events)
      }),
      { numRuns: 150 },
    )
  })

  it('events without run-start/run-end framing survive too (read to the end of the body)', async () => {
    await fc.assert(
      fc.asyncProperty(eventSequence, cuts, async (events, at) => {
        const bytes = await bytesOf(toSSE(from(events), { heartbeatMs: 0 }))
        const back = await collect(fromSSE(new Response(streamOf(chunkBytes(bytes, at)))))
        expect(back).toEqual(events)
      }),
      { numRuns: 100 },
    )
  })

  it('CRLF and CR line endings from a proxy parse the same', async () => {
    await fc.assert(
      fc.asyncProperty(researchRun, fc.constantFrom('\r\n', '\r'), cuts, async (events, eol, at) => {
        const text = await new Response(toSSE(from(events), { heartbeatMs: 0 })).text()
        // JSON escapes line breaks inside strings, so every raw LF is a framing line end.
        const bytes = new TextEncoder().encode(text.replaceAll('\n', eol))
        expect(await collect(fromSSE(streamOf(chunkBytes(bytes, at))))).toEqual(events)
      }),
      { numRuns: 50 },
    )
  })
})

describe('NDJSON round trip', () => {
  it('any events → toNDJSON → fromNDJSON gives the same events, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(researchRun, eventSequence), cuts, async (events, at) => {
        const bytes = await bytesOf(toNDJSON(from(events)))
        expect(await collect(fromNDJSON(streamOf(chunkBytes(bytes, at))))).toEqual(events)
      }),
      { numRuns: 150 },
    )
  })

  it('writes one JSON object per line', async () => {
    await fc.assert(
      fc.asyncProperty(researchRun, async (events) => {
        const text = await new Response(toNDJSON(from(events))).text()
        const lines = text.split('\n')
        expect(lines.pop()).toBe('')
        expect(lines.map((line) => JSON.parse(line))).toEqual(events)
      }),
      { numRuns: 50 },
    )
  })
})
