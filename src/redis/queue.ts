/**
 * The web side: submit runs as BullMQ jobs (job id = run id), cancel them, ask how they are
 * doing, and read their events from the log, from any process.
 */
import { Queue } from 'bullmq'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { ResearchResult } from '../core/contracts/result.js'
import type { ResearchOptions } from '../core/contracts/strategy-types.js'
import { openConnection, withDeadline, type RedisConnection } from './redis-connection.js'
import { createEventLog, type EventLogReader, type RedisEventLogOptions } from './event-log.js'
import { cancelChannel, DEFAULT_PREFIX, runKeys } from './keys.js'
import type { RunStatus } from '../server/run-host.js'

/** The default BullMQ queue name; the worker must use the same. */
export const DEFAULT_QUEUE_NAME = 'laconic-research'

/** What a queued run carries to its worker: JSON only (no signal, no providers). */
export type QueuedResearchOptions = Pick<ResearchOptions, 'knowledge' | 'priorAnswers' | 'citations'>

/** What a queued research job carries to its worker: the question, the strategy, and JSON-only options. */
export interface ResearchJobData {
  question: string
  strategy?: string
  options?: QueuedResearchOptions
}

/** Options of `createResearchQueue()`: the Redis connection, the queue name, key prefix and event-log settings. */
export interface ResearchQueueOptions {
  connection: RedisConnection
  /** The BullMQ queue name. @defaultValue 'laconic-research' */
  name?: string
  /** Prefix of laconic's own keys (logs, cancellations). @defaultValue 'laconic:' */
  prefix?: string
  /** The event log's settings; `ttlSeconds` also bounds how long finished jobs are kept. */
  log?: RedisEventLogOptions
}

/** A run's state and status, as the research handler's `GET /runs/:id` shows them. */
export type { RunState, RunStatus } from '../server/run-host.js'

/** Options of `ResearchQueue.submit()`: the strategy to run, and JSON-only research options. */
export interface SubmitOptions {
  /** A strategy name the workers know; their agent's own strategy when absent. */
  strategy?: string
  options?: QueuedResearchOptions
}

/** Options of `ResearchQueue.researchEvents()`: where to resume, and a signal that stops the reading. */
export interface ResearchEventsOptions {
  /** Events after this `seq`. */
  after?: number | undefined
  /** The raw `Last-Event-ID` header: events after it (ignored unless a whole number; `after` wins). */
  lastEventId?: string | string[] | null | undefined
  signal?: AbortSignal | undefined
}

/** Submits research runs to workers through Redis, and lets any process follow, cancel or look up a run. */
export interface ResearchQueue {
  submit(question: string, options?: SubmitOptions): Promise<{ runId: string }>
  /** Stops the run wherever it runs (or as soon as a worker takes it). False for an unknown run. */
  cancel(runId: string): Promise<boolean>
  /** The run's state, and its result once done; undefined for an unknown (or expired) run. */
  get(runId: string): Promise<RunStatus | undefined>
  /**
   * The run's events from the log for `sseResponse`/`pipeSSE`: replay after `after` (or
   * `Last-Event-ID`), then live until `run-end`. Ends early, without `run-end`, when the job
   * failed without logging one. Its `abort` stops this reader only.
   */
  researchEvents(runId: string, options?: ResearchEventsOptions): EventLogReader
  /** Closes the connections the queue opened. */
  close(): Promise<void>
}

/** Connects a `ResearchQueue` to Redis, to submit runs to workers and follow them from any process. */
export function createResearchQueue(options: ResearchQueueOptions): ResearchQueue {
  const { redis, owned } = openConnection(options.connection)
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const log = createEventLog(redis, { ...options.log, prefix })
  const unavailableMs = options.log?.unavailableMs ?? 30_000
  const keepSeconds = options.log?.ttlSeconds ?? 86_400
  const queue = new Queue<ResearchJobData, ResearchResult>(options.name ?? DEFAULT_QUEUE_NAME, { connection: redis })
  queue.on('error', () => {}) // reconnections are ioredis's; each call reports its own failure
  const bounded = <T>(promise: Promise<T>, what: string) => withDeadline(promise, unavailableMs, what)

  async function get(runId: string): Promise<RunStatus | undefined> {
    // The state first: a job read before it completes would lack the result its state promises.
    const [state, cancelled] = await bounded(Promise.all([queue.getJobState(runId), redis.exists(runKeys(prefix, runId).cancelled)]), `reading run ${runId}`)
    const job = await bounded(queue.getJob(runId), `reading run ${runId}`)
    if (!job || state === 'unknown') return undefined
    const status: RunStatus = {
      runId,
      state: state === 'completed' ? 'done' : state === 'failed' ? 'failed' : state === 'active' ? 'running' : 'queued',
      question: job.data.question,
      cancelled: cancelled > 0,
    }
    if (job.data.strategy !== undefined) status.strategy = job.data.strategy
    if (status.state === 'done' && job.returnvalue) status.result = job.returnvalue
    if (status.state === 'failed') status.error = job.failedReason
    return status
  }

  return {
    async submit(question, submitOptions = {}) {
      if (typeof question !== 'string' || !question.trim()) {
        throw new LaconicError('the question is empty', { code: 'config', hint: 'pass the question to research as a non-empty string' })
      }
      const runId = crypto.randomUUID()
      const data: ResearchJobData = { question: question.trim() }
      if (submitOptions.strategy !== undefined) data.strategy = submitOptions.strategy
      if (submitOptions.options !== undefined) data.options = submitOptions.options
      await bounded(
        queue.add('research', data, {
          jobId: runId,
          removeOnComplete: { age: keepSeconds },
          removeOnFail: { age: keepSeconds },
        }),
        'submitting a run',
      )
      return { runId }
    },

    async cancel(runId) {
      const job = await bounded(queue.getJob(runId), `cancelling run ${runId}`)
      if (!job) return false
      // The flag serves a worker that takes the job later; the message one running it now.
      await bounded(
        redis.multi().set(runKeys(prefix, runId).cancelled, '1', 'EX', keepSeconds).publish(cancelChannel(prefix), runId).exec(),
        `cancelling run ${runId}`,
      )
      return true
    },

    get,

    researchEvents(runId, { after, lastEventId, signal } = {}) {
      const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId
      const from = after ?? (typeof header === 'string' && /^\d{1,15}$/.test(header.trim()) ? Number(header) : undefined)
      // A job that ended, failed or vanished will log nothing more: stop waiting (the reader
      // still takes what was appended meanwhile).
      const idle = async () => {
        try {
          const status = await get(runId)
          return status === undefined || status.state === 'failed' || status.state === 'done'
        } catch {
          return false
        }
      }
      return log.follow(runId, { after: from, signal, idle })
    },

    async close() {
      await queue.close()
      if (owned) redis.disconnect()
    },
  }
}
