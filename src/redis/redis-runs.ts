/**
 * The research handler's runs on Redis: a start is a job on the queue (a worker anywhere runs
 * it), events are read from the run's log, a cancel reaches the worker through Redis. Any web
 * node serves any run, so a browser may resume on another node behind the same load balancer.
 */
import type { RunHost } from '../server/run-host.js'
import { openConnection } from './redis-connection.js'
import { runKeys, DEFAULT_PREFIX, seqOf } from './keys.js'
import { createResearchQueue, type ResearchQueueOptions } from './queue.js'

/** The Redis run host: give it to `createResearchHandler`; `close()` closes its connections. */
export interface RedisRuns extends RunHost {
  /** Stops following the runs started here and closes the connections it opened. */
  close(): Promise<void>
}

/** Options of `redisRuns`: the queue's (the workers must use the same `name` and `prefix`). */
export type RedisRunsOptions = ResearchQueueOptions

/** Runs on the Redis queue and event log that `createResearchWorker` workers serve. */
export function redisRuns(options: RedisRunsOptions): RedisRuns {
  const { redis, owned } = openConnection(options.connection)
  const queue = createResearchQueue({ ...options, connection: redis })
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const closing = new AbortController()

  /** The seq of the run's `run-end` once it is logged. */
  async function endSeq(runId: string): Promise<number | undefined> {
    const [last] = await redis.xrevrange(runKeys(prefix, runId).events, '+', '-', 'COUNT', 1)
    if (!last) return undefined
    const [id, fields] = last
    const at = fields.indexOf('e')
    try {
      return (JSON.parse(fields[at + 1] ?? '') as { type?: unknown } | null)?.type === 'run-end' ? seqOf(id) : undefined
    } catch {
      return undefined
    }
  }

  return {
    async start(question, { strategy }) {
      const { runId } = await queue.submit(question, strategy === undefined ? {} : { strategy })
      // In progress until its log ends (or its job is done, failed or gone): one reader, one connection, per run.
      const ended = (async () => {
        try {
          for await (const _ of queue.researchEvents(runId, { signal: closing.signal })) {
            // only the end matters
          }
        } catch {
          // Redis gone for too long: the run no longer counts here.
        }
      })()
      return { runId, ended }
    },

    status: (runId) => queue.get(runId),

    async events(runId, { after }) {
      if (!(await queue.get(runId))) return undefined
      if (after !== undefined) {
        const end = await endSeq(runId)
        if (end !== undefined && end <= after) return 'ended'
      }
      return queue.researchEvents(runId, { after })
    },

    cancel: (runId) => queue.cancel(runId),

    async close() {
      closing.abort(new DOMException('the web node closed', 'AbortError'))
      await queue.close()
      if (owned) redis.disconnect()
    },
  }
}
