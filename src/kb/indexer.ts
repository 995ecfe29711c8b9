/**
 * `kb.index(sources)`: every source's documents read, cut and embedded into the store, as far as
 * they changed. A document whose content hash is stored already costs a read and a hash, nothing
 * more; a changed one is re-embedded and replaced whole; a file gone from an indexed folder is
 * removed. Chunks are embedded in batches across documents, a few batches in flight while the
 * next documents are read, so a slow embedding backend and slow parsing overlap.
 */
import { LaconicError, ProviderError, abortError, isAbortError } from '../core/contracts/laconic-error.js'
import type { EmbeddingProvider } from '../core/contracts/embeddings.js'
import { contentHash } from './content-hash.js'
import { type ChunkDraft, documentChunks, embeddedText, type ReadDocument } from '../documents/document-chunks.js'
import { SkippedItem, type SourceItem, type SourceSettings } from './source-item.js'
import { expandSource, type KnowledgeSource } from './knowledge-sources.js'
import type { Chunk, StoredDocument, VectorStore } from './vector-store.js'

/** How far `kb.index()` has come, told after each document. */
export interface IndexProgress {
  /** Documents looked at so far (read, unchanged or skipped), of `total` found. */
  documents: number
  total: number
  /** Of those, unchanged since they were last indexed: nothing embedded. */
  unchanged: number
  /** Chunks embedded and stored so far. */
  chunks: number
  /** The document just looked at. */
  url: string
}

/** What one `kb.index()` did. */
export interface IndexReport {
  /** Documents new to the store, changed since the last index, and unchanged. */
  added: number
  updated: number
  unchanged: number
  /** Documents removed because their file is gone from an indexed folder. */
  removed: number
  /** Chunks embedded. */
  chunks: number
  /** Documents left out, and why (too large, unreadable, a page that failed to load). */
  skipped: { url: string; code: string; message: string }[]
  /** What embedding cost, as far as the backend reported it. */
  inputTokens?: number
  cost?: number
}

/** Per-call options of `kb.index()`. */
export interface IndexOptions {
  signal?: AbortSignal
  onProgress?: (progress: IndexProgress) => void
}

export interface IndexerSettings extends SourceSettings {
  store: VectorStore
  embed: EmbeddingProvider
  chunkChars: number
  batchSize: number
  concurrency: number
}

interface Pending {
  document: ReadDocument
  hash: string
  drafts: ChunkDraft[]
  isNew: boolean
}

/** Documents read ahead of the one being embedded. */
const READ_AHEAD = 4

/** Bumped when the way documents are cut changes, so every document is cut again. */
const CHUNKER_VERSION = 1

