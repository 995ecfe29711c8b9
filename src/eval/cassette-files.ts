/**
 * A cassette's folder: one file per request, `<kind>/<sha256 of the key>.json`, written
 * atomically, so concurrent rows and a killed recording never leave half an entry. Secrets never
 * reach the folder: URL parameters that carry keys, bearer tokens and the caller's `secrets` are
 * redacted from keys and responses alike, and provider errors keep only their redacted message.
 */
import { createHash, randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LaconicError, ProviderError } from '../core/contracts/laconic-error.js'
import type { ProviderUsage } from '../core/contracts/provider-usage.js'

export type Kind = 'search' | 'fetch' | 'llm'

interface StoredError {
  message: string
  code: string
  provider?: string
  status?: number
}

export interface Entry {
  key: unknown
  /** The search results, the page, or the model's chunks (for a stream that failed, those before the failure). */
  response?: unknown
  error?: StoredError
  /** What a search spent on calls of its own (a knowledge base's embeddings), told again on replay. */
  usage?: ProviderUsage[]
  /** The run stopped the call (its signal, or it stopped reading) before it ended: `response` is what it had by then. */
  cut?: boolean
}

/** Where a request's entry lives: its file, its redacted key, and its id (`kind/hash`). */
export interface Place {
  file: string
  key: unknown
  id: string
}

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

/** Replaces what looks like a credential, and each of `secrets`, by `[redacted]`. */
export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const own = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4)
  return (text) => {
    let out = text.replace(SECRET_PARAM, '$1[redacted]').replace(BEARER, '$1 [redacted]').replace(KEY_SHAPES, '[redacted]')
    for (const secret of own) out = out.split(secret).join('[redacted]')
    return out
  }
}

/** Writes `text` to `file` through a temporary file, so a reader never sees half of it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${randomUUID()}.tmp`
  await writeFile(temporary, text)
  await rename(temporary, file)
}

/** The entries of the cassette in `folder`: where a request's entry lives, reading it (cached) and writing it. */
export function entryFiles(folder: string, scrub: (text: string) => string) {
  const loaded = new Map<string, Promise<Entry | undefined>>()
  /** The key and where its entry lives. Redacted first, so a request replays under the key it was recorded with. */
  const locate = (kind: Kind, key: unknown): Place => {
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
  const write = async (kind: Kind, place: Place, entry: Omit<Entry, 'key'>): Promise<void> => {
    const text = scrub(`${JSON.stringify({ key: place.key, ...entry }, null, 1)}\n`)
    await mkdir(join(folder, kind), { recursive: true })
    await writeAtomically(place.file, text)
    loaded.set(place.file, Promise.resolve(JSON.parse(text) as Entry))
  }
  /** Writes a call the run stopped, unless a whole one is there: a replay stops it at the same point, and another run may need all of it. */
  const writeCut = async (kind: Kind, place: Place, response?: unknown): Promise<void> => {
    const existing = await read(place.file).catch(() => undefined)
    if (existing && !existing.cut) return
    await write(kind, place, { ...(response !== undefined ? { response } : {}), cut: true })
  }
  return { locate, read, write, writeCut }
}

/** A provider's failure as it is kept: its redacted message, code, provider and status. */
export function storedError(error: unknown, scrub: (text: string) => string): StoredError {
  const known = error instanceof LaconicError ? error : undefined
  return {
    message: scrub(error instanceof Error ? error.message : String(error)),
    code: known?.code ?? 'error',
    ...(error instanceof ProviderError ? { provider: error.provider, ...(error.status !== undefined ? { status: error.status } : {}) } : {}),
  }
}

/** The recorded failure, thrown again. */
export function rethrow(stored: StoredError): never {
  throw new ProviderError(stored.message, {
    code: stored.code,
    provider: stored.provider ?? 'cassette',
    ...(stored.status !== undefined ? { status: stored.status } : {}),
  })
}
