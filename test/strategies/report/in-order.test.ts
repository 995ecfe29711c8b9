/**
 * A report's sections are written side by side and streamed in outline order: met through report
 * runs whose section writers stream their pieces in any interleaving, each piece after its own
 * number of turns of the event loop's microtask queue, or held until another section is done.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createAgent, type LLMChunk, type LLMProvider, type LLMRequest, type ResearchEvent } from '../../../src/index.js'
import { mockSearch, scriptedLLM } from '../../../src/testing/index.js'
import { collect } from '../reflect/helpers.js'
import { outlineReply, own, sectionOf, sectionTitle, shared } from './rig.js'

/**
 * A report of `pieces.length` sections whose writer for section k streams `pieces[k]`, waiting
 * `before(k, j)` before piece j; the events of the run.
 */
async function report(pieces: readonly (readonly string[])[], before: (k: number, j: number) => Promise<void>): Promise<ResearchEvent[]> {
  const count = pieces.length
  const writer: LLMProvider = {
    local: true,
    async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
      const k = sectionOf(req)
      if (k < 0) yield { type: 'text', text: req.system?.includes('introduction') ? 'This report covers every topic.' : 'All topics matter.' }
      else
        for (const [j, text] of pieces[k]!.entries()) {
          await before(k, j)
          yield { type: 'text', text }
        }
      yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
    },
  }
  const agent = createAgent({
    models: {
      planner: scriptedLLM({ replies: () => outlineReply(count) }),
      extractor: scriptedLLM({ replies: (req) => JSON.stringify({ facts: [{ text: `Topic ${sectionOf(req)} has its own fact.`, sources: [2] }] }) }),
      finalizer: writer,
    },
    search: mockSearch({ results: (query) => [shared, own(Number(/topic (\d+)/.exec(query)?.[1] ?? 0))] }),
    strategy: 'report',
    report: { sections: count, concurrency: 6 },
  })
  const { events } = await collect(agent, 'Tell me about the topics')
  return events
}

/** The sections' events in the order streamed: `open i`, each piece as `i: text`, `close i`. */
function streamed(events: readonly ResearchEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === 'section-start'
      ? [`open ${e.index}`]
      : e.type === 'section-end'
        ? [`close ${e.index}`]
        : e.type === 'answer-token' && e.section !== undefined
          ? [`${e.section}: ${e.text}`]
          : [],
  )
}

/** What streaming each section whole, in outline order, gives. */
const inOutlineOrder = (pieces: readonly (readonly string[])[]) =>
  pieces.flatMap((list, i) => [`open ${i}`, `${i}: ## ${sectionTitle(i)}\n\n`, ...list.map((text) => `${i}: ${text}`), `${i}: \n\n`, `close ${i}`])

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

describe('report sections in outline order', () => {
  it('streams every piece once, each section whole and in outline order, whatever order they arrive in (property)', async () => {
    const piece = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', 'y'), minLength: 1, maxLength: 3 })
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }).chain((count) =>
          fc.tuple(
            fc.array(fc.array(piece, { minLength: 1, maxLength: 4 }), { minLength: count, maxLength: count }),
            // Turns of the microtask queue before each piece of each section: the order they arrive in.
            fc.array(fc.array(fc.nat({ max: 40 }), { minLength: 4, maxLength: 4 }), { minLength: count, maxLength: count }),
          ),
        ),
        async ([pieces, waits]) => {
          const events = await report(pieces, (k, j) => turns(waits[k]![j]!))
          expect(streamed(events)).toEqual(inOutlineOrder(pieces))
        },
      ),
    )
  })

  it('holds a later section until the one before it ends', async () => {
    let laterDone!: () => void
    const later = new Promise<void>((resolve) => (laterDone = resolve))
    const pieces = [['a'], ['b']]
    const events = await report(pieces, async (k) => {
      // Section 0 writes only once section 1 has written all it has (and a turn more, for its end to pass).
      if (k === 0) {
        await later
        await turns(20)
      } else laterDone()
    })
    expect(streamed(events)).toEqual(inOutlineOrder(pieces))
  })
})
