/**
 * Cassettes: every search, page read and (optionally) model call recorded into a folder under a
 * stable key (the provider and its normalized request), then replayed from it with no network,
 * byte for byte, in the order the recording handed results over (cassette-order.ts), so a
 * strategy that works concurrently asks the recorded prompts again. The folder's entries and
 * their redaction are in cassette-files.ts.
 */
import type { AgentOptions } from '../agent.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { ProviderUsage } from '../core/contracts/provider-usage.js'
import type {
  FetchedPage,
  FetchOptions,
  FetchProvider,
  LLMChunk,
  LLMProvider,
  LLMRequest,
  SearchOptions,
  SearchProvider,
  SearchResult,
} from '../core/contracts/providers.js'
import { type Entry, entryFiles, type Kind, type Place, redactor, rethrow, storedError } from './cassette-files.js'
import { type OrderScope, orderScope, type StepKind, type Ticket, unordered } from './cassette-order.js'

/** How a cassette answers (see `CassetteOptions['mode']`). */
export type CassetteMode = NonNullable<CassetteOptions['mode']>

/** Options of `openCassette`. */
export interface CassetteOptions {
  /**
   * `replay`: answer only from the folder; a request it lacks is an error naming it (no provider
   * is called). `record`: call the providers for every request and (re)write each.
   * `record-missing`: replay what is there, and call and record what is not.
   * @defaultValue 'record-missing'
   */
  mode?: 'replay' | 'record' | 'record-missing'
  /** Record and replay model calls too (off: the models answer live, searches and reads still replay, in no set order). @defaultValue true */
  models?: boolean
  /** Strings that must never be written (API keys the providers were given): replaced by `[redacted]`. */
  secrets?: readonly (string | undefined)[]
}

/** A cassette folder, ready to wrap an agent's providers. */
export interface Cassette {
  readonly folder: string
  readonly mode: 'replay' | 'record' | 'record-missing'
  /**
   * The agent options with their model(s), search and fetch recorded or replayed through this
   * cassette: `createAgent(cassette.wrap(options))` makes a run reproducible. The order results
   * were handed over in is kept per call of `wrap` (and first request), so wrap once per run.
   */
  wrap<T extends AgentOptions>(options: T): T
}

/** Told why a request could not be replayed (replay mode), before the error is thrown. */
export type MissListener = (message: string) => void

const MISS_HINT = "record it: run again with the cassette in 'record-missing' mode (laconic eval --record-missing)"

const aborted = (signal: AbortSignal | undefined) => signal?.aborted === true

/** A call the recording's run stopped, asked to go on in a replay: the cassette has no more of it. */
function cutShort(): never {
  throw new LaconicError('the cassette recorded this call only up to where its run stopped it: this run did not stop it there', {
    code: 'cassette-miss',
    hint: "record it: run again with the cassette in 'record-missing' mode (laconic eval --record-missing)",
  })
}

/** What the wrappers of one cassette share. */
interface Deck {
  folder: string
  mode: CassetteMode
  scrub: (text: string) => string
  files: ReturnType<typeof entryFiles>
}

/** What one wrapping shares: the cassette, the scope whose order it keeps, and who is told of misses. */
interface Wrapping {
  deck: Deck
  scope: OrderScope
  listener: MissListener | undefined
}

/** The recorded entry to replay, or undefined when the provider must be called (and the result recorded). */
async function lookup(wrapping: Wrapping, kind: Kind, key: unknown, description: string) {
  const { deck, scope } = wrapping
  const place = deck.files.locate(kind, key)
  const ticket = scope.request(place.id, description)
  let entry = deck.mode === 'record' ? undefined : await scope.reading(deck.files.read(place.file))
  // A call the recording stopped replays only where the run stops it again at the same point: following the recorded order.
  if (entry?.cut && deck.mode === 'record-missing' && !(await scope.following())) entry = undefined
  if (!entry) {
    // Called live: the recorded order (if any) no longer says when results come.
    scope.diverge()
    if (deck.mode === 'replay') {
      ticket.close()
      const message = `the cassette in ${deck.folder} has no recorded ${description}`
      wrapping.listener?.(message)
      throw new LaconicError(message, { code: 'cassette-miss', hint: MISS_HINT })
    }
  }
  return { place, entry, ticket }
}

