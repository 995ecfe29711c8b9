/**
 * Cassettes: every search, page read and (optionally) model call recorded into a folder under a
 * stable key (the provider and its normalized request), then replayed from it with no network,
 * byte for byte. One file per request, `<kind>/<sha256 of the key>.json`, written atomically, so
 * concurrent rows and a killed recording never leave half an entry. Secrets never reach the
 * folder: URL parameters that carry keys, bearer tokens and the caller's `secrets` are redacted
 * from keys and responses alike, and provider errors keep only their redacted message.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AgentOptions } from '../agent.js'
import { LaconicError, ProviderError } from '../core/contracts/laconic-error.js'
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

/**
 * `replay`: answer only from the folder; a request it lacks is an error naming it (no provider
 * is called). `record`: call the providers for every request and (re)write each. `record-missing`:
 * replay what is there, and call and record what is not.
 */
export type CassetteMode = 'replay' | 'record' | 'record-missing'

/** Options of `openCassette`. */
export interface CassetteOptions {
  /** @defaultValue 'record-missing' */
  mode?: CassetteMode
  /** Record and replay model calls too (off: the models answer live, searches and reads still replay). @defaultValue true */
  models?: boolean
  /** Strings that must never be written (API keys the providers were given): replaced by `[redacted]`. */
  secrets?: readonly (string | undefined)[]
}

/** A cassette folder, ready to wrap an agent's providers. */
export interface Cassette {
  readonly folder: string
  readonly mode: CassetteMode
  /**
   * The agent options with their model(s), search and fetch recorded or replayed through this
   * cassette: `createAgent(cassette.wrap(options))` makes a run reproducible.
   */
  wrap<T extends AgentOptions>(options: T): T
}

type Kind = 'search' | 'fetch' | 'llm'

interface StoredError {
  message: string
  code: string
  provider?: string
  status?: number
}

interface Entry {
  key: unknown
  /** The search results, the page, or the model's chunks (for a stream that failed, those before the failure). */
  response?: unknown
  error?: StoredError
  /** What a search spent on calls of its own (a knowledge base's embeddings), told again on replay. */
  usage?: ProviderUsage[]
}

/** Told about each request the cassette could not replay (replay mode), before the error is thrown. */
export type MissListener = (description: string) => void

