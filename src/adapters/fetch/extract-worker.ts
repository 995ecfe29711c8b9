/**
 * Worker-thread entry of the extraction pool: one job at a time, `{ id, html, maxElements }`
 * in, `{ id, page }` or `{ id, error }` out, after one `ready`. A job that runs too long is not interrupted
 * here: the pool terminates the whole thread.
 */
import { parentPort } from 'node:worker_threads'
import { extractReadable, loadExtractModules, type ExtractedPage } from './extract.js'

export interface ExtractJob {
  id: number
  html: string
  maxElements: number
}

/** `ready` once the parsers are loaded (a job's time budget starts with the job, not the thread). */
export type ExtractReply = 'ready' | { id: number; page: ExtractedPage } | { id: number; error: string }

const modules = await loadExtractModules()

parentPort?.on('message', (job: ExtractJob) => {
  let reply: ExtractReply
  try {
    reply = { id: job.id, page: extractReadable(job.html, modules, job.maxElements) }
  } catch (error) {
    reply = { id: job.id, error: error instanceof Error ? error.message : String(error) }
  }
  parentPort?.postMessage(reply)
})
parentPort?.postMessage('ready' satisfies ExtractReply)
