/**
 * Every Redis key laconic uses, in one place. A run's keys share the hash tag `{runId}`, so
 * on Redis Cluster they live in one slot and a script may touch them together.
 */
export const DEFAULT_PREFIX = 'laconic:'

export interface RunKeys {
  /** The run's event log (a stream; entry id `<seq>-1`). */
  events: string
  /** The token of the attempt that may append to the log (fences a worker thought dead). */
  owner: string
  /** Set when the run was cancelled, for a worker that picks the job up afterwards. */
  cancelled: string
  /** The id the agent gave the run (its checkpoints are saved under it), for a later attempt's resume. */
  agentRun: string
}

export function runKeys(prefix: string, runId: string): RunKeys {
  const base = `${prefix}run:{${runId}}`
  return { events: `${base}:events`, owner: `${base}:owner`, cancelled: `${base}:cancelled`, agentRun: `${base}:agent-run` }
}

/** The pub/sub channel that carries cancellations (the run id) to every worker. */
export const cancelChannel = (prefix: string): string => `${prefix}cancel`

/** A stream entry id for an event: `<seq>-1`, so ids grow with seq and `0-0` precedes all. */
export const entryId = (seq: number): string => `${seq}-1`

/** The seq of a stream entry id made by `entryId`, or undefined. */
export function seqOf(id: string): number | undefined {
  const match = /^(\d+)-1$/.exec(id)
  return match ? Number(match[1]) : undefined
}
