import { describe, expect, it } from 'vitest'
import { createAgent, type ResearchEvent, type ResearchResult } from '../../../src/index.js'
import type { citationFilter, StrategyContext, StrategyEvent } from '../../../src/strategy.js'
import { citedAnswer, nothingToAnswerFrom, type CitedAnswerArgs } from '../../../src/strategies/shared/cited-answer.js'
import { assertEventInvariants, scriptedLLM } from '../../../src/testing/index.js'

type Citation = ResearchResult['citations'][number]

const SOURCES = [{ url: 'https://a.example/', title: 'A' }, { url: 'https://b.example/' }, { url: 'https://c.example/', title: 'C' }]

/** Runs a strategy whose whole run is `end(ctx)`, the finalizer replying `reply`. */
async function runEnd(
  end: (ctx: StrategyContext) => AsyncGenerator<StrategyEvent>,
  opts: { reply?: string; chunkSize?: 'word' | number; citations?: Citation[] } = {},
): Promise<{ events: readonly ResearchEvent[]; calls: number }> {
  const llm = scriptedLLM({ replies: () => opts.reply ?? '', chunkSize: opts.chunkSize ?? 'word' })
  const agent = createAgent({
    llm,
    strategy: {
      name: 'ending',
      async *run(_question, ctx) {
        yield* end(ctx)
        return { reason: 'answered' }
      },
    },
  })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('q', opts.citations ? { citations: opts.citations } : {})) events.push(event)
  return { events: assertEventInvariants(events), calls: llm.calls.length }
}

const streamed =
  (extra: Partial<CitedAnswerArgs> = {}) =>
  (ctx: StrategyContext) =>
    citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: (n) => SOURCES[n - 1], empty: { warning: 'nothing written' }, ...extra })

/** A stream filter that ends the text after the first `word`, keeping what it was pushed in `seen`. */
function cutAfter(word: string): ReturnType<typeof citationFilter> & { seen: string } {
  let sent = 0
  let done = false
  const filter = {
    seen: '',
    push(chunk: string): string {
      if (done) return ''
      filter.seen += chunk
      const at = filter.seen.indexOf(word, Math.max(0, sent - word.length + 1))
      // Held back: the end of what came, which may be the start of `word`.
      const upTo = at >= 0 ? at + word.length : Math.max(sent, filter.seen.length - word.length + 1)
      done = at >= 0
      const out = filter.seen.slice(sent, upTo)
      sent = upTo
      return out
    },
    flush(): string {
      if (done) return ''
      done = true
      return filter.seen.slice(sent)
    },
  }
  return filter
}

const tokens = (events: readonly ResearchEvent[]) =>
  events
    .filter((e) => e.type === 'answer-token')
    .map((e) => e.text)
    .join('')
const answerOf = (events: readonly ResearchEvent[]) => events.find((e) => e.type === 'answer')
const warnings = (events: readonly ResearchEvent[]) => events.filter((e) => e.type === 'warning').map((e) => `${e.code}: ${e.message}`)

