import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromNDJSON, fromSSE, parseResearchEvent } from '../../src/streams/index.js'
import { researchRun } from './arbitraries.js'
import { collect, streamOf } from './helpers.js'

const encoder = new TextEncoder()

describe('parseResearchEvent', () => {
  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (text) => {
          expect(() => parseResearchEvent(text)).not.toThrow()
        },
      ),
    )
  })

  it('accepts every generated event and rejects it once a stamp or payload field is broken', () => {
    fc.assert(
      fc.property(researchRun, fc.constantFrom('runId', 'seq', 'time', 'type'), (events, field) => {
        for (const event of events) {
          expect(parseResearchEvent(JSON.stringify(event))).toEqual(event)
          expect(parseResearchEvent(JSON.stringify({ ...event, [field]: null }))).toBeUndefined()
        }
      }),
      { numRuns: 30 },
    )
  })

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['an unknown type', '{"type":"telemetry","runId":"r","seq":0,"time":1}'],
    ['a fact without its fact', '{"type":"fact","runId":"r","seq":0,"time":1}'],
    ['a fractional seq', '{"type":"answer-token","text":"x","runId":"r","seq":0.5,"time":1}'],
  ])('rejects %s', (_name, text) => {
    expect(parseResearchEvent(text)).toBeUndefined()
  })
})

describe('fromSSE and fromNDJSON on hostile input', () => {
  it('fromSSE never throws on arbitrary bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary' }), async (text) => {
        await expect(collect(fromSSE(streamOf([encoder.encode(text)])))).resolves.toBeInstanceOf(Array)
      }),
      { numRuns: 200 },
    )
  })

  it('fromSSE skips frames that are not research events and keeps the rest', async () => {
    const good = '{"type":"answer-token","text":"hi","runId":"r","seq":0,"time":1}'
    const invalid: string[] = []
    const body = `: hello\n\ndata: not json\n\nevent: ping\ndata: {}\n\nid: 0\ndata: ${good}\n\n`
    const events = await collect(fromSSE(streamOf([encoder.encode(body)]), { onInvalid: (data) => invalid.push(data) }))
    expect(events).toEqual([JSON.parse(good)])
    expect(invalid).toEqual(['not json', '{}'])
  })

  it('fromNDJSON never throws on arbitrary text and skips bad lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' })), async (chunks) => {
        await expect(collect(fromNDJSON(chunks))).resolves.toBeInstanceOf(Array)
      }),
      { numRuns: 200 },
    )
    const invalid: string[] = []
    const good = '{"type":"answer-token","text":"hi","runId":"r","seq":0,"time":1}'
    const events = await collect(fromNDJSON([`oops\r\n\n${good}\r\n  \n{"type":1}`], { onInvalid: (line) => invalid.push(line) }))
    expect(events).toEqual([JSON.parse(good)])
    expect(invalid).toEqual(['oops', '{"type":1}'])
  })
})
