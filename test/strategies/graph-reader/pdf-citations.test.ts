/**
 * Issue 26, end to end: a graph-reader run whose search returns a PDF on a loopback server reads
 * it with `httpFetch`, shows the extractor the pages that match the query (each a source with
 * its `#page=n` URL), and answers citing the page the fact came from.
 */
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { createAgent } from '../../../src/index.js'
import { graphReader } from '../../../src/strategy.js'
import { mockSearch } from '../../../src/testing/index.js'
import { textPdf } from '../../support/make-pdf.js'
import { loopbacks } from '../../adapters/http/loopback.js'
import { calls, collect, graphModel, ofType, result } from './helpers.js'

const serve = loopbacks()

/** Twenty pages of filler; page 7 holds the fact. */
const paper = textPdf(
  Array.from({ length: 20 }, (_, i) =>
    i === 6
      ? ['Results', 'The melting point of unobtainium is 1,234 K at sea level.']
      : [`Section ${i + 1}`, 'Background material on alloys, furnaces and the history of metallurgy.'],
  ),
  { title: 'On unobtainium' },
)

/** The number of the source whose text says `phrase`, as a reader of the prompt finds it. */
function sourceSaying(prompt: string, phrase: string): number {
  const blocks = prompt.split(/\n\n(?=\[\d+\] )/)
  const block = blocks.find((b) => b.includes(phrase))
  return Number(/^\[(\d+)\]/.exec(block ?? '')?.[1] ?? 0)
}

describe('graph-reader reads a PDF and cites its page', () => {
  it('answers with a #page=N citation of the page the fact is on', { timeout: 120_000 }, async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' })
      res.end(paper)
    })
    const pdfUrl = `${server.url}/papers/unobtainium.pdf`
    const llm = graphModel({
      plan: '{"goal": "g", "steps": ["s"], "key_elements": ["melting point"], "queries": ["unobtainium melting point"]}',
      extract: (req) => {
        const source = sourceSaying(req.prompt, '1,234 K')
        return JSON.stringify({ facts: source ? [{ text: 'Unobtainium melts at 1,234 K', source }] : [] })
      },
      check: () => '{"answerable": true, "queries": []}',
      final: 'Unobtainium melts at 1,234 K [1].',
    })
    const search = mockSearch({ results: { 'unobtainium melting point': [result(pdfUrl, 'A paper on unobtainium.', 'On unobtainium')] } })
    const run = createAgent({
      llm,
      search,
      fetch: httpFetch({ allowPrivateNetwork: true, maxRetries: 0, documentTimeoutMs: 60_000 }),
      strategy: graphReader({ concurrency: 1 }),
    }).research('What is the melting point of unobtainium?')
    const events = await collect(run)
    const answer = await run.result

    expect(ofType(events, 'page')).toEqual([expect.objectContaining({ url: pdfUrl, kind: 'pdf', pages: 20, title: 'On unobtainium' })])
    // The extractor saw the best-matching pages as sources of their own, page 7 among them.
    expect(calls(llm, 'extractor')[0]?.prompt).toContain(`${pdfUrl}#page=7\n`)
    expect(answer.facts.map((f) => f.sources)).toEqual([[`${pdfUrl}#page=7`]])
    expect(answer.answer).toBe('Unobtainium melts at 1,234 K [1].')
    expect(answer.citations).toEqual([{ index: 1, url: `${pdfUrl}#page=7`, title: 'On unobtainium (page 7)' }])
  })
})
