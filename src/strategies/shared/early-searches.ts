import type { StrategyEvent } from '../../core/contracts/events.js'
import type { ScopedContext, SearchOutcome, Step, StrategyContext } from '../../core/contracts/strategy-types.js'
import { normalizeText } from '../../core/util/text.js'
import type { QueryStream } from './query-stream.js'

/**
 * Pipelining: a planner's queries are searched while its reply still streams. `during` runs the
 * model call and starts a search for each query that closes in the reply; once the reply is
 * parsed, `keepOnly` cancels the searches the parse did not keep and `take` hands each kept one
 * to the strategy, which runs it on as if it had just started it.
 *
 * Each early search runs in its own scope, so cancelling one aborts its request alone. Its events
 * (`query` first) are yielded as they happen while the call runs; the rest come through `take`
 * or `keepOnly`, so every query still gets its one `result`.
 */
export interface EarlySearches {
  /**
   * Runs `call` (a model call given an `onText` to read its reply with) and the searches of the
   * queries `stream` sees closing in it; yields both's events as they come; returns the call's
   * value as soon as the call ends, while the searches go on.
   */
  during<T>(call: (onText: (text: string) => void) => Step<T>, stream: QueryStream, search?: SearchPlace): Step<T>
  /** The early search of `query`, to run on (its remaining events, then its outcome); undefined when none started. */
  take(query: string): Step<SearchOutcome> | undefined
  /** Cancels every early search not taken whose query is not among `queries`; yields their last events. */
  keepOnly(queries: readonly string[]): Step<void>
}

/** Where an early search sits in the run's query tree, as `runSearch` takes it. */
export interface SearchPlace {
  parentId?: string
  depth?: number
}

export interface EarlySearchOptions {
  /** Early searches per call at most: the parser's own limit, so none is started only to be cut. */
  limit: number
  /** The query as the strategy's parser keeps it, or undefined to skip it (unusable). */
  clean?: (query: string) => string | undefined
  /** Queries not to search (normalised, `normalizeText`): those the strategy searched before. */
  skip?: ReadonlySet<string>
  /** False: `during` only runs the call (a plan still to be approved is not searched early). @defaultValue true */
  enabled?: boolean
}

interface Early {
  query: string
  scope: ScopedContext
  iterator: Step<SearchOutcome>
  /** The next step of the search, already asked for. */
  pending: Promise<IteratorResult<StrategyEvent, SearchOutcome>>
}

export function earlySearches(ctx: StrategyContext, options: EarlySearchOptions): EarlySearches {
  const enabled = (options.enabled ?? true) && ctx.options.pipelining !== false
  /** Early searches not yet taken or cancelled, by normalised query. */
  const open = new Map<string, Early>()
  /** Every query searched early, so a query repeated in a later reply is not searched twice. */
  const seen = new Set<string>()

  const start = (raw: string, place: SearchPlace | undefined): Early | undefined => {
    const query = options.clean ? options.clean(raw) : raw.trim()
    if (!query) return undefined
    const key = normalizeText(query)
    if (seen.has(key) || options.skip?.has(key)) return undefined
    seen.add(key)
    const scope = ctx.scope()
    const iterator = scope.runSearch(query, place)
    const early: Early = { query, scope, iterator, pending: settledLater(iterator.next()) }
    open.set(key, early)
    return early
  }

  /** Runs an early search to its end, yielding its events; a cancelled one ends quietly. */
  async function* runOn(early: Early, cancelled: boolean): Step<SearchOutcome | undefined> {
    try {
      for (let step = await early.pending; ; step = await early.iterator.next()) {
        if (step.done) return step.value
        yield step.value
      }
    } catch (error) {
      if (cancelled && early.scope.signal.aborted && !ctx.signal.aborted) return undefined
      throw error
    } finally {
      early.scope.close()
    }
  }

  async function* cancel(entries: readonly Early[]): Step<void> {
    for (const early of entries) {
      open.delete(normalizeText(early.query))
      early.scope.abort(new DOMException(`the planner did not keep the query "${early.query}"`, 'AbortError'))
      yield* runOn(early, true)
    }
  }

  return {
    async *during(call, stream, place) {
      if (!enabled) return yield* call(() => undefined)
      let started = 0
      const mine: Early[] = []
      // Which sources have a step ready, in arrival order: the call (`null`) or a search.
      const ready: (Early | null)[] = []
      let wake: (() => void) | undefined
      const arrive = (source: Early | null) => {
        ready.push(source)
        wake?.()
        wake = undefined
      }
      const watch = (early: Early) =>
        void early.pending.then(
          () => arrive(early),
          () => arrive(early),
        )

      const onText = (text: string) => {
        for (const raw of stream.push(text)) {
          if (started >= options.limit) return
          const early = start(raw, place)
          if (!early) continue
          started++
          mine.push(early)
          watch(early)
        }
      }
      const main = call(onText)
      let mainStep = settledLater(main.next())
      mainStep.then(
        () => arrive(null),
        () => arrive(null),
      )
      try {
        for (;;) {
          if (!ready.length) await new Promise<void>((resolve) => (wake = resolve))
          const source = ready.shift()!
          if (source === null) {
            const step = await mainStep
            if (step.done) return step.value
            yield step.value
            mainStep = settledLater(main.next())
            mainStep.then(
              () => arrive(null),
              () => arrive(null),
            )
            continue
          }
          // A search's step is yielded here while the call runs; a finished or failed one waits in `pending` for take/keepOnly.
          const step = await source.pending.catch(() => undefined)
          if (!step || step.done || !open.has(normalizeText(source.query))) continue
          yield step.value
          source.pending = settledLater(source.iterator.next())
          watch(source)
        }
      } catch (error) {
        // The call failed: its searches have no reply to stand on. Cancelled, their queries still get a result.
        yield* cancel(mine.filter((early) => open.get(normalizeText(early.query)) === early))
        throw error
      } finally {
        // Left at a yield (the consumer stopped reading): the call, paused there or one step on,
        // is returned so its stream closes (done already, this does nothing).
        await main.return(undefined as never).catch(() => undefined)
      }
    },
    take(query) {
      const key = normalizeText(query)
      const early = open.get(key)
      if (!early) return undefined
      open.delete(key)
      return runOn(early, false) as Step<SearchOutcome>
    },
    keepOnly(queries) {
      const kept = new Set(queries.map(normalizeText))
      return cancel([...open].filter(([key]) => !kept.has(key)).map(([, early]) => early))
    },
  }
}

/** The promise, marked as handled: a step that fails is read later (or never, when cancelled). */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}

/**
 * Whether the run's first plan is still to be put to the caller (`review.plan` on a fresh run):
 * such a plan is not searched early, since the caller may change it or stop the run.
 */
export function planAwaitsReview(ctx: StrategyContext): boolean {
  return !ctx.resumed && ctx.input.review?.plan === true
}
