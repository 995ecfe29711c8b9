/**
 * Issue 34, end to end on real documents served over loopback and read by `httpFetch`: a fact
 * deep inside a real paper (pdfminer.six's naacl06-shinyama.pdf, page 6, past the page's first
 * 2,000 characters) and one past the 38,000th character of a real article (trafilatura's saved
 * gregoryszorc.com page) reach the model and are cited by the place that holds them, with
 * graph-reader, deep and react. The model is bench/evidence-oracle.ts: told only the fact's
 * words, it extracts any sentence it is shown that holds them and cites it.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../src/adapters/index.js'
import { shownText } from '../support/shown-text.js'
import { normalizeText } from '../../src/strategy.js'
import { createAgent } from '../../src/index.js'
import { deep, graphReader, react } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch } from '../../src/testing/index.js'
import type { ResearchEvent } from '../../src/index.js'
import { oracleModel } from '../../bench/evidence-oracle.js'
import { loopbacks } from '../adapters/http/loopback.js'

const serve = loopbacks()
const fixtures = new URL('../fixtures/', import.meta.url)
const paper = readFileSync(new URL('documents/papers/naacl06-shinyama.pdf', fixtures))
const article = readFileSync(new URL('pages/gregoryszorc.com.python3.html', fixtures))

const strategies = {
  'graph-reader': () => graphReader({ concurrency: 1 }),
  deep: () => deep({ mode: 'conversational' }),
  react: () => react(),
}

async function research(strategy: keyof typeof strategies, url: string, question: string, words: readonly string[]) {
  const llm = oracleModel(question, words)
  const search = mockSearch({ results: () => [{ title: 'A document', url, snippet: 'A document found by search.' }] })
  const fetch = httpFetch({ allowPrivateNetwork: true, maxRetries: 0, documentTimeoutMs: 60_000 })
  const run = createAgent({ llm, search, fetch, strategy: strategies[strategy]() }).research(question)
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  const shown = llm.calls.map((req) => normalizeText(shownText(req))).join('\n')
  return { result: await run.result, shown }
}

describe.each(Object.keys(strategies) as (keyof typeof strategies)[])('%s reads what matches in real documents', (strategy) => {
  it("reaches the issue's page-6 fact of a real paper and cites the page", { timeout: 120_000 }, async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' })
      res.end(paper)
    })
    const url = `${server.url}/naacl06-shinyama.pdf`
    const { result, shown } = await research(strategy, url, 'preemptive information extraction metaclusters obtained tables', [
      'obtained',
      '302',
      'metaclusters',
    ])
    expect(shown).toContain(normalizeText('and obtained 302 metaclusters (tables).'))
    expect(result.answer).toContain('302 metaclusters')
    expect(result.citations.map((c) => c.url)).toContain(`${url}#page=6`)
  })

  it('reaches a sentence past the 38,000th character of a real article and cites the page', { timeout: 120_000 }, async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end(article)
    })
    const url = `${server.url}/python3`
    const sentence = 'Identify what went well, what could have gone better, and what should be done next time such a large language change is wanted.'
    const { result, shown } = await research(strategy, url, 'identify went gone done', ['identify', 'went', 'gone', 'done'])
    expect(shown).toContain(normalizeText(sentence))
    expect(result.answer).toContain(sentence)
    expect(result.citations.map((c) => c.url)).toEqual([url])
  })
})
