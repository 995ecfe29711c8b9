import type { Cost } from './run-cost.js'
import { LaconicError } from './laconic-error.js'
import type { Citation, Fact, VerifyMode } from './events.js'
import { type InterruptRequest, isInterruptRequest } from './interruption.js'
import type { JsonValue } from '../util/json-value.js'
import type { RecalledFinding } from './long-term-memory.js'
import type { SourceFilter } from './providers.js'
import type { PriorAnswer, ResearchResult } from './result.js'
import { isObject, readStoredJson } from '../util/stored-json.js'

/** The format of checkpoints this version writes and reads. */
export const CHECKPOINT_VERSION = 2

/**
 * Where a run stands, saved after each strategy step. Plain JSON: any store can keep it as text.
 * - `running`: saved mid-run; a resume continues after the step.
 * - `paused`: the run ended `paused` (a plan or a tool call waits for approval); a resume continues with it.
 * - `final`: the run ended (`answered` or `max-iterations`); a resume returns `result` and calls nothing.
 */
export interface Checkpoint {
  /** The format's version; this release reads and writes 2 (1: before strategies saved their own settings and paused runs their request). */
  version: 2
  runId: string
  question: string
  /** The strategy's name, and the options that shape it: `searchLimit` when set, and the strategy's normalised `settings`. */
  strategy: string
  options: { [key: string]: JsonValue }
  /**
   * The run's inputs a resume needs again: the caller's knowledge, prior answers and citations,
   * the findings long-term memory recalled, the run's own `language` and `sources` (a resumed
   * run keeps them, whatever the resuming agent sets), and its review switches.
   */
  input: {
    knowledge?: string
    priorAnswers?: PriorAnswer[]
    citations?: Citation[]
    recalled?: RecalledFinding[]
    verify?: VerifyMode
    language?: string
    sources?: SourceFilter
    /** The run's review switches that are plain data (`ResearchOptions.review`). */
    review?: { plan?: boolean; tools?: boolean }
  }
  status: 'running' | 'paused' | 'final'
  /** What the strategy saved with `ctx.checkpoint(state)` at its last step. */
  state: JsonValue
  /** Spent so far, and the `seq` the next event takes (one past the last event emitted). */
  cost: Cost
  seq: number
  /** What the run gathered so far: the facts it emitted, and its latest knowledge. */
  facts: Fact[]
  knowledge: string
  /** The next number of each id prefix (`q`, `f`, ...), so a resumed run never reuses an id. */
  ids: { [prefix: string]: number }
  /** What a `paused` run waits for. */
  request?: InterruptRequest
  /** The final result, when `status` is `final`. */
  result?: ResearchResult
  /** Milliseconds since the epoch. */
  savedAt: number
}

/** Gives the resume lock back. */
export type ReleaseLock = () => Promise<void>

/**
 * Where checkpoints live. `memoryCheckpoints()` and `fileCheckpoints(dir)` (laconic-research/node)
 * are built in; implement this for any other store. Stores keep one checkpoint per run (the newest).
 */
export interface CheckpointStore {
  /** Replaces the run's checkpoint; a reader never sees a half-written one. */
  save(checkpoint: Checkpoint): Promise<void>
  /** The run's checkpoint, or undefined when there is none. Throws a `config` LaconicError when it cannot be read. */
  load(runId: string): Promise<Checkpoint | undefined>
  delete(runId: string): Promise<void>
  /**
   * Takes the run's lock, so one process at a time runs it: returns the function that gives it
   * back, or undefined when someone else holds it. A holder that died (a killed process) must
   * not hold it forever: the file store checks the holder's pid, a networked store uses an expiry.
   */
  acquire(runId: string): Promise<ReleaseLock | undefined>
}

/** Checkpoints in this process's memory: for tests, and for pausing a run and resuming it in the same process. */
export function memoryCheckpoints(): CheckpointStore {
  const saved = new Map<string, string>()
  const held = new Set<string>()
  return {
    async save(checkpoint) {
      saved.set(checkpoint.runId, JSON.stringify(checkpoint))
    },
    async load(runId) {
      const text = saved.get(runId)
      return text === undefined ? undefined : parseCheckpoint(text, `checkpoint of run ${runId}`)
    },
    async delete(runId) {
      saved.delete(runId)
    },
    async acquire(runId) {
      if (held.has(runId)) return undefined
      held.add(runId)
      let released = false
      return async () => {
        if (!released) held.delete(runId)
        released = true
      }
    },
  }
}

const badCheckpoint = (where: string, problem: string) =>
  new LaconicError(`${where} cannot be resumed: ${problem}`, { code: 'config', hint: 'the checkpoint is left as it is; nothing was run' })

/**
 * Reads a checkpoint from its text (or an already parsed value) and checks its shape. A corrupt
 * one, or one from another schema version, is a `config` LaconicError naming the problem.
 */
export function parseCheckpoint(text: string | unknown, where = 'the checkpoint'): Checkpoint {
  const value = readStoredJson(text, {
    versionLabel: 'schema version',
    version: CHECKPOINT_VERSION,
    fields: [
      ['runId', (v) => typeof v === 'string' && v !== ''],
      ['question', (v) => typeof v === 'string' && v !== ''],
      ['strategy', (v) => typeof v === 'string' && v !== ''],
      ['options', isObject],
      ['input', isObject],
      ['status', (v) => v === 'running' || v === 'paused' || v === 'final'],
      ['cost', (v) => isObject(v) && Object.values(v).every((n) => typeof n === 'number' && Number.isFinite(n))],
      ['seq', (v) => Number.isInteger(v) && (v as number) >= 0],
      ['facts', Array.isArray],
      ['knowledge', (v) => typeof v === 'string'],
      ['ids', (v) => isObject(v) && Object.values(v).every((n) => Number.isInteger(n))],
    ],
    bad: (problem) => badCheckpoint(where, problem),
  })
  if (!('state' in value)) throw badCheckpoint(where, 'its `state` is missing')
  if (value.status === 'final' && !isObject(value.result)) throw badCheckpoint(where, 'it is final but holds no result')
  if (value.request !== undefined && !isInterruptRequest(value.request)) throw badCheckpoint(where, 'its `request` is malformed')
  return value as unknown as Checkpoint
}

/** A deep copy through JSON: what a checkpoint will hold, taken now so later changes do not leak in. */
export function toJson(value: unknown): JsonValue {
  const text = JSON.stringify(value)
  return text === undefined ? null : (JSON.parse(text) as JsonValue)
}
