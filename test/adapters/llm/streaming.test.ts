import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cutAt, startLoopback, writePieces, type Loopback } from '../http/loopback.js'
import { cases, collect } from './cases.js'
import { expectedText } from './fixtures.js'

describe.each(cases)('$name streams the transcript', (c) => {
  let server: Loopback
  let pieces: Uint8Array[] = []
  beforeAll(async () => {
    server = await startLoopback(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType, 'x-request-id': 'req_1' })
      await writePieces(res, pieces)
      res.end()
    })
  })
  afterAll(() => server.close())

  it('text, reasoning kept apart, one usage chunk last', async () => {
    pieces = [new TextEncoder().encode(c.transcript)]
    const got = await collect(c.make(server.url))
    expect(got.text).toBe(expectedText)
    expect(got.reasoning).toBe(c.reasoning)
    expect(got.usage).toEqual([c.usage])
    expect(got.chunks.at(-1)).toEqual(c.usage)
  })

  it('cut anywhere (inside characters and lines), the same text and usage', async () => {
    const bytes = new TextEncoder().encode(c.transcript)
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), async (offsets) => {
        pieces = cutAt(bytes, offsets)
        const got = await collect(c.make(server.url))
        expect(got.text).toBe(expectedText)
        expect(got.reasoning).toBe(c.reasoning)
        expect(got.usage).toEqual([c.usage])
      }),
      { numRuns: 30 },
    )
  })

  it('tokens arrive while the response is still streaming', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const local = await startLoopback(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.textFrame('first')])
      await held
      res.end(c.textFrame(' second'))
    })
    try {
      const stream = c.make(local.url).stream({ prompt: 'q' })[Symbol.asyncIterator]()
      expect(await stream.next()).toEqual({ done: false, value: { type: 'text', text: 'first' } })
      release()
      expect(await stream.next()).toEqual({ done: false, value: { type: 'text', text: ' second' } })
    } finally {
      release()
      await local.close()
    }
  })

  it('a pricing table for the model turns usage into dollars', async () => {
    pieces = [new TextEncoder().encode(c.transcript)]
    const model = c.make(server.url).model ?? ''
    const got = await collect(c.make(server.url, { pricing: { [model]: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } } }))
    expect(got.usage).toEqual([{ ...c.usage, cost: 19 + 14 }])
  })
})
