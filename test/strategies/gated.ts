/**
 * A streaming model whose reply pieces are sent only when the test lets them (a piece may wait
 * for a search to start), and a search that logs when each request starts and whether it was
 * aborted. Tests of pipelining order the two with promises: nothing depends on timing.
 */
import { memoryCheckpoints, type CheckpointStore, type LLMChunk, type LLMProvider, type LLMRequest, type SearchProvider } from '../../src/index.js'

/** A piece of a reply; `after` holds it back until it settles; `cut` ends the stream there with that error instead. */
export interface Piece {
  text: string
  after?: () => Promise<void>
  cut?: Error
}

export interface GatedRig {
  llm: LLMProvider
  search: SearchProvider
  /** `call N` / `piece N.i` / `end N` for the model (N counts calls from 0), `search Q` / `aborted Q` for searches. */
  log: string[]
  /** Settles once the search of `query` has started. */
  started(query: string): Promise<void>
  /** The searches started, in order. */
  searches(): string[]
  /** Searches started and neither settled nor aborted yet. */
  inFlight(): string[]
}

/** `replies(req, n)` gives the pieces of the n-th call (from 0); a plain string is one piece sent at once. */
export function gatedRig(replies: (req: LLMRequest, n: number) => readonly (string | Piece)[]): GatedRig {
  const log: string[] = []
  const waiting = new Map<string, { promise: Promise<void>; resolve: () => void }>()
  const open = new Set<string>()
  const gate = (query: string) => {
    let entry = waiting.get(query)
    if (!entry) {
      let resolve!: () => void
      const promise = new Promise<void>((r) => (resolve = r))
      entry = { promise, resolve }
      waiting.set(query, entry)
    }
    return entry
  }
  let calls = 0
  const llm: LLMProvider = {
    local: true,
    async *stream(req): AsyncGenerator<LLMChunk> {
      const n = calls++
      log.push(`call ${n}`)
      for (const [i, piece] of replies(req, n).entries()) {
        const { text, after, cut } = typeof piece === 'string' ? { text: piece, after: undefined, cut: undefined } : piece
        await after?.()
        if (cut) throw cut
        log.push(`piece ${n}.${i}`)
        yield { type: 'text', text }
      }
      log.push(`end ${n}`)
      yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
    },
  }
  const search: SearchProvider = {
    search(query, options) {
      log.push(`search ${query}`)
      open.add(query)
      gate(query).resolve()
      return new Promise((resolve, reject) => {
        options?.signal?.addEventListener('abort', () => {
          open.delete(query)
          log.push(`aborted ${query}`)
          reject(options.signal!.reason)
        })
        // Settles a turn later: the search is in flight while the reply streams on.
        setImmediate(() => {
          if (options?.signal?.aborted) return
          open.delete(query)
          resolve([{ title: `On ${query}`, url: `https://example.com/${encodeURIComponent(query)}`, snippet: `About ${query}.` }])
        })
      })
    },
  }
  return {
    llm,
    search,
    log,
    started: (query) => gate(query).promise,
    searches: () => log.filter((l) => l.startsWith('search ')).map((l) => l.slice('search '.length)),
    inFlight: () => [...open],
  }
}

/** A store that notes, at each running checkpoint, which searches were still in flight. */
export function watchedStore(rig: GatedRig): CheckpointStore & { inFlightAtSaves: string[][] } {
  const store = memoryCheckpoints()
  const inFlightAtSaves: string[][] = []
  return {
    ...store,
    inFlightAtSaves,
    async save(checkpoint) {
      if (checkpoint.status === 'running') inFlightAtSaves.push(rig.inFlight())
      await store.save(checkpoint)
    },
  }
}