export async function indexSources(sources: readonly KnowledgeSource[], settings: IndexerSettings, options: IndexOptions = {}): Promise<IndexReport> {
  const { store, embed, signal } = { ...settings, signal: options.signal }
  const check = () => {
    if (signal?.aborted) throw abortError(signal)
  }
  const built = await store.embedding()
  if (built && built.model !== embed.model) {
    throw new LaconicError(`knowledgeBase.index: the store holds vectors of ${built.model}, and the embedder is ${embed.model}`, {
      code: 'config',
      hint: `embed with ${built.model}, or index into a new store`,
    })
  }
  const recipe = `laconic-kb/${CHUNKER_VERSION};chunkChars=${settings.chunkChars};model=${embed.model}`
  const stored = new Map((await store.documents()).map((document) => [document.id, document]))
  const expanded = []
  for (const source of sources) {
    check()
    expanded.push(await expandSource(source, settings))
  }
  const items = uniqueItems(expanded.flatMap((source) => source.items))

  const report: IndexReport = { added: 0, updated: 0, unchanged: 0, removed: 0, chunks: 0, skipped: [] }
  let documents = 0
  const progress = (url: string) => options.onProgress?.({ documents, total: items.length, unchanged: report.unchanged, chunks: report.chunks, url })

  const inFlight = new Set<Promise<void>>()
  let failure: { error: unknown } | undefined
  let batch: Pending[] = []
  let batchChunks = 0

  // A batch's documents are put at once: a store may commit them together (LanceDB's commit costs
  // the same for one document as for twenty).
  const write = async (pending: Pending[], vectors: Float32Array[]) => {
    const dimensions = vectors[0]?.length ?? 0
    let at = 0
    const puts = pending.map(async ({ document, hash, drafts, isNew }) => {
      const chunks: Chunk[] = drafts.map((draft) => ({
        id: `${document.url}#${draft.position}`,
        documentId: document.url,
        url: draft.url,
        title: document.title,
        headings: draft.headings,
        position: draft.position,
        text: draft.text,
        vector: vectors[at++] as Float32Array,
      }))
      const record: StoredDocument = {
        id: document.url,
        url: document.url,
        title: document.title,
        hash,
        chunks: chunks.length,
        indexedAt: new Date().toISOString(),
      }
      await store.putDocument(record, chunks, { model: embed.model, dimensions })
      report.chunks += chunks.length
      if (isNew) report.added += 1
      else report.updated += 1
      progress(document.url)
    })
    await Promise.all(puts)
  }
  const embedBatch = async (pending: Pending[]) => {
    const texts = pending.flatMap(({ document, drafts }) => drafts.map((draft) => embeddedText(document.title, draft)))
    const result = await embed.embed(texts, signal ? { signal } : {})
    if (result.vectors.length !== texts.length) {
      throw new ProviderError(`knowledgeBase.index: ${embed.model} returned ${result.vectors.length} vectors for ${texts.length} texts`, {
        code: 'bad-response',
        provider: embed.model,
        hint: 'the embedding provider must return one vector per text, in order',
      })
    }
    if (result.inputTokens !== undefined) report.inputTokens = (report.inputTokens ?? 0) + result.inputTokens
    if (result.cost !== undefined) report.cost = (report.cost ?? 0) + result.cost
    await write(pending, result.vectors)
  }
  const launch = async () => {
    if (batch.length === 0) return
    const pending = batch
    batch = []
    batchChunks = 0
    const running = embedBatch(pending).catch((error: unknown) => {
      failure ??= { error }
    })
    inFlight.add(running)
    void running.finally(() => inFlight.delete(running))
    while (inFlight.size >= settings.concurrency) await Promise.race(inFlight)
    if (failure) throw failure.error
  }

  const seen = new Set<string>()
  try {
    // A few documents are read ahead (files, pages), in order: reading waits on the disk or the
    // network far more than on this thread.
    const reads: Promise<ReadOutcome>[] = []
    const readAhead = (until: number) => {
      for (let next = reads.length; next < Math.min(items.length, until); next++) {
        const item = items[next] as SourceItem
        const read = readItem(item, { recipe, chunkChars: settings.chunkChars }, stored.get(item.url)?.hash, signal)
        // Awaited in its turn; until then a failure must not count as unhandled.
        read.catch(() => {})
        reads.push(read)
      }
    }
    for (const [at, item] of items.entries()) {
      check()
      seen.add(item.url)
      readAhead(at + READ_AHEAD)
      const pending = await (reads[at] as Promise<ReadOutcome>)
      documents += 1
      if (pending === 'unchanged') {
        report.unchanged += 1
        progress(item.url)
      } else if ('skipped' in pending) {
        report.skipped.push({ url: item.url, code: pending.skipped.code, message: pending.skipped.message })
        progress(item.url)
      } else if (pending.drafts.length === 0) {
        // Nothing to search in it: no stale chunks of an earlier version stay behind.
        if (stored.has(item.url)) await store.removeDocument(item.url)
        report.skipped.push({ url: item.url, code: 'document-no-text', message: 'it has no text to index' })
        progress(item.url)
      } else {
        batch.push({ ...pending, isNew: !stored.has(item.url) })
        batchChunks += pending.drafts.length
        if (batchChunks >= settings.batchSize) await launch()
      }
    }
    await launch()
  } finally {
    // No write is left running behind the caller's back, whatever stopped the loop.
    await Promise.all(inFlight)
  }
  if (failure) throw failure.error

  for (const { folder } of expanded) {
    if (!folder) continue
    for (const document of stored.values()) {
      if (document.url.startsWith(folder) && !seen.has(document.id)) {
        check()
        await store.removeDocument(document.id)
        report.removed += 1
      }
    }
  }
  return report
}

function uniqueItems(items: SourceItem[]): SourceItem[] {
  const byUrl = new Map<string, SourceItem>()
  for (const item of items) if (!byUrl.has(item.url)) byUrl.set(item.url, item)
  return [...byUrl.values()]
}

type ReadOutcome = 'unchanged' | { skipped: { code: string; message: string } } | Omit<Pending, 'isNew'>

async function readItem(
  item: SourceItem,
  { recipe, chunkChars }: { recipe: string; chunkChars: number },
  storedHash: string | undefined,
  signal: AbortSignal | undefined,
): Promise<ReadOutcome> {
  try {
    const loaded = await item.load(signal)
    const hash = await contentHash(recipe, loaded.content)
    if (hash === storedHash) return 'unchanged'
    const document = await loaded.read()
    return { document, hash, drafts: documentChunks(document, chunkChars) }
  } catch (error) {
    if (isAbortError(error)) throw error
    if (error instanceof SkippedItem) return { skipped: { code: error.code, message: error.message } }
    throw error
  }
}
