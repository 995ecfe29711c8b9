import type { StrategyEvent } from '../../core/contracts/events.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { createMerge } from '../../core/util/merge.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { citedAnswer, evidenceText, nothingToAnswerFrom } from '../shared/cited-answer.js'
import { checkSource, parseExtraction } from './parse.js'
import { condenserPrompt, condenserSystem, finalizerPrompt, finalizerSystem } from './prompts.js'
import { condenseSchema } from './schemas.js'

/** A fact as the finalizer sees it: text and source URLs (after condensing, no id). */
export interface NoteFact {
  text: string
  sources: string[]
}

const CONDENSE_ROUNDS = 3

/** Sources numbered by first appearance, and each fact's numbers in that list. */
function numberSources(facts: readonly NoteFact[]): { urls: string[]; numbered: { text: string; sources: number[] }[] } {
  const index = new Map<string, number>()
  const urls: string[] = []
  const numbered = facts.map((fact) => ({
    text: fact.text,
    sources: [
      ...new Set(
        fact.sources.map((url) => {
          const key = normalizeUrl(url)
          let n = index.get(key)
          if (n === undefined) {
            urls.push(url)
            n = urls.length
            index.set(key, n)
          }
          return n
        }),
      ),
    ],
  }))
  return { urls, numbered }
}

/**
 * Shrinks a large notebook for a small context: batches of `batch` facts, condensed at once
 * (under the run's limit), for up to three rounds while it stays above `above` and shrinks.
 * A batch whose reply cannot be read is kept as it was.
 */
export async function* condense(
  facts: readonly NoteFact[],
  ctx: StrategyContext,
  args: { above: number; batch: number },
): AsyncGenerator<StrategyEvent, NoteFact[]> {
  let current = [...facts]
  for (let round = 0; round < CONDENSE_ROUNDS && current.length > args.above; round++) {
    const batches: NoteFact[][] = []
    for (let i = 0; i < current.length; i += args.batch) batches.push(current.slice(i, i + args.batch))
    const condensed = [...batches]
    const merge = createMerge<StrategyEvent>()
    batches.forEach((batch, i) => {
      merge.add(
        (async function* () {
          const { urls, numbered } = numberSources(batch)
          const reply = yield* ctx.complete('extractor', {
            system: condenserSystem,
            prompt: condenserPrompt({ question: ctx.question, facts: numbered }),
            json: condenseSchema,
            temperature: 0,
          })
          const { facts: read } = parseExtraction(reply)
          if (!read.length) {
            yield ctx.warning(`could not read a condensed batch of ${batch.length} facts; keeping it as it was`, 'unparseable-output')
            return
          }
          condensed[i] = read.map((fact) => ({
            text: fact.text,
            sources: fact.sources.flatMap((ref) => {
              const check = checkSource(ref, urls, urls)
              return check.kind === 'dropped' ? [] : [check.url]
            }),
          }))
        })(),
      )
    })
    yield* merge
    const next = condensed.flat()
    if (next.length >= current.length) break
    current = next
  }
  return current
}

/**
 * Streams the answer to the ORIGINAL question from the notebook. The model cites the numbers
 * of the source list it sees; the answer renumbers them for the conversation.
 */
export async function* answerFromNotebook(
  facts: readonly NoteFact[],
  ctx: StrategyContext,
  args: { titles: ReadonlyMap<string, string>; bestEffort: boolean },
): AsyncGenerator<StrategyEvent> {
  const knowledge = ctx.input.knowledge?.trim() ?? ''
  if (!facts.length && !knowledge) {
    yield* nothingToAnswerFrom(ctx, { message: 'the notebook is empty; nothing to answer from', code: 'no-facts' }, 'No facts were found for this question.')
    return
  }
  const { urls, numbered } = numberSources(facts)
  const sources = urls.map((url, i) => ({ number: i + 1, url, ...(args.titles.has(url) ? { title: args.titles.get(url)! } : {}) }))
  // A source's evidence is the facts the finalizer saw under its number.
  const evidence = (n: number) => evidenceText(numbered.filter((fact) => fact.sources.includes(n)).map((fact) => fact.text))
  yield* citedAnswer(ctx, {
    from: {
      request: {
        system: finalizerSystem,
        prompt: finalizerPrompt({ question: ctx.question, facts: numbered, sources, knowledge, bestEffort: args.bestEffort }),
        temperature: 0,
      },
    },
    source: (n) => (sources[n - 1] ? { ...sources[n - 1]!, text: evidence(n) } : undefined),
    empty: { warning: 'the finalizer wrote nothing' },
  })
}
