/**
 * The event log on Redis Streams: one stream per run, one entry per event, entry id `<seq>-1`.
 * Redis itself refuses an entry whose id is not above the last one, so the log can never hold
 * two events with the same `seq` or go backwards, whoever writes to it.
 */
import type { Redis } from 'ioredis'
import type { ResearchEvent } from '../core/contracts/events.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { isResearchEvent } from '../streams/parse-event.js'
import { withDeadline } from './redis-connection.js'
import { EventLogError } from './redis-errors.js'
import { DEFAULT_PREFIX, entryId, runKeys } from './keys.js'

/** Options of `redisEventLog()`: the key prefix and how long streams are kept. */
export interface RedisEventLogOptions {
  /** Seconds a run's stream is kept after its `run-end`. @defaultValue 86400 (a day) */
  readonly ttlSeconds?: number
  /**
   * Seconds a stream is kept after its last event while its run has not ended: the log of a
   * run nobody will ever finish does not stay forever. @defaultValue 604800 (a week)
   */
  readonly idleTtlSeconds?: number
  /** Prefix of every key. @defaultValue 'laconic:' */
  readonly prefix?: string
  /**
   * How long a reader waits on Redis (e.g. while it restarts) before it fails with a `network`
   * error instead of hanging. @defaultValue 30000
   */
  readonly unavailableMs?: number
}

/** Options of `RedisEventLog.read()`: where to resume, and a signal that stops the reading. */
export interface ReadOptions {
  /** Replay the events after this `seq` (the SSE `Last-Event-ID`); from the start when absent (or not a whole number >= 0). */
  readonly after?: number | undefined
  /** Stops reading (not the run). */
  readonly signal?: AbortSignal | undefined
}

/**
 * A reader of one run's log: an async iterable that `pipeSSE`/`sseResponse` accept. Its `abort`
 * stops this reader only; the run goes on for everyone else.
 */
export type EventLogReader = AsyncIterable<ResearchEvent> & { abort(reason?: unknown): void }

/** A run's events kept in a Redis stream, so any process can append them and read them back, live. */
export interface RedisEventLog {
  /** Appends one event to its run's stream (`XADD`); after `run-end` the stream expires in `ttlSeconds`. */
  append(event: ResearchEvent): Promise<void>
  /**
   * The run's events after `after`, then live ones as they are appended (`XREAD BLOCK`), until
   * `run-end`. A run not started yet is waited for. Each reader holds its own Redis connection.
   */
  read(runId: string, options?: ReadOptions): EventLogReader
  /** What the log holds now, without waiting. */
  history(runId: string): Promise<ResearchEvent[]>
}

/**
 * Append one event; with a fence token, only while that token owns the run. The same event
 * appended twice is appended once: a client resends a command whose reply a restarting Redis
 * never sent, though the command itself was done.
 */
const APPEND = `
if ARGV[4] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[4] then
  return redis.error_reply('FENCED another attempt owns this run')
end
local existing = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
if #existing > 0 then
  if existing[1][2][2] == ARGV[2] then return 0 end
  return redis.error_reply('CONFLICT equal or smaller')
end
redis.call('XADD', KEYS[1], ARGV[1], 'e', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if ARGV[4] ~= '' then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return 1
`

/** How long one `XREAD` blocks; a reader re-checks its stop conditions this often. */
const BLOCK_MS = 2_000

export interface FollowOptions extends ReadOptions {
  /** Asked after every quiet `BLOCK_MS`: true ends the reader (the run can no longer end). */
  readonly idle?: (() => Promise<boolean>) | undefined
}

/** The log, with what the worker and the queue need beyond the public interface. */
export interface InternalEventLog extends RedisEventLog {
  readonly prefix: string
  /** Appends only while `fence` owns the run; rejects with code `fenced` otherwise. */
  appendFenced(event: ResearchEvent, fence: string): Promise<void>
  follow(runId: string, options: FollowOptions): EventLogReader
}

function positiveSeconds(name: string, value: number): number {
  if (!(Number.isInteger(value) && value > 0)) throw new TypeError(`\`${name}\` must be a whole number of seconds > 0, got ${value}`)
  return value
}

/** A `RedisEventLog` on your Redis connection, to append a run's events and read them back from any process. */
export function redisEventLog(redis: Redis, options: RedisEventLogOptions = {}): RedisEventLog {
  return createEventLog(redis, options)
}

