/**
 * Worker-thread entry of the extraction pool: one job at a time, `{ id, kind, html, maxElements }`
 * in, `{ id, value }` or `{ id, error }` out, after one `ready`. A job that runs too long is not
 * interrupted here: the pool terminates the whole thread.
 */
import { parentPort } from 'node:worker_threads'
import { readDuckDuckGoPage, type DuckDuckGoPage } from '../search/duckduckgo-page.js'
import { documentText, extractReadable, loadExtractModules, type ExtractedPage } from './extract.js'

/** What the pool parses: a web page's readable text, a document's whole text, a DuckDuckGo results page. */
export interface ExtractResults {
  readable: ExtractedPage
  document: ExtractedPage
  duckduckgo: DuckDuckGoPage
}

export type ExtractKind = keyof ExtractResults

export interface ExtractJob {
  id: number
  kind: ExtractKind
  html: string
  /** Readability's element limit (`readable` only). */
  maxElements: number
}

/** `ready` once the parsers are loaded (a job's time budget starts with the job, not the thread). */
export type ExtractReply = 'ready' | { id: number; value: ExtractResults[ExtractKind] } | { id: number; error: string }

const modules = await loadExtractModules()

const work: { [K in ExtractKind]: (job: ExtractJob) => ExtractResults[K] } = {
  readable: (job) => extractReadable(job.html, modules, job.maxElements),
  document: (job) => documentText(job.html, modules),
  duckduckgo: (job) => readDuckDuckGoPage(job.html, modules.parseHTML),
}

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    reply = { id: job.id, value: work[job.kind](job) }
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(reply)
})
parentPort?.postMessage('ready' satisfies ExtractReply)
