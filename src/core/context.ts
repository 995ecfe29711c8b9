import { onAbort } from './abort-listener.js'
import { callDollars, costDelta } from './cost.js'
import { describeError, isAbortError, LaconicError } from './errors.js'
import type { ErrorInfo, StrategyEvent } from './events.js'
import type { LLMProvider, LLMRequest, RetryInfo } from './providers.js'
import { toJson } from './checkpoint.js'
import { createIdSource, type IdSource } from './ids.js'
import { type Generation, modelCall } from './model-call.js'
import { reviewPlan } from './plan-review.js'
import type { SharedOptions, ModelRole, ResearchOptions, Resumption, Schedule, Step, StrategyContext } from './strategy.js'
import type { TextFilter } from './text.js'

/** Which role a role falls back to when the agent sets no model for it. */
const ROLE_FALLBACK: Readonly<Record<string, ModelRole>> = {
  finalizer: 'synthesizer',
  extractor: 'synthesizer',
  neighbor: 'extractor',
}

const runNow: Schedule = (work) => work()

/**
 * Waits for a slot of `schedule` and holds it until the returned function is called, so a call
 * can stream its events while it holds the slot.
 */
/**
 * The characters `a` and `b` share from their start, cut back to the end of the last whole line
 * they share: the boundary then stays put when the changing parts happen to begin alike.
 */
function sharedLines(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  let i = 0
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++
  const lineEnds = (s: string) => i === s.length || s[i] === '\n'
  return lineEnds(a) && lineEnds(b) ? i : a.lastIndexOf('\n', i - 1) + 1
}

function holdSlot(schedule: Schedule): Promise<() => void> {
  if (schedule === runNow) return Promise.resolve(() => undefined)
  return new Promise((granted, refused) => {
    schedule(() => new Promise<void>((release) => granted(release))).catch(refused)
  })
}

type ModelRequest = Omit<LLMRequest, 'signal' | 'onRetry'>

export interface ContextInit {
  runId: string
  question: string
  signal: AbortSignal
  options: Readonly<SharedOptions>
  input: Readonly<ResearchOptions>
  /** The run's ids (a resumed run's counters go on from its checkpoint). @defaultValue counters from 1 */
  ids?: IdSource
  /** What a resumed run restores. */
  resumed?: Resumption
}

/** What every scope of one run shares: its identity, options, model lookup and id counters. */
interface RunShared {
  runId: string
  question: string
  options: Readonly<SharedOptions>
  input: Readonly<ResearchOptions>
  model(role: ModelRole): LLMProvider
  newId(prefix: string): string
  ids: IdSource
  resumed: Resumption | undefined
  /** The plan is put to the caller once per run, and never after a resume: true once that is settled. */
  planReviewed: boolean
  ledger: Ledger
  /** Each role's last prompt, to tell the role's next call how much of it stays the same. */
  lastPrompts: Map<ModelRole, string>
}

/** What the run's scopes spent and how its searches went, for the budget and the no-search check. */
interface Ledger {
  /** Known dollars spent (models and searches). */
  dollars: number
  /** The most one model call has cost so far: the reserve kept for the final answer is twice it. */
  priciestCall: number
  searchesOk: number
  firstSearchFailure: ErrorInfo | undefined
}

export function createContext({ signal, ids = createIdSource(), resumed, ...init }: ContextInit): StrategyContext {
  const { options } = init
  const model = (role: ModelRole): LLMProvider => {
    const seen = new Set<string>()
    for (let r: ModelRole | undefined = role; r !== undefined && !seen.has(r); r = ROLE_FALLBACK[r]) {
      seen.add(r)
      const found = options.models?.[r]
      if (found) return found
    }
    if (options.llm) return options.llm
    throw new LaconicError(`no model for the \`${role}\` role`, {
      code: 'config',
      hint: `pass \`llm\` (used for every role) or \`models.${role}\` to createAgent`,
    })
  }
  // A resumed run's budget counts what was spent before the checkpoint; its searches then are
  // taken to have worked (the ledger is not saved, and "every search failed" must not end a
  // run that had results before it was resumed).
  const ledger: Ledger = { dollars: resumed?.cost.total ?? 0, priciestCall: 0, searchesOk: resumed?.cost.searches ?? 0, firstSearchFailure: undefined }
  return scopedContext({ ...init, model, newId: ids.newId, ids, resumed, planReviewed: resumed !== undefined, ledger, lastPrompts: new Map() }, signal)
}

/**
 * The context of one scope of a run: every request it makes gets `signal`. `scope()` opens a
 * child with its own signal (aborted with this one, or on its own) and the run's ids and cost.
 */