export function createEventLog(redis: Redis, options: RedisEventLogOptions = {}): InternalEventLog {
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const ttl = positiveSeconds('ttlSeconds', options.ttlSeconds ?? 86_400)
  const idleTtl = positiveSeconds('idleTtlSeconds', options.idleTtlSeconds ?? 604_800)
  const unavailableMs = options.unavailableMs ?? 30_000

  async function append(event: ResearchEvent, fence: string): Promise<void> {
    const keys = runKeys(prefix, event.runId)
    const expire = event.type === 'run-end' ? ttl : idleTtl
    try {
      await withDeadline(
        redis.eval(APPEND, 2, keys.events, keys.owner, entryId(event.seq), JSON.stringify(event), expire, fence),
        unavailableMs,
        `appending to run ${event.runId}`,
      )
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (message.includes('FENCED')) {
        throw new EventLogError(`run ${event.runId} was taken over by another attempt`, { code: 'fenced', cause: error })
      }
      if (message.includes('equal or smaller')) {
        throw new EventLogError(`event seq ${event.seq} of run ${event.runId} is not after the last one logged`, { code: 'conflict', cause: error })
      }
      throw error
    }
  }

  async function history(runId: string): Promise<ResearchEvent[]> {
    const entries = await redis.xrange(runKeys(prefix, runId).events, '-', '+')
    return entries.flatMap(([, fields]) => eventOf(fields) ?? [])
  }

  function follow(runId: string, { after, signal, idle }: FollowOptions): EventLogReader {
    const key = runKeys(prefix, runId).events
    const stop = new AbortController()
    const onOuterAbort = () => stop.abort(signal?.reason)
    // XREAD BLOCK holds its connection: every reader gets its own, closed when it stops.
    let connection: Redis | undefined

    async function* events(): AsyncGenerator<ResearchEvent> {
      if (signal?.aborted) return
      signal?.addEventListener('abort', onOuterAbort, { once: true })
      const client = redis.duplicate()
      client.on('error', () => {}) // reconnections are ioredis's job; a dead Redis ends the read below
      connection = client
      const closeOnStop = () => client.disconnect()
      stop.signal.addEventListener('abort', closeOnStop, { once: true })
      let cursor = after !== undefined && Number.isSafeInteger(after) && after >= 0 ? entryId(after) : '0-0'
      // Set once `idle` said the run can no longer end: one last read without blocking, for
      // events appended between the quiet read and the check, then the reader ends.
      let lastPass = false
      try {
        while (!stop.signal.aborted) {
          let reply: [string, [string, string[]][]][] | null
          try {
            const read = lastPass ? client.xread('COUNT', 1000, 'STREAMS', key, cursor) : client.xread('COUNT', 1000, 'BLOCK', BLOCK_MS, 'STREAMS', key, cursor)
            reply = (await withDeadline(read, BLOCK_MS + unavailableMs, `reading run ${runId}`)) as [string, [string, string[]][]][] | null
          } catch (error) {
            if (stop.signal.aborted) return
            throw new LaconicError(`cannot read the events of run ${runId}: ${error instanceof Error ? error.message : String(error)}`, {
              code: 'network',
              cause: error,
            })
          }
          const entries = reply?.[0]?.[1] ?? []
          if (entries.length === 0) {
            if (lastPass) return
            if (idle && (await idle())) lastPass = true
            continue
          }
          lastPass = false
          for (const [id, fields] of entries) {
            cursor = id
            const event = eventOf(fields)
            if (!event) continue
            yield event
            if (event.type === 'run-end') return
          }
        }
      } finally {
        signal?.removeEventListener('abort', onOuterAbort)
        stop.signal.removeEventListener('abort', closeOnStop)
        client.disconnect()
      }
    }

    return {
      [Symbol.asyncIterator]: () => events(),
      abort(reason?: unknown) {
        stop.abort(reason)
        connection?.disconnect()
      },
    }
  }

  return {
    prefix,
    append: (event) => append(event, ''),
    appendFenced: append,
    read: (runId, readOptions = {}) => follow(runId, readOptions),
    follow,
    history,
  }
}

/** The event of a stream entry (`e` field), or undefined for an entry that is not one. */
function eventOf(fields: string[]): ResearchEvent | undefined {
  const index = fields.indexOf('e')
  if (index < 0 || index % 2 !== 0) return undefined
  let value: unknown
  try {
    value = JSON.parse(fields[index + 1] ?? '')
  } catch {
    return undefined
  }
  return isResearchEvent(value) ? value : undefined
}
