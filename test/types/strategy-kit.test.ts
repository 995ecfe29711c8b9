/**
 * Type-level tests of `laconic-research/strategy`'s toolkit: the helpers a strategy of your own
 * calls (citations, the notebook, text, pages, parsers of model output, option checks).
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { FetchedPage, ResearchResult } from '../../src/index.js'
import type * as kit from '../../src/strategy.js'

type Citation = ResearchResult['citations'][number]
type Fact = ResearchResult['facts'][number]
type TextFilter = ReturnType<typeof kit.createThinkFilter>

describe('citations and the notebook', () => {
  it('the registry numbers sources, the filter renumbers [n] as text streams', () => {
    expectTypeOf<kit.CitationRegistry['indexOf']>().toEqualTypeOf<(url: string, title?: string) => number>()
    expectTypeOf<kit.CitationRegistry['list']>().returns.toEqualTypeOf<Citation[]>()
    expectTypeOf<kit.CitationRegistry['citedIn']>().parameters.toEqualTypeOf<[text: string]>()
    expectTypeOf<typeof kit.citationFilter>().parameters.toEqualTypeOf<[map: (n: number) => number | undefined]>()
    expectTypeOf<ReturnType<typeof kit.citationFilter>>().toEqualTypeOf<TextFilter>()
  })

  it('the notebook keeps facts, restores them, and counts them', () => {
    expectTypeOf<kit.Notebook['facts']>().returns.toEqualTypeOf<Fact[]>()
    expectTypeOf<kit.Notebook['restore']>().parameters.toEqualTypeOf<[facts: readonly Fact[]]>()
    expectTypeOf<kit.Notebook['size']>().toEqualTypeOf<number>()
    expectTypeOf<kit.Notebook['add']>().parameter(0).toEqualTypeOf<string>()
  })
})

describe('text', () => {
  it('a think filter takes chunks and gives the visible text', () => {
    expectTypeOf<TextFilter['push']>().toEqualTypeOf<(chunk: string) => string>()
    expectTypeOf<TextFilter['flush']>().toEqualTypeOf<() => string>()
    expectTypeOf<typeof kit.createThinkFilter>().parameters.toEqualTypeOf<[onThink?: (reasoning: string) => void]>()
    expectTypeOf<typeof kit.stripThink>().toEqualTypeOf<(text: string) => string>()
    expectTypeOf<typeof kit.normalizeText>().toEqualTypeOf<(text: string) => string>()
    expectTypeOf<typeof kit.truncateAtSentence>().toEqualTypeOf<(text: string, maxChars: number) => string>()
    expectTypeOf<typeof kit.estimateTokens>().toEqualTypeOf<(text: string) => number>()
  })

  it('URLs: one form per page, ads told apart', () => {
    expectTypeOf<typeof kit.normalizeUrl>().toEqualTypeOf<(raw: string) => string>()
    expectTypeOf<typeof kit.isAdUrl>().toEqualTypeOf<(raw: string) => boolean>()
  })
})

describe('pages', () => {
  it("a document's pages, and the passages of a page that match a query", () => {
    expectTypeOf<typeof kit.documentPages>().parameter(0).toEqualTypeOf<Pick<FetchedPage, 'text' | 'pageStarts'>>()
    expectTypeOf<ReturnType<typeof kit.documentPages>>().toEqualTypeOf<{ page: number; text: string }[]>()
    expectTypeOf<typeof kit.documentPassages>().parameters.toEqualTypeOf<
      [page: Pick<FetchedPage, 'url' | 'text' | 'pageStarts'>, query: string, maxChars: number]
    >()
    expectTypeOf<Awaited<ReturnType<typeof kit.documentPassages>>[number]>().toEqualTypeOf<{ url: string; page?: number; text: string }>()
  })
})

describe('parsers and checks', () => {
  it('are total: any text in, a value or nothing out', () => {
    expectTypeOf<typeof kit.parseBareList>().toEqualTypeOf<(text: unknown) => string[]>()
    expectTypeOf<typeof kit.stringField>().toEqualTypeOf<(value: unknown, ...keys: string[]) => string | undefined>()
    expectTypeOf<typeof kit.parseToolArgs>().parameters.toEqualTypeOf<[text: string]>()
    expectTypeOf<typeof kit.toolsUnsupported>().toEqualTypeOf<(error: unknown) => boolean>()
    expectTypeOf<typeof kit.isAbortError>().toEqualTypeOf<(error: unknown) => boolean>()
  })

  it("a strategy's normalize reads its options section with the shared checks", () => {
    expectTypeOf<typeof kit.optionsSection>().returns.toEqualTypeOf<Readonly<Record<string, unknown>>>()
    expectTypeOf<typeof kit.optionsSection>().parameter(2).toEqualTypeOf<readonly string[]>()
    expectTypeOf<typeof kit.wholeNumberOption>().toEqualTypeOf<(value: unknown, name: string, fallback: number, min: number) => number>()
  })
})

describe('the cited, checked answer', () => {
  it('citedAnswer takes the context and where the text comes from, and yields strategy events', () => {
    expectTypeOf<typeof kit.citedAnswer>().parameter(0).toEqualTypeOf<kit.StrategyContext>()
    expectTypeOf<ReturnType<typeof kit.citedAnswer>>().toEqualTypeOf<AsyncGenerator<kit.StrategyEvent>>()
    expectTypeOf<typeof kit.citedAnswer>().parameter(1).toEqualTypeOf<kit.CitedAnswerArgs>()
    // The text streams from a finalizer request, or is a draft already written.
    expectTypeOf<{ draft: string }>().toExtend<kit.CitedAnswerArgs['from']>()
    expectTypeOf<{ request: { prompt: string } }>().toExtend<kit.CitedAnswerArgs['from']>()
    expectTypeOf<{ prompt: string }>().not.toExtend<kit.CitedAnswerArgs['from']>()
    expectTypeOf<kit.CitedAnswerArgs['source']>().toEqualTypeOf<(n: number) => kit.CitedSource | undefined>()
  })

  it('a source names its URL and, optionally, the text the model was shown for it', () => {
    expectTypeOf<{ url: string }>().toExtend<kit.CitedSource>()
    expectTypeOf<kit.CitedSource['text']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<{ title: string }>().not.toExtend<kit.CitedSource>()
  })
})