function searchThrough(wrapping: Wrapping, inner: SearchProvider): SearchProvider {
  return {
    ...(inner.searchCost !== undefined ? { searchCost: inner.searchCost } : {}),
    async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
      const key = { provider: 'search', query: query.trim().replace(/\s+/g, ' '), limit: opts.limit }
      const { place, entry, ticket } = await lookup(wrapping, 'search', key, `search "${key.query}"${key.limit ? ` (limit ${key.limit})` : ''}`)
      try {
        if (entry) return await replayed<SearchResult[]>(entry, ticket, opts.signal, opts.onUsage)
        const usage: ProviderUsage[] = []
        const onUsage = (reported: ProviderUsage) => {
          usage.push(reported)
          opts.onUsage?.(reported)
        }
        return await recorded(wrapping.deck, 'search', place, ticket, opts.signal, () => inner.search(query, { ...opts, onUsage }), usage)
      } finally {
        ticket.close()
      }
    },
  }
}

function fetchThrough(wrapping: Wrapping, inner: FetchProvider): FetchProvider {
  return {
    async fetch(url: string, opts: FetchOptions = {}): Promise<FetchedPage> {
      const key = { provider: 'fetch', url: url.trim() }
      const { place, entry, ticket } = await lookup(wrapping, 'fetch', key, `page ${wrapping.deck.scrub(key.url)}`)
      try {
        if (entry) return await replayed<FetchedPage>(entry, ticket, opts.signal)
        return await recorded(wrapping.deck, 'fetch', place, ticket, opts.signal, () => inner.fetch(url, opts))
      } finally {
        ticket.close()
      }
    },
  }
}

/** A replayed call its recorded run stopped: it ends with this run's abort, as it did then (or, not aborted, as cut short). */
function stopped(signal: AbortSignal | undefined): never {
  if (signal?.aborted) throw signal.reason
  cutShort()
}

/** A search or page read handed over from its entry, in its turn. */
async function replayed<T>(entry: Entry, ticket: Ticket, signal?: AbortSignal, onUsage?: (usage: ProviderUsage) => void): Promise<T> {
  let step = await ticket.turn('d')
  while (step === 'c') step = await ticket.turn('d')
  if (step === 'cut' || (step === undefined && entry.cut)) stopped(signal)
  for (const usage of entry.usage ?? []) onUsage?.(usage)
  if (entry.error) rethrow(entry.error)
  if (entry.cut) stopped(signal)
  return structuredClone(entry.response as T)
}

/** Calls the provider and writes what it answered, or how it failed, or that the run stopped it; its end is kept in the order. */
async function recorded<T>(
  deck: Deck,
  kind: Kind,
  place: Place,
  ticket: Ticket,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
  usage?: ProviderUsage[],
): Promise<T> {
  const spent = () => (usage?.length ? { usage } : {})
  let response: T
  try {
    response = await call()
  } catch (error) {
    if (aborted(signal)) await deck.files.writeCut(kind, place)
    else await deck.files.write(kind, place, { error: storedError(error, deck.scrub), ...spent() })
    await ticket.turn(aborted(signal) ? 'cut' : 'd')
    throw error
  }
  await deck.files.write(kind, place, { response, ...spent() })
  await ticket.turn('d')
  return response
}

function llmThrough(wrapping: Wrapping, inner: LLMProvider): LLMProvider {
  return {
    ...(inner.model !== undefined ? { model: inner.model } : {}),
    ...(inner.local !== undefined ? { local: inner.local } : {}),
    async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
      const { system, prompt, json, maxTokens, temperature, tools, toolChoice, turns } = req
      const key = { provider: 'llm', model: inner.model, request: { system, prompt, json, maxTokens, temperature, tools, toolChoice, turns } }
      const description = `model call to ${inner.model ?? 'the model'} (prompt starting "${prompt.slice(0, 80)}")`
      const { place, entry, ticket } = await lookup(wrapping, 'llm', key, description)
      try {
        if (entry) yield* replayedStream(entry, ticket, req.signal)
        else yield* recordedStream(wrapping.deck, inner, req, place, ticket)
      } finally {
        ticket.close()
      }
    },
  }
}

/** A model's recorded chunks, each in its turn, as many as its recorded run was handed, then its end (its failure, or where the run stopped it). */
async function* replayedStream(entry: Entry, ticket: Ticket, signal: AbortSignal | undefined): AsyncGenerator<LLMChunk> {
  let end: StepKind | undefined
  for (const chunk of entry.response as LLMChunk[]) {
    end = await ticket.turn('c')
    if (end === 'd' || end === 'cut') break
    yield structuredClone(chunk)
  }
  if (end !== 'd' && end !== 'cut') {
    do end = await ticket.turn('d')
    while (end === 'c')
  }
  if (end === 'cut' || (end === undefined && entry.cut)) stopped(signal)
  if (entry.error) rethrow(entry.error)
  if (entry.cut) stopped(signal)
}

