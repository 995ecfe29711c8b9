/**
 * `memoryStore({ store, embed })`: long-term memory kept in a `VectorStore`. Each finished run is
 * one document (`memory:<runId>`) whose chunks are its findings, embedded one by one; recall
 * embeds the new question and gives back the nearest findings, each fact once.
 */
import type { EmbeddingProvider } from '../core/contracts/embeddings.js'
import { embeddingUsage, type UsageReporter } from '../core/contracts/provider-usage.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { MemoryStore, RecalledFinding, SessionFact } from '../core/contracts/long-term-memory.js'
import { normalizeText } from '../core/util/text.js'
import { normalizeUrl } from '../core/util/urls.js'
import type { Chunk, StoredDocument, VectorStore } from './vector-store.js'

/** What `memoryStore` keeps its records in, and how it embeds them. */
export interface MemoryStoreOptions {
  /**
   * Where the findings live. A store of its own, or one shared with a knowledge base: memory's
   * documents are named `memory:<runId>` and only those are recalled.
   */
  store: VectorStore
  /** Embeds findings when they are written and the question when they are recalled: one model for both. */
  embed: EmbeddingProvider
}

/** The prefix of every document memory writes, which sets its records apart in a shared store. */
const DOCUMENT_PREFIX = 'memory:'
/** Nearest chunks asked for per finding wanted: room for duplicates and a shared store's other chunks. */
const OVERFETCH = 4

const factKey = (text: string, url: string) => `${normalizeText(text)}\n${normalizeUrl(url)}`

/** Each fact once: the same text from the same source (URLs compared normalised) is one finding. */
function distinct(facts: readonly SessionFact[]): SessionFact[] {
  const seen = new Set<string>()
  return facts.filter((fact) => {
    const key = factKey(fact.text, fact.url)
    if (!fact.text.trim() || !fact.url.trim() || seen.has(key)) return false
    seen.add(key)
    return true
  })
}

async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** Embeds `texts`, checking the provider gave one vector per text; what it spent goes to `onUsage`. */
async function embedAll(
  embed: EmbeddingProvider,
  texts: readonly string[],
  { signal, onUsage }: { signal?: AbortSignal | undefined; onUsage?: UsageReporter | undefined },
): Promise<Float32Array[]> {
  const embedded = await embed.embed(texts, signal ? { signal } : {})
  onUsage?.(embeddingUsage(embed.model, embedded))
  const { vectors } = embedded
  if (vectors.length !== texts.length || vectors.some((vector) => !(vector instanceof Float32Array) || vector.length === 0)) {
    throw new LaconicError(`memoryStore: ${embed.model} gave ${vectors.length} vectors for ${texts.length} texts`, {
      code: 'bad-response',
      hint: 'an EmbeddingProvider returns one non-empty Float32Array per text, in order',
    })
  }
  return vectors
}

/**
 * Long-term memory in a vector store: pass it as `createAgent({ memory: { store: memoryStore({ store, embed }) } })`.
 * `remember` writes a run's findings (a run written again replaces its record); `recall` returns
 * the findings nearest the question by meaning, each fact once. A store built with another
 * embedding model is refused (a `config` error), since its distances mean nothing to this one.
 */
export function memoryStore(options: MemoryStoreOptions): MemoryStore {
  const { store, embed } = options ?? ({} as MemoryStoreOptions)
  if (typeof store?.putDocument !== 'function' || typeof store.searchByVector !== 'function') {
    throw new LaconicError('memoryStore needs `store`: a VectorStore', { code: 'config', hint: 'e.g. memoryStore({ store: memoryVectorStore(), embed })' })
  }
  if (typeof embed?.embed !== 'function' || typeof embed.model !== 'string') {
    throw new LaconicError('memoryStore needs `embed`: an EmbeddingProvider', {
      code: 'config',
      hint: 'one of the embedding providers of laconic-research/adapters',
    })
  }

  /** The store's model when it has vectors; another model than `embed`'s is refused. */
  const checkModel = async (): Promise<boolean> => {
    const built = await store.embedding()
    if (built && built.model !== embed.model) {
      throw new LaconicError(`memoryStore: the store holds vectors of ${built.model}, not of ${embed.model}`, {
        code: 'config',
        hint: `embed with ${built.model}, or keep this model's memory in another store`,
      })
    }
    return built !== undefined
  }

  return {
    async remember(entry, { signal, onUsage } = {}) {
      const facts = distinct(entry.facts)
      if (!facts.length) return
      await checkModel()
      const vectors = await embedAll(
        embed,
        facts.map((fact) => fact.text),
        { signal, onUsage },
      )
      signal?.throwIfAborted()
      const documentId = `${DOCUMENT_PREFIX}${entry.runId}`
      const chunks: Chunk[] = facts.map((fact, position) => ({
        id: `${documentId}#${position}`,
        documentId,
        url: fact.url,
        title: fact.title ?? '',
        // The question the run answered: what recall tells the new run each finding was for.
        headings: [entry.question],
        position,
        text: fact.text,
        vector: vectors[position] as Float32Array,
      }))
      const document: StoredDocument = {
        id: documentId,
        url: documentId,
        title: entry.question,
        hash: await contentHash(JSON.stringify([entry.question, facts])),
        chunks: chunks.length,
        indexedAt: entry.at,
      }
      await store.putDocument(document, chunks, { model: embed.model, dimensions: (vectors[0] as Float32Array).length })
    },

    async recall(question, { limit = 5, signal, onUsage } = {}) {
      if (limit <= 0 || !(await checkModel())) return []
      const [vector] = await embedAll(embed, [question], { signal, onUsage })
      signal?.throwIfAborted()
      const found: RecalledFinding[] = []
      const seen = new Set<string>()
      for (const { chunk } of await store.searchByVector(vector as Float32Array, limit * OVERFETCH)) {
        if (!chunk.documentId.startsWith(DOCUMENT_PREFIX)) continue
        const key = factKey(chunk.text, chunk.url)
        if (seen.has(key)) continue
        seen.add(key)
        found.push({ text: chunk.text, url: chunk.url, ...(chunk.title ? { title: chunk.title } : {}), question: chunk.headings[0] ?? '' })
        if (found.length >= limit) break
      }
      return found
    },
  }
}
