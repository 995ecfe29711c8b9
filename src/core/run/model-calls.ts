import { LaconicError } from '../contracts/laconic-error.js'
import type { StrategyEvent } from '../contracts/events.js'
import { type Generation, modelCall } from './model-call.js'
import { runLanguage, withLanguage } from './language.js'
import type { LLMProvider, LLMRequest } from '../contracts/providers.js'
import { limitFor, retryNotices, type RunShared } from './run-scope.js'
import { usageEvents } from './run-usage.js'
import type { ModelRole, Schedule, Step, StrategyContext } from '../contracts/strategy-types.js'
import { estimateTokens, type TextFilter } from '../util/text.js'
import { requestText } from '../contracts/tool-args.js'

type ModelRequest = Omit<LLMRequest, 'signal' | 'onRetry'>

interface CallOptions {
  /** The visible text streams as `answer-token`s. */
  answer?: boolean
  /** The visible text streams as the role's `reasoning-token`s: a step of the work, not yet the answer. */
  draft?: boolean
  filter?: TextFilter | undefined
  onText?: ((text: string) => void) | undefined
}

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

/**
 * Waits for a slot of `schedule` and holds it until the returned function is called, so a call
 * can stream its events while it holds the slot.
 */
function holdSlot(schedule: Schedule): Promise<() => void> {
  return new Promise((granted, refused) => {
    schedule(() => new Promise<void>((release) => granted(release))).catch(refused)
  })
}

/** A call that streamed `text` and never finished: its usage estimated (4 characters a token). */
function estimatedGeneration(req: ModelRequest, text: string): Generation {
  return { text, reasoning: '', usage: { inputTokens: estimateTokens(requestText(req)), outputTokens: estimateTokens(text) } }
}

/** A scope's model calls (`complete`, `streamAnswer`, `act`): each request gets `signal`. */
export function modelCalls(run: RunShared, signal: AbortSignal): Pick<StrategyContext, 'complete' | 'streamAnswer' | 'act'> {
  const { input, model, ledger } = run
  const limited = limitFor(run.limit.model, signal)
  const language = runLanguage(run.options.language, input.language)

  /** The `llm-call` and `cost` events of a finished call. */
  const accounting = (role: ModelRole, llm: LLMProvider, generation: Generation, started: number): StrategyEvent[] =>
    usageEvents(run, {
      kind: 'model',
      role,
      model: llm.model,
      local: llm.local,
      latencyMs: Date.now() - started,
      ...generation.usage,
      ...(generation.cost !== undefined ? { cost: generation.cost } : {}),
    })

  /** How much of the role's prompt is the same as its last one: the part a provider may cache. */
  const stablePrefix = (role: ModelRole, prompt: string): number | undefined => {
    const previous = run.lastPrompts.get(role)
    run.lastPrompts.set(role, prompt)
    return previous === undefined ? undefined : sharedLines(previous, prompt) || undefined
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
      cause: failure,
      hint: 'check the network and the search settings (provider, URL, API key), then try again',
    })
  }

  /**
   * Every model call of the run, through `modelCall`: reasoning is yielded as `reasoning-token`s
   * as it arrives, the visible text as `answer-token`s when `answer` is set; then `llm-call` and
   * `cost`. The call holds one slot of the run's limit from its request to its last byte.
   */
  async function* callModel(role: ModelRole, req: ModelRequest, { answer = false, draft = false, filter, onText }: CallOptions): Step<Generation> {
    const llm = model(role)
    if (answer) refuseAnswerFromNothing()
    const retries = retryNotices(`${role} model`)
    const release = await holdSlot(limited)
    const started = Date.now()
    // What the call streamed, in case it never finishes: a cut-off call is counted from it.
    let streamed = ''
    const open = { account: () => accounting(role, llm, estimatedGeneration(req, streamed), started) }
    let call: ReturnType<typeof modelCall> | undefined
    try {
      const cachePrefix = req.cachePrefix ?? stablePrefix(role, req.prompt)
      const system = withLanguage(req.system, language, role)
      call = modelCall(
        llm,
        { ...req, ...(system !== undefined && { system }), ...(cachePrefix !== undefined && { cachePrefix }), signal, onRetry: retries.onRetry },
        filter,
      )
      for (;;) {
        const step = await call.next()
        yield* retries.pending.splice(0)
        if (step.done) {
          run.openCalls.remove(open)
          yield* accounting(role, llm, step.value, started)
          return step.value
        }
        const piece = step.value
        if (!streamed) run.openCalls.add(open)
        streamed += piece.text
        if (piece.type === 'text') onText?.(piece.text)
        // A draft's text is not the answer yet: it streams as the role's reasoning.
        if (piece.type === 'reasoning' || draft) yield { type: 'reasoning-token', role, text: piece.text }
        else if (answer) yield { type: 'answer-token', text: piece.text }
      }
    } catch (error) {
      // Failed while the run goes on (a scope closed, a provider error): counted here. Once the
      // run is aborted its runtime no longer reads these events, and counts the call itself.
      if (!run.runSignal.aborted && run.openCalls.remove(open)) yield* open.account()
      throw error
    } finally {
      release()
      // Left early (the consumer broke out, a scope closed): the provider's generator is paused at
      // a token and would stay so, its connection open, unless it is returned (a finished one
      // returns at once). Its own cleanup failing changes nothing here.
      await (call as AsyncGenerator<unknown, unknown> | undefined)?.return(undefined).catch(() => undefined)
    }
  }

  return {
    async *complete(role, req, opts) {
      return (yield* callModel(role, req, { onText: opts?.onText })).text
    },
    async *streamAnswer(role, req, opts) {
      return (yield* callModel(role, req, { answer: true, filter: opts?.filter })).text
    },
    async *act(role, req, opts) {
      const generation = yield* callModel(role, req, { draft: true, filter: opts?.filter })
      return { text: generation.text, toolCalls: generation.toolCalls ?? [] }
    },
  }
}