const SECRET_PARAM = /([?&#](?:[\w.-]*(?:key|token|secret|password|passwd|signature|sig|auth|credential)[\w.-]*)=)[^&#\s"]*/gi
const BEARER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g
const KEY_SHAPES = /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}|\bBSA[A-Za-z0-9_-]{20,}|\btvly-[A-Za-z0-9_-]{12,}/g

/** Canonical JSON: object keys sorted, `undefined` left out, so equal requests give equal keys. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonical(item))).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined && typeof item !== 'function')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function openCassette(folder: string, options: CassetteOptions = {}): Cassette {
  const mode = options.mode ?? 'record-missing'
  if (!['replay', 'record', 'record-missing'].includes(mode)) {
    throw new LaconicError(`unknown cassette mode "${String(mode)}"`, { code: 'config', hint: 'use replay, record or record-missing' })
  }
  const models = options.models ?? true
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
  const loaded = new Map<string, Promise<Entry | undefined>>()

  const scrub = (text: string): string => {
    let out = text.replace(SECRET_PARAM, '$1[redacted]').replace(BEARER, '$1 [redacted]').replace(KEY_SHAPES, '[redacted]')
    for (const secret of secrets) out = out.split(secret).join('[redacted]')
    return out
  }
  /** The key and where its entry lives. Redacted first, so a request replays under the key it was recorded with. */
  const locate = (kind: Kind, key: unknown) => {
    const text = scrub(canonical(key))
    const hash = createHash('sha256').update(text).digest('hex')
    return { file: join(folder, kind, `${hash}.json`), key: JSON.parse(text) as unknown, id: `${kind}/${hash}` }
  }
  const read = (file: string): Promise<Entry | undefined> => {
    let entry = loaded.get(file)
    if (!entry) {
      entry = readFile(file, 'utf8').then(
        (text) => JSON.parse(text) as Entry,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') {
            // A miss is not remembered: another recorder may fill it.
            loaded.delete(file)
            return undefined
          }
          throw new LaconicError(`cassette entry ${file} is unreadable: ${error.message}`, { code: 'config' })
        },
      )
      loaded.set(file, entry)
    }
    return entry
  }
  const write = async (kind: Kind, file: string, entry: Entry): Promise<void> => {
    const text = scrub(`${JSON.stringify(entry, null, 1)}\n`)
    await mkdir(join(folder, kind), { recursive: true })
    const temporary = `${file}.${randomUUID()}.tmp`
    await writeFile(temporary, text)
    await rename(temporary, file)
    loaded.set(file, Promise.resolve(JSON.parse(text) as Entry))
  }
  const storedError = (error: unknown): StoredError => {
    const known = error instanceof LaconicError ? error : undefined
    return {
      message: scrub(error instanceof Error ? error.message : String(error)),
      code: known?.code ?? 'error',
      ...(error instanceof ProviderError ? { provider: error.provider, ...(error.status !== undefined ? { status: error.status } : {}) } : {}),
    }
  }
  const rethrow = (stored: StoredError): never => {
    throw new ProviderError(stored.message, {
      code: stored.code,
      provider: stored.provider ?? 'cassette',
      ...(stored.status !== undefined ? { status: stored.status } : {}),
    })
  }
  const missing = (description: string, listener: MissListener | undefined): never => {
    listener?.(description)
    throw new LaconicError(`the cassette in ${folder} has no recorded ${description}`, {
      code: 'cassette-miss',
      hint: "record it: run again with the cassette in 'record-missing' mode (laconic eval --record-missing)",
    })
  }
  /** The recorded entry to replay, or undefined when the provider must be called (and the result recorded). */
  const lookup = async (kind: Kind, key: unknown, description: () => string, listener: MissListener | undefined) => {
    const place = locate(kind, key)
    const entry = mode === 'record' ? undefined : await read(place.file)
    if (!entry && mode === 'replay') missing(description(), listener)
    return { place, entry }
  }
  const aborted = (signal: AbortSignal | undefined) => signal?.aborted === true

  function search(inner: SearchProvider, listener?: MissListener): SearchProvider {
    return {
      ...(inner.searchCost !== undefined ? { searchCost: inner.searchCost } : {}),
      async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
        const key = { provider: 'search', query: query.trim().replace(/\s+/g, ' '), limit: opts.limit }
        const { place, entry } = await lookup('search', key, () => `search "${key.query}"${key.limit ? ` (limit ${key.limit})` : ''}`, listener)
        if (entry) {
          for (const usage of entry.usage ?? []) opts.onUsage?.(usage)
          if (entry.error) rethrow(entry.error)
          return structuredClone(entry.response as SearchResult[])
        }
        const usage: ProviderUsage[] = []
        const onUsage = (reported: ProviderUsage) => {
          usage.push(reported)
          opts.onUsage?.(reported)
        }
        try {
          const results = await inner.search(query, { ...opts, onUsage })
          await write('search', place.file, { key: place.key, response: results, ...(usage.length ? { usage } : {}) })
          return results
        } catch (error) {
          if (!aborted(opts.signal)) await write('search', place.file, { key: place.key, error: storedError(error), ...(usage.length ? { usage } : {}) })
          throw error
        }
      },
    }
  }

  function fetch(inner: FetchProvider, listener?: MissListener): FetchProvider {
    return {
      async fetch(url: string, opts: FetchOptions = {}): Promise<FetchedPage> {
        const key = { provider: 'fetch', url: url.trim() }
        const { place, entry } = await lookup('fetch', key, () => `page ${scrub(key.url)}`, listener)
        if (entry) {
          if (entry.error) rethrow(entry.error)
          return structuredClone(entry.response as FetchedPage)
        }
        try {
          const page = await inner.fetch(url, opts)
          await write('fetch', place.file, { key: place.key, response: page })
          return page
        } catch (error) {
          if (!aborted(opts.signal)) await write('fetch', place.file, { key: place.key, error: storedError(error) })
          throw error
        }
      },
    }
  }

  function llm(inner: LLMProvider, listener?: MissListener): LLMProvider {
    if (!models) return inner
    return {
      ...(inner.model !== undefined ? { model: inner.model } : {}),
      ...(inner.local !== undefined ? { local: inner.local } : {}),
      async *stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
        const { system, prompt, json, maxTokens, temperature, tools, toolChoice, turns } = req
        const key = { provider: 'llm', model: inner.model, request: { system, prompt, json, maxTokens, temperature, tools, toolChoice, turns } }
        const { place, entry } = await lookup(
          'llm',
          key,
          () => `model call to ${inner.model ?? 'the model'} (prompt starting "${prompt.slice(0, 80)}")`,
          listener,
        )
        if (entry) {
          for (const chunk of entry.response as LLMChunk[]) yield structuredClone(chunk)
          if (entry.error) rethrow(entry.error)
          return
        }
        const chunks: LLMChunk[] = []
        try {
          for await (const chunk of inner.stream(req)) {
            chunks.push(chunk)
            yield chunk
          }
        } catch (error) {
          if (!aborted(req.signal)) await write('llm', place.file, { key: place.key, response: chunks, error: storedError(error) })
          throw error
        }
        await write('llm', place.file, { key: place.key, response: chunks })
      },
    }
  }

  const cassette: Cassette = { folder, mode, wrap: (agentOptions) => providers(agentOptions) }
  function providers<T extends AgentOptions>(agentOptions: T, listener?: MissListener): T {
    const models = agentOptions.models
      ? (Object.fromEntries(Object.entries(agentOptions.models).map(([role, model]) => [role, model ? llm(model, listener) : model])) as AgentOptions['models'])
      : undefined
    return {
      ...agentOptions,
      ...(agentOptions.llm ? { llm: llm(agentOptions.llm, listener) } : {}),
      ...(models ? { models } : {}),
      ...(agentOptions.search ? { search: search(agentOptions.search, listener) } : {}),
      ...(agentOptions.fetch ? { fetch: fetch(agentOptions.fetch, listener) } : {}),
    }
  }
  INTERNALS.set(cassette, { providers, llm })
  return cassette
}

/** What eval reaches past `wrap`: the same wrappers, with a listener told of each miss. */
const INTERNALS = new WeakMap<
  Cassette,
  { providers: <T extends AgentOptions>(options: T, listener?: MissListener) => T; llm: (inner: LLMProvider, listener?: MissListener) => LLMProvider }
>()

/** The agent options through the cassette, each miss told to `listener` (eval attributes misses to the row that made them). */
export function cassetteProviders<T extends AgentOptions>(cassette: Cassette, options: T, listener: MissListener): T {
  return INTERNALS.get(cassette)?.providers(options, listener) ?? cassette.wrap(options)
}

/** A model (the grader) through the cassette. */
export function cassetteModel(cassette: Cassette, inner: LLMProvider, listener: MissListener): LLMProvider {
  return INTERNALS.get(cassette)?.llm(inner, listener) ?? inner
}