describe('citedAnswer', () => {
  it.each([['word'], [1], [3]] as const)('renumbers the finalizer’s citations first cited first and drops invented ones (chunks: %s)', async (chunkSize) => {
    const { events } = await runEnd(streamed(), { reply: 'C says so [3]. A agrees [1, 3]. Nobody [9] else.', chunkSize })
    const text = 'C says so [1]. A agrees [2][1]. Nobody else.'
    expect(tokens(events)).toBe(text)
    expect(answerOf(events)).toEqual(
      expect.objectContaining({
        text,
        citations: [
          { index: 1, url: 'https://c.example/', title: 'C' },
          { index: 2, url: 'https://a.example/', title: 'A' },
        ],
      }),
    )
    expect(warnings(events)).toEqual([])
  })

  it('keeps the conversation’s numbers for sources cited before', async () => {
    const citations = [{ index: 4, url: 'https://a.example/', title: 'A' }]
    const { events } = await runEnd(streamed(), { reply: 'B [2] and A [1].', citations })
    expect(answerOf(events)).toMatchObject({
      text: 'B [5] and A [4].',
      citations: [
        { index: 4, url: 'https://a.example/' },
        { index: 5, url: 'https://b.example/' },
      ],
    })
  })

  it('runs the extra filter after the citation filter', async () => {
    const filter = cutAfter('three')
    const { events } = await runEnd(streamed({ filter }), { reply: 'one [2] two three four five [3]' })
    // The filter saw the renumbered markers; a source cited only in what it cut is not cited.
    expect(filter.seen).toMatch(/^one \[1\] two three/)
    expect(answerOf(events)).toMatchObject({ text: 'one [1] two three', citations: [{ index: 1, url: 'https://b.example/' }] })
  })

  it('answers with the fallback when the finalizer writes nothing but invented citations', async () => {
    const end = streamed({ empty: { warning: 'nothing written', text: (cite) => `Top result [${cite(SOURCES[2]!)}]` } })
    const { events } = await runEnd(end, { reply: '[9]' })
    expect(warnings(events)).toEqual(['empty-output: nothing written'])
    expect(answerOf(events)).toMatchObject({ text: 'Top result [1]', citations: [{ index: 1, url: 'https://c.example/' }] })
    expect(tokens(events)).toBe('Top result [1]')
  })

  it('without a fallback text the blank text is the answer; without a warning none is given', async () => {
    const blank = await runEnd(streamed(), { reply: '' })
    expect(warnings(blank.events)).toEqual(['empty-output: nothing written'])
    expect(answerOf(blank.events)).toMatchObject({ text: '', citations: [] })
    const quiet = await runEnd(streamed({ empty: { text: () => 'Nothing.' } }), { reply: '[7]' })
    expect(warnings(quiet.events)).toEqual([])
    expect(answerOf(quiet.events)).toMatchObject({ text: 'Nothing.', citations: [] })
  })

  it('releases a draft as one token, renumbered, with no model call', async () => {
    const end = (ctx: StrategyContext) => citedAnswer(ctx, { from: { draft: 'B [2], not [8].' }, source: (n) => SOURCES[n - 1], empty: {} })
    const { events, calls } = await runEnd(end)
    expect(calls).toBe(0)
    expect(events.filter((e) => e.type === 'answer-token').map((e) => e.text)).toEqual(['B [1], not.'])
    expect(answerOf(events)).toMatchObject({ text: 'B [1], not.', citations: [{ index: 1, url: 'https://b.example/' }] })
  })

  it('an empty draft takes the fallback', async () => {
    const end = (ctx: StrategyContext) =>
      citedAnswer(ctx, { from: { draft: '' }, source: () => undefined, empty: { warning: 'no answer', text: () => 'No answer.' } })
    const { events } = await runEnd(end)
    expect(warnings(events)).toEqual(['empty-output: no answer'])
    expect(events.filter((e) => e.type === 'answer-token').map((e) => e.text)).toEqual(['No answer.'])
  })

  it('adds the details to the answer, counting the citations of the text they name', async () => {
    const seen: string[] = []
    const end = streamed({
      async *details(text, renumber) {
        seen.push(text)
        yield { type: 'plan', text: 'writing the report' }
        return { confidence: 0.5, alsoCited: [renumber('and C [3], not [6]')] }
      },
    })
    const { events } = await runEnd(end, { reply: 'A [1].' })
    expect(seen).toEqual(['A [1].'])
    const answer = answerOf(events)
    expect(answer).toMatchObject({ text: 'A [1].', confidence: 0.5, citations: [{ index: 1 }, { index: 2, url: 'https://c.example/' }] })
    expect(answer).not.toHaveProperty('alsoCited')
    expect(events.map((e) => e.type).indexOf('plan')).toBeLessThan(events.map((e) => e.type).indexOf('answer'))
  })
})

describe('citedAnswer details', () => {
  it('may be given at once', async () => {
    const { events } = await runEnd(streamed({ details: () => ({ confidence: 0.25 }) }), { reply: 'B [2].' })
    expect(answerOf(events)).toMatchObject({ text: 'B [1].', confidence: 0.25, citations: [{ index: 1, url: 'https://b.example/' }] })
  })
})

describe('nothingToAnswerFrom', () => {
  it('warns and answers with the text, citing nothing', async () => {
    const end = (ctx: StrategyContext) => nothingToAnswerFrom(ctx, { message: 'no sources', code: 'no-sources' }, 'Nothing found.')
    const { events, calls } = await runEnd(end)
    expect(calls).toBe(0)
    expect(warnings(events)).toEqual(['no-sources: no sources'])
    expect(answerOf(events)).toMatchObject({ text: 'Nothing found.', citations: [] })
    expect(tokens(events)).toBe('Nothing found.')
  })
})
