/**
 * Claim verification end to end on a real paper served over loopback and read by `httpFetch`
 * (pdfminer.six's naacl06-shinyama.pdf, test/fixtures/documents/papers): graph-reader and deep
 * answer through bench/evidence-oracle.ts (a scripted model that extracts what it is shown), and
 * each cited sentence is checked against what the finalizer was shown for its source. The answer
 * as the oracle writes it is supported; the same answer with its number changed by the finalizer
 * is flagged, with the real number as evidence, and no judge call is needed for either.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../src/adapters/index.js'
import { createAgent, type LLMChunk, type LLMProvider, type ResearchEvent, type AgentOptions } from '../../src/index.js'
import { deep, graphReader } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { oracleModel } from '../../bench/evidence-oracle.js'
import { loopbacks } from '../adapters/http/loopback.js'

type VerifyMode = NonNullable<AgentOptions['verify']>

const serve = loopbacks()
const paper = readFileSync(new URL('../fixtures/documents/papers/naacl06-shinyama.pdf', import.meta.url))
const QUESTION = 'preemptive information extraction metaclusters obtained tables'
const WORDS = ['obtained', '302', 'metaclusters']

/** The model with every reply's `from` written as `to`: a finalizer that gets a number wrong. */
function misquoting(model: LLMProvider, from: string, to: string): LLMProvider {
  return {
    local: true,
    async *stream(req) {
      let text = ''
      let usage: LLMChunk | undefined
      for await (const chunk of model.stream(req)) {
        if (chunk.type === 'text') text += chunk.text
        else if (chunk.type === 'usage') usage = chunk
      }
      yield { type: 'text', text: text.replaceAll(from, to) }
      if (usage) yield usage
    },
  }
}

const strategies = {
  'graph-reader': () => graphReader({ concurrency: 1 }),
  deep: () => deep({ mode: 'conversational' }),
}

async function research(strategy: keyof typeof strategies, verify: VerifyMode, misquote: boolean) {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf' })
    res.end(paper)
  })
  const url = `${server.url}/naacl06-shinyama.pdf`
  const llm = oracleModel(QUESTION, WORDS)
  const judge = scriptedLLM({ replies: () => '{"verdict": "supported"}' })
  const agent = createAgent({
    llm,
    models: { ...(misquote ? { finalizer: misquoting(llm, '302 metaclusters', '320 metaclusters') } : {}), verifier: judge },
    search: mockSearch({ results: () => [{ title: 'A paper', url, snippet: 'A paper found by search.' }] }),
    fetch: httpFetch({ allowPrivateNetwork: true, maxRetries: 0, documentTimeoutMs: 60_000 }),
    strategy: strategies[strategy](),
    verify,
  })
  const run = agent.research(QUESTION)
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  return { result: await run.result, claims: events.filter((e) => e.type === 'claim'), judge }
}

describe.each(Object.keys(strategies) as (keyof typeof strategies)[])('%s, verified against a real paper', (strategy) => {
  it('finds the answer as written supported by what its source showed', { timeout: 120_000 }, async () => {
    const { result, claims, judge } = await research(strategy, 'annotate', false)
    const fact = claims.find((c) => c.text.includes('302 metaclusters'))
    expect(fact).toMatchObject({ verdict: 'supported', score: 1 })
    expect(fact?.citations.length).toBeGreaterThan(0)
    expect(claims.filter((c) => c.verdict === 'unsupported')).toEqual([])
    expect(result.supportRate).toBe(1)
    expect(judge.calls).toHaveLength(0)
  })

  it('flags the number the finalizer got wrong, with the number its source gives as evidence', { timeout: 120_000 }, async () => {
    const { result, claims, judge } = await research(strategy, 'annotate', true)
    const wrong = claims.find((c) => c.text.includes('320 metaclusters'))
    expect(wrong).toMatchObject({ verdict: 'unsupported', evidence: expect.stringContaining('302') })
    expect(result.supportRate).toBeLessThan(1)
    expect(result.claims?.find((c) => c.index === wrong?.index)?.verdict).toBe('unsupported')
    expect(judge.calls).toHaveLength(0)
  })
})
