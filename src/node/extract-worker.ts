/**
 * Worker-thread entry of the extraction pool: one job at a time, `{ id, kind, html, maxElements }`
 * (or a document's `bytes` and `limits`) in, `{ id, value }` or `{ id, error }` out, after one
 * `ready`. A job that runs too long is not interrupted here: the pool terminates the whole thread.
 */
import { parentPort } from 'node:worker_threads'
import { capAllocations } from './allocation-cap.js'
import { readDuckDuckGoPage } from '../adapters/search/duckduckgo-page.js'
import { parseArxivFeed, parseEsearch, parseEsummary } from '../adapters/search/scholarly-xml.js'
import type { DocumentLimits } from '../documents/document-reading.js'
import { docxText, pdfText } from './document-text.js'
import { documentText, extractReadable, loadExtractModules } from '../adapters/fetch/extract.js'
import type { ExtractKind, ExtractResults } from '../adapters/fetch/off-thread.js'
// The kinds search's parsers add to the pool's jobs (type-only: their `declare module`).
import type {} from '../adapters/search/duckduckgo-parse.js'
import type {} from '../adapters/search/scholarly-parse.js'

export interface ExtractJob {
  id: number
  kind: ExtractKind
  html: string
  /** Readability's element limit (`readable` only). */
  maxElements: number
  /** The file (`pdf` and `docx` only). */
  bytes?: Uint8Array | undefined
  /** `pdf` and `docx` only. */
  limits?: DocumentLimits | undefined
}

/**
 * `ready` once the parsers are loaded (a job's time budget starts with the job, not the thread).
 * `retire`: the thread holds more buffers than it should keep (see `RETIRE_BYTES`); end it.
 */
export type ExtractReply = 'ready' | { id: number; value: ExtractResults[ExtractKind]; retire?: true } | { id: number; error: string; retire?: true }

/**
 * Bytes of typed arrays a job may make: one buffer at most, and all not yet collected. The
 * thread's heap limit does not count them; these bound a decompression bomb in bytes, where it
 * was bounded only by the job's time budget (docs/security.md states the bound).
 */
export const WORKER_BUFFER_CAP = { maxBytes: 64 * 1024 * 1024, maxLiveBytes: 256 * 1024 * 1024 }

// Before any parser loads, so that every module makes its buffers through the bounded constructors.
const buffers = capAllocations(WORKER_BUFFER_CAP)

/** Buffers a thread may still hold after a job (not yet collected) and be kept for the next. */
const RETIRE_BYTES = 64 * 1024 * 1024
const modules = await loadExtractModules()

/** Bounds for a document job that came without them (the pool always sends them). */
const NO_LIMITS: DocumentLimits = { maxPages: 500, maxChars: 1_000_000, softTimeoutMs: 10_000 }
const fileOf = (job: ExtractJob) => job.bytes ?? new Uint8Array()

const work: { [K in ExtractKind]: (job: ExtractJob) => ExtractResults[K] | Promise<ExtractResults[K]> } = {
  readable: (job) => extractReadable(job.html, modules, job.maxElements),
  document: (job) => documentText(job.html, modules),
  duckduckgo: (job) => readDuckDuckGoPage(job.html, modules.parseHTML),
  arxiv: (job) => parseArxivFeed(job.html, modules.DOMParser),
  esearch: (job) => parseEsearch(job.html, modules.DOMParser),
  esummary: (job) => parseEsummary(job.html, modules.DOMParser),
  pdf: (job) => pdfText(fileOf(job), job.limits ?? NO_LIMITS),
  docx: (job) => docxText(fileOf(job), job.limits ?? NO_LIMITS, modules.parseHTML),
}

parentPort?.on('message', async (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    reply = { id: job.id, value: await work[job.kind](job) }
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(buffers.liveBytes() > RETIRE_BYTES ? { ...reply, retire: true } : reply)
})
parentPort?.postMessage('ready' satisfies ExtractReply)
