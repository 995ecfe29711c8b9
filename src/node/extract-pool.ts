/**
 * A small pool of worker threads that parse untrusted HTML (a web page into readable text, a
 * local document into text, a DuckDuckGo results page into results) and untrusted files (a PDF
 * or DOCX into text), so that no page or document, however hostile, blocks the event loop: the
 * main thread only posts the input and waits. A job that outlives its time budget, or whose
 * caller aborts, has its thread terminated (a synchronous DOM walk cannot be interrupted any
 * other way); a fresh thread replaces it on demand.
 *
 * The worker script is the compiled `extract-worker.js` next to this module. Run from the
 * TypeScript sources (tests, `tsx`), it is `extract-worker.ts`, loaded through tsx.
 */
import { onAbort as onAbortOf } from '../core/util/abort-listener.js'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { abortError } from '../core/contracts/laconic-error.js'
import { MAX_READABILITY_ELEMENTS } from '../adapters/fetch/extract.js'
import type { ExtractKind, ExtractPool, ExtractRequest, ExtractResults } from '../adapters/fetch/off-thread.js'
import type { ExtractJob, ExtractReply } from './extract-worker.js'

/** Why a job ended without a page; the caller decides what to fall back on. */
export class ExtractFailure extends Error {
  constructor(
    readonly reason: 'timeout' | 'crashed',
    message: string,
  ) {
    super(message)
    this.name = 'ExtractFailure'
  }
}

/** Threads at most: one per core, and a few are plenty for pages that usually take milliseconds. */
export const POOL_SIZE = Math.max(1, Math.min(availableParallelism(), 4))

/** Heap of one worker: a page is capped at a few megabytes, its DOM needs far less than this. */
const WORKER_HEAP_MB = 512

interface Pending {
  job: ExtractJob
  timeoutMs: number
  resolve: (value: ExtractResults[ExtractKind]) => void
  reject: (error: unknown) => void
  signal?: AbortSignal | undefined
  /** The thread running it, once one took it. */
  slot?: Slot
}

interface Slot {
  worker: Worker
  ready: boolean
  current?: Pending
  timer?: ReturnType<typeof setTimeout>
}

/** The worker thread, from the compiled sources or, under tests and `tsx`, from the TypeScript ones. */
function startWorker(): Worker {
  // A thread inherits the process's flags; `--input-type` (of `node -e`) and the process-wide
  // `--expose-gc` (of `npm run bench`) would stop it from starting.
  const execArgv = process.execArgv.filter((flag) => !/^--(input-type|expose[-_]gc)/.test(flag))
  const options = { execArgv, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } }
  const here = import.meta.url
  if (!here.endsWith('.ts')) return new Worker(new URL('./extract-worker.js', here), options)
  // A worker does not inherit the parent's TypeScript loader: register tsx in it first.
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href
  const entry = new URL('./extract-worker.ts', here).href
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(boot, { ...options, eval: true })
}

export function createExtractPool(size = POOL_SIZE): ExtractPool {
  const slots = new Set<Slot>()
  const idle: Slot[] = []
  const queue: Pending[] = []
  let nextId = 0

  const spawn = (): Slot => {
    const worker = startWorker()
    const slot: Slot = { worker, ready: false }
    slots.add(slot)
    worker.on('message', (reply: ExtractReply) => {
      if (reply === 'ready') {
        slot.ready = true
        return release(slot)
      }
      const pending = slot.current
      if (!pending || pending.job.id !== reply.id) return
      finish(slot)
      if ('value' in reply) pending.resolve(reply.value)
      else pending.reject(new ExtractFailure('crashed', reply.error))
      // A thread left holding large buffers (a bomb's, garbage its collector may not get to for
      // long) is ended, which gives them back at once; a fresh one starts on demand.
      if (reply.retire) kill(slot)
      else release(slot)
    })
    // A thread that dies (out of memory, a crash) takes its job with it; it is not reused.
    const died = (why: string) => {
      if (!slots.delete(slot)) return
      const pending = slot.current
      finish(slot)
      pending?.reject(new ExtractFailure('crashed', why))
      const index = idle.indexOf(slot)
      if (index !== -1) idle.splice(index, 1)
      // A thread that cannot even start would be replaced forever: fail what waits instead.
      if (!slot.ready) for (const waiting of queue.splice(0)) waiting.reject(new ExtractFailure('crashed', why))
      pump()
    }
    worker.on('error', (error) => died(error.message))
    worker.on('exit', (code) => died(`the extraction thread exited with code ${code}`))
    return slot
  }

  const finish = (slot: Slot): void => {
    clearTimeout(slot.timer)
    slot.current = undefined
  }

  const kill = (slot: Slot): void => {
    slots.delete(slot)
    finish(slot)
    void slot.worker.terminate()
    pump()
  }

  const release = (slot: Slot): void => {
    // An idle thread must not keep the process alive.
    slot.worker.unref()
    idle.push(slot)
    pump()
  }

  const assign = (slot: Slot, pending: Pending): void => {
    slot.current = pending
    pending.slot = slot
    slot.worker.ref()
    slot.timer = setTimeout(() => {
      kill(slot)
      pending.reject(new ExtractFailure('timeout', `not done within ${pending.timeoutMs} ms`))
    }, pending.timeoutMs)
    slot.worker.postMessage(pending.job)
  }

  const pump = (): void => {
    while (queue.length > 0 && idle.length > 0) assign(idle.pop() as Slot, queue.shift() as Pending)
    // Threads still starting will take the rest; start more only for jobs none of them will take.
    const starting = [...slots].filter((slot) => !slot.ready).length
    for (let missing = queue.length - starting; missing > 0 && slots.size < size; missing--) spawn()
  }

  return {
    run<K extends ExtractKind = 'readable'>({ kind, html = '', bytes, limits, maxElements = MAX_READABILITY_ELEMENTS, timeoutMs, signal }: ExtractRequest<K>) {
      if (signal?.aborted) return Promise.reject(abortError(signal))
      return new Promise<ExtractResults[K]>((resolve, reject) => {
        const job: ExtractJob = { id: nextId++, kind: kind ?? 'readable', html, maxElements, bytes, limits }
        const pending: Pending = { job, timeoutMs, resolve: resolve as Pending['resolve'], reject, signal }
        // Abort leaves the queue, or stops the thread running the job.
        const onAbort = () => {
          const index = queue.indexOf(pending)
          if (index !== -1) queue.splice(index, 1)
          if (pending.slot?.current === pending) kill(pending.slot)
          pending.reject(abortError(signal))
        }
        const settle = onAbortOf(signal, onAbort)
        pending.resolve = (value) => {
          settle()
          resolve(value as ExtractResults[K])
        }
        pending.reject = (error) => {
          settle()
          reject(error)
        }
        queue.push(pending)
        pump()
      })
    },
    async close() {
      for (const pending of queue.splice(0)) pending.reject(new ExtractFailure('crashed', 'the extraction pool closed'))
      const all = [...slots]
      slots.clear()
      idle.length = 0
      await Promise.all(all.map((slot) => slot.worker.terminate()))
    },
  }
}
