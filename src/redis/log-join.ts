/**
 * How a later attempt at a run (its worker died; another picked the job up) continues the log
 * the earlier attempt left, so readers see one valid event sequence:
 *
 * - the new attempt's `run-start` is replaced by a `warning` with code `resumed` (one
 *   `run-start` in all); its other events follow the last logged one, `seq` going on from there;
 * - cost totals (and `run-end.cost`) add what the new attempt spends to the last logged total:
 *   what the dead attempt spent after its last checkpoint was spent too;
 * - answer tokens streamed before the `resumed` warning are superseded: the answer is the
 *   tokens after it (and the `answer` event, if the dead attempt got that far, is replaced).
 */
import type { ResearchEvent } from '../core/contracts/events.js'
import { addCost, zeroCost, type Cost } from '../core/contracts/run-cost.js'
import { RESUMED_CODE } from '../core/run/result-fold.js'

export interface LogJoin {
  /** The events to append for one event of the new attempt (stamped with the log's run id). */
  map(event: ResearchEvent): ResearchEvent[]
  /** A cost of the new attempt as the log counts it. */
  cost(cost: Cost): Cost
}

export function joinLog(runId: string, logged: readonly ResearchEvent[], how: string): LogJoin {
  const last = logged.at(-1)
  if (!last) {
    return {
      map: (event) => [event.runId === runId ? event : { ...event, runId }],
      cost: (cost) => cost,
    }
  }
  let next = last.seq + 1
  let before = zeroCost()
  for (const event of logged) if (event.type === 'cost') before = event.total
  // What the new attempt had spent when it started (a resumed run starts from its checkpoint's cost).
  let base: Cost | undefined
  const spentSince = (total: Cost): Cost => subtractCost(total, base ?? total)
  const adjust = (total: Cost): Cost => addCost(before, spentSince(total))

  const stamp = (event: ResearchEvent): ResearchEvent => ({ ...event, runId, seq: next++ })
  return {
    map(event) {
      switch (event.type) {
        case 'run-start':
          // A resumed run starts from its checkpoint's cost.
          if (event.resumed) base = event.resumed.cost
          return [
            {
              type: 'warning',
              code: RESUMED_CODE,
              message: `the worker running this run stopped; another worker ${how}`,
              runId,
              seq: next++,
              time: event.time,
            },
          ]
        case 'cost':
          base ??= subtractCost(event.total, event.delta)
          return [stamp({ ...event, total: adjust(event.total) })]
        case 'run-end':
          return [stamp({ ...event, cost: adjust(event.cost) })]
        default:
          return [stamp(event)]
      }
    },
    cost: adjust,
  }
}

function subtractCost(a: Cost, b: Cost): Cost {
  const out = { ...a }
  // A field a cost saved by an earlier version lacks counts as 0.
  for (const key of Object.keys(out) as (keyof Cost)[]) out[key] = Math.max(0, (a[key] ?? 0) - (b[key] ?? 0))
  return out
}