function scopedContext(run: RunShared, signal: AbortSignal): StrategyContext {
  const { runId, question, options, input, model, newId, ledger } = run
  const searchProvider = options.search
  const searchDollars = options.searchCost ?? searchProvider?.searchCost ?? 0

  /** Retries happen inside a provider call; their notices are emitted once the call returns. */
  const retryNotices = (label: string) => {
    const pending: StrategyEvent[] = []
    const onRetry = (info: RetryInfo) => {
      pending.push({
        type: 'warning',
        code: 'retry',
        message: `${label}: attempt ${info.attempt} failed (${info.reason}); retrying in ${Math.round(info.delayMs)} ms`,
      })
    }
    return { pending, onRetry }
  }

  /** The `llm-call` and `cost` events of a finished call. */
  function* accounting(role: ModelRole, llm: LLMProvider, generation: Generation, started: number): Generator<StrategyEvent> {
    const { inputTokens, outputTokens } = generation.usage
    yield {
      type: 'llm-call',
      role,
      ...(llm.model !== undefined ? { model: llm.model } : {}),
      latencyMs: Date.now() - started,
      inputTokens,
      outputTokens,
    }
    const reported = generation.cost !== undefined ? { cost: generation.cost } : {}
    const dollars = callDollars({ ...generation.usage, ...reported }, llm.model, { pricing: options.pricing, local: llm.local })
    ledger.dollars += dollars ?? 0
    ledger.priciestCall = Math.max(ledger.priciestCall, dollars ?? 0)
    yield {
      type: 'cost',
      delta: costDelta({ llm: dollars ?? 0, inputTokens, outputTokens, llmCalls: 1, unpricedCalls: dollars === null ? 1 : 0 }),
    }
  }

  /**
   * Every model call of the run, through `modelCall`: reasoning is yielded as `reasoning-token`s
   * as it arrives, the visible text as `answer-token`s when `answer` is set; then `llm-call` and
   * `cost`. Under a limiter the call holds one slot from its request to its last byte.
   */
  const stablePrefix = (role: ModelRole, prompt: string): number | undefined => {
    const previous = run.lastPrompts.get(role)
    run.lastPrompts.set(role, prompt)
    return previous === undefined ? undefined : sharedLines(previous, prompt) || undefined
  }

  async function* callModel(
    role: ModelRole,
    req: ModelRequest,
    {
      schedule = runNow,
      answer = false,
      draft = false,
      filter,
      onText,
    }: { schedule?: Schedule | undefined; answer?: boolean; draft?: boolean; filter?: TextFilter | undefined; onText?: ((text: string) => void) | undefined },
  ): Step<Generation> {
    const llm = model(role)
    if (answer) refuseAnswerFromNothing()
    const retries = retryNotices(`${role} model`)
    const release = await holdSlot(schedule)
    try {
      const started = Date.now()
      const cachePrefix = req.cachePrefix ?? stablePrefix(role, req.prompt)
      const call = modelCall(llm, { ...req, ...(cachePrefix !== undefined && { cachePrefix }), signal, onRetry: retries.onRetry }, filter)
      for (;;) {
        const step = await call.next()
        yield* retries.pending.splice(0)
        if (step.done) {
          yield* accounting(role, llm, step.value, started)
          return step.value
        }
        const piece = step.value
        if (piece.type === 'text') onText?.(piece.text)
        // A draft's text is not the answer yet: it streams as the role's reasoning.
        if (piece.type === 'reasoning' || draft) yield { type: 'reasoning-token', role, text: piece.text }
        else if (answer) yield { type: 'answer-token', text: piece.text }
      }
    } finally {
      release()
    }
  }

  /**
   * An answer when every search failed and nothing was known before would be the model's guess
   * passed off as research: the run ends with an error saying why instead. Searches that worked
   * but found nothing are an honest "nothing found", not this.
   */
  const refuseAnswerFromNothing = (): void => {
    const failure = ledger.firstSearchFailure
    if (!failure || ledger.searchesOk > 0) return
    if (input.knowledge?.trim() || (input.priorAnswers?.length ?? 0) > 0) return
    throw new LaconicError(`every search failed, so there is nothing to answer from; the first: ${failure.message}`, {
      code: 'search',
      hint: 'check the network and the search settings (provider, URL, API key), then try again',
    })
  }

  /** A failed search: remembered for the no-search check. */
  const searchFailed = (info: ErrorInfo) => {
    ledger.firstSearchFailure ??= info
    return info
  }

  const rethrowIfAborted = (error: unknown): void => {
    if (signal.aborted || isAbortError(error)) throw error
  }

  return {
    runId,
    question,
    signal,
    options,
    input,
    search: searchProvider,
    fetch: options.fetch,
    model,
    newId,
    scope() {
      const controller = new AbortController()
      const onParentAbort = () => controller.abort(signal.reason)
      if (signal.aborted) onParentAbort()
      const detach = onAbort(signal, onParentAbort)
      onAbort(controller.signal, detach)
      return Object.assign(scopedContext(run, controller.signal), {
        abort: (reason?: unknown) => controller.abort(reason ?? new DOMException('the scope was closed', 'AbortError')),
        close: detach,
      })
    },
    warning(message, code) {
      return { type: 'warning', message, code }
    },
    budgetExhausted() {
      const usd = options.budget?.usd
      if (usd === undefined) return false
      // Keep back twice the priciest call so far (at least a tenth of the budget) for the answer.
      const reserve = Math.max(2 * ledger.priciestCall, usd / 10)
      return ledger.dollars + reserve >= usd
    },
    resumed: run.resumed,
    async *checkpoint(state) {
      let saved!: () => void
      const done = new Promise<void>((resolve) => (saved = resolve))
      yield { type: 'checkpoint', state: toJson(state), ids: run.ids.counters(), saved }
      await done
    },
    reviewPlan(plan) {
      const review = !run.planReviewed
      run.planReviewed = true
      return reviewPlan(plan, { input, signal, review })
    },
    async *complete(role, req, opts) {
      return (yield* callModel(role, req, { schedule: opts?.schedule, onText: opts?.onText })).text
    },
    async *streamAnswer(role, req, opts) {
      return (yield* callModel(role, req, { answer: true, filter: opts?.filter })).text
    },
    async *act(role, req, opts) {
      const generation = yield* callModel(role, req, { draft: true, filter: opts?.filter })
      return { text: generation.text, toolCalls: generation.toolCalls ?? [] }
    },
    async *runSearch(query, opts = {}) {
      const queryId = newId('q')
      const retries = retryNotices(`search "${query}"`)
      const limit = opts.limit ?? options.searchLimit ?? 5
      // Start the search before announcing it, so it is in flight while consumers see `query`.
      const pending = searchProvider ? (opts.schedule ?? runNow)(() => searchProvider.search(query, { signal, limit, onRetry: retries.onRetry })) : undefined
      pending?.catch(() => undefined)
      yield {
        type: 'query',
        queryId,
        query,
        ...(opts.parentId !== undefined ? { parentId: opts.parentId } : {}),
        ...(opts.depth !== undefined ? { depth: opts.depth } : {}),
      }
      if (!pending) {
        const error = searchFailed({ message: 'no search provider configured: pass `search` to createAgent', code: 'config' })
        yield { type: 'warning', ...error, queryId }
        yield { type: 'result', queryId, results: [], error }
        return { queryId, results: [], error }
      }
      try {
        const served = await pending
        yield* retries.pending.splice(0)
        const cached = served.length > 0 && served.every((result) => result.cached === true)
        // The mark has done its job: strategies and consumers see plain results, the event says `cached`.
        const results = served.map(({ cached: _mark, ...result }) => result)
        ledger.searchesOk++
        ledger.dollars += cached ? 0 : searchDollars
        yield { type: 'result', queryId, results: results.map((r) => ({ ...r })), ...(cached ? { cached } : {}) }
        yield { type: 'cost', delta: costDelta({ search: cached ? 0 : searchDollars, searches: cached ? 0 : 1 }) }
        if (results.length === 0) yield { type: 'warning', code: 'search-empty', message: `no results for "${query}"`, queryId }
        return { queryId, results }
      } catch (error) {
        if (signal.aborted || isAbortError(error)) {
          // Cut short (an early stop, or the run's end): the query still gets its one result,
          // so consumers can close what they opened for it.
          yield { type: 'result', queryId, results: [], error: { code: 'aborted', message: `search "${query}" was aborted` } }
          throw error
        }
        yield* retries.pending.splice(0)
        const described = describeError(error)
        const info = searchFailed({
          code: described.code === 'error' ? 'search-failed' : described.code,
          message: `search "${query}" failed: ${described.message}`,
        })
        ledger.dollars += searchDollars
        yield { type: 'warning', ...info, queryId }
        yield { type: 'result', queryId, results: [], error: info }
        yield { type: 'cost', delta: costDelta({ search: searchDollars, searches: 1 }) }
        return { queryId, results: [], error: info }
      }
    },
    async *readPage(url, opts = {}) {
      const fetcher = options.fetch
      if (!fetcher) return undefined
      const retries = retryNotices(`fetch ${url}`)
      try {
        const page = await (opts.schedule ?? runNow)(() => fetcher.fetch(url, { signal, onRetry: retries.onRetry }))
        yield* retries.pending.splice(0)
        yield {
          type: 'page',
          url: page.url || url,
          chars: page.text.length,
          ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          ...(page.title ? { title: page.title } : {}),
          ...(page.kind ? { kind: page.kind } : {}),
          ...(page.pages !== undefined ? { pages: page.pages } : {}),
        }
        yield { type: 'cost', delta: costDelta({ fetches: page.cached === true ? 0 : 1 }) }
        for (const warning of page.warnings ?? []) {
          yield {
            type: 'warning',
            code: warning.code,
            message: `${page.url || url}: ${warning.message}`,
            ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          }
        }
        if (page.fallback) {
          yield {
            type: 'warning',
            code: 'extraction-fallback',
            message: `${page.url || url} was read by a fallback: ${page.fallback}`,
            ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
          }
        }
        return page
      } catch (error) {
        rethrowIfAborted(error)
        yield* retries.pending.splice(0)
        const info = describeError(error)
        yield {
          type: 'warning',
          code: info.code === 'error' ? 'fetch-failed' : info.code,
          message: `reading ${url} failed: ${info.message}`,
          ...(opts.queryId !== undefined ? { queryId: opts.queryId } : {}),
        }
        // Counted like a failed search: the attempt was made (and may have been paid for).
        yield { type: 'cost', delta: costDelta({ fetches: 1 }) }
        return undefined
      }
    },
  }
}