/** The model's stream, passed on as it comes and written when it ends: whole, failed, or stopped by the run (its signal, or it stopped reading). */
async function* recordedStream(deck: Deck, inner: LLMProvider, req: LLMRequest, place: Place, ticket: Ticket): AsyncGenerator<LLMChunk> {
  const chunks: LLMChunk[] = []
  let end: StepKind | undefined
  try {
    for await (const chunk of inner.stream(req)) {
      chunks.push(chunk)
      await ticket.turn('c')
      yield chunk
    }
    end = 'd'
  } catch (error) {
    end = aborted(req.signal) ? 'cut' : 'd'
    if (end === 'cut') await deck.files.writeCut('llm', place, chunks)
    else await deck.files.write('llm', place, { response: chunks, error: storedError(error, deck.scrub) })
    await ticket.turn(end)
    throw error
  } finally {
    // The run stopped reading: what it read is what a replay hands over (the ticket's close keeps the cut end).
    if (end === undefined) await deck.files.writeCut('llm', place, chunks)
  }
  await deck.files.write('llm', place, { response: chunks })
  await ticket.turn('d')
}

/** The options with each provider through the cassette, sharing one order scope (named by `label`). */
function providersThrough<T extends AgentOptions>(deck: Deck, models: boolean, agentOptions: T, listener?: MissListener, label = '') {
  const scope = models
    ? orderScope({
        folder: deck.folder,
        label,
        follow: deck.mode !== 'record',
        write: deck.mode === 'replay' ? 'never' : deck.mode === 'record' ? 'always' : 'when-diverged',
        strict: deck.mode === 'replay',
        scrub: deck.scrub,
        ...(listener ? { onUnexpected: listener } : {}),
      })
    : unordered
  const wrapping: Wrapping = { deck, scope, listener }
  const wrapModel = (model: LLMProvider) => (models ? llmThrough(wrapping, model) : model)
  const byRole = agentOptions.models
    ? (Object.fromEntries(Object.entries(agentOptions.models).map(([role, model]) => [role, model ? wrapModel(model) : model])) as AgentOptions['models'])
    : undefined
  const options: T = {
    ...agentOptions,
    ...(agentOptions.llm ? { llm: wrapModel(agentOptions.llm) } : {}),
    ...(byRole ? { models: byRole } : {}),
    ...(agentOptions.search ? { search: searchThrough(wrapping, agentOptions.search) } : {}),
    ...(agentOptions.fetch ? { fetch: fetchThrough(wrapping, agentOptions.fetch) } : {}),
  }
  return { options, scope }
}

export function openCassette(folder: string, options: CassetteOptions = {}): Cassette {
  const mode = options.mode ?? 'record-missing'
  if (!['replay', 'record', 'record-missing'].includes(mode)) {
    throw new LaconicError(`unknown cassette mode "${String(mode)}"`, { code: 'config', hint: 'use replay, record or record-missing' })
  }
  const models = options.models ?? true
  const scrub = redactor(options.secrets ?? [])
  const deck: Deck = { folder, mode, scrub, files: entryFiles(folder, scrub) }
  const cassette: Cassette = { folder, mode, wrap: (agentOptions) => providersThrough(deck, models, agentOptions).options }
  INTERNALS.set(cassette, {
    providers: (agentOptions, listener, label) => providersThrough(deck, models, agentOptions, listener, label),
    model: (inner, listener) => (models ? llmThrough({ deck, scope: unordered, listener }, inner) : inner),
  })
  return cassette
}

/** What eval reaches past `wrap`: the same wrappers, with a listener told of each miss. */
const INTERNALS = new WeakMap<
  Cassette,
  {
    providers: <T extends AgentOptions>(options: T, listener?: MissListener, label?: string) => { options: T; scope: OrderScope }
    model: (inner: LLMProvider, listener: MissListener) => LLMProvider
  }
>()

/**
 * The agent options through the cassette for one run (an eval row, named by `label`), each miss
 * told to `listener`; `unmet()` names what its recording asked and this run has not, `written()`
 * resolves once the order it kept is in its file.
 */
export function cassetteRun<T extends AgentOptions>(
  cassette: Cassette,
  options: T,
  listener: MissListener,
  label: string,
): { options: T; unmet(): string[]; written(): Promise<void> } {
  const wrapped = INTERNALS.get(cassette)?.providers(options, listener, label)
  if (!wrapped) return { options: cassette.wrap(options), unmet: () => [], written: async () => {} }
  return { options: wrapped.options, unmet: () => wrapped.scope.unmet(), written: () => wrapped.scope.written() }
}

/** A model (the grader) through the cassette, in no set order. */
export function cassetteModel(cassette: Cassette, inner: LLMProvider, listener: MissListener): LLMProvider {
  return INTERNALS.get(cassette)?.model(inner, listener) ?? inner
}
