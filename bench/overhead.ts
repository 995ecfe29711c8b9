/**
 * Benchmark 5: what the runtime costs per event. One million small events through createAgent
 * (a custom strategy that only yields) against a bare async generator yielding the same
 * objects. Both are read with `for await`; trials alternate and the median counts.
 * Target: at most 1 µs per event on this machine; the ratio to the bare generator is context.
 */
import { createAgent } from '../src/agent.js'
import type { StrategyEvent } from '../src/core/contracts/events.js'
import type { Strategy } from '../src/core/contracts/strategy-types.js'
import { scriptedLLM } from '../src/testing/index.js'
import { heapAfterGC, median, megabytes, round, type BenchResult } from './stats.js'

const EVENTS = 1_000_000
const TRIALS = 3
/** Nanoseconds per event. */
const TARGET_NS = 1000

/** The event both paths yield: the runtime's hottest kind in a real run. */
const TOKEN: StrategyEvent = { type: 'answer-token', text: 'x' }

async function* bareEvents(count: number): AsyncGenerator<StrategyEvent> {
  for (let i = 0; i < count; i++) yield TOKEN
}

/** A strategy that does nothing but yield `count` events. */
export function floodStrategy(count: number): Strategy {
  return {
    name: 'flood',
    async *run() {
      for (let i = 0; i < count; i++) yield TOKEN
      return { reason: 'answered' }
    },
  }
}

function runtimeEvents(count: number, onEvent?: (index: number) => void): AsyncIterable<unknown> {
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: floodStrategy(count) })
  const run = agent.research('how much does the runtime cost per event?')
  if (!onEvent) return run
  return (async function* () {
    let index = 0
    for await (const event of run) {
      onEvent(index++)
      yield event
    }
  })()
}

/** Milliseconds to read every event of `events`, and how many there were. */
async function drain(events: AsyncIterable<unknown>): Promise<{ ms: number; count: number }> {
  const started = performance.now()
  let count = 0
  for await (const _ of events) count++
  return { ms: performance.now() - started, count }
}

export async function run(): Promise<BenchResult> {
  await drain(bareEvents(100_000))
  await drain(runtimeEvents(100_000))

  const bare: number[] = []
  const runtime: number[] = []
  let runtimeCount = 0
  for (let trial = 0; trial < TRIALS; trial++) {
    bare.push((await drain(bareEvents(EVENTS))).ms)
    const measured = await drain(runtimeEvents(EVENTS))
    runtime.push(measured.ms)
    runtimeCount = measured.count
  }

  // Untimed pass: does memory held by a run grow with the events it has relayed?
  const heap: number[] = []
  await drain(
    runtimeEvents(EVENTS, (index) => {
      if (index === 100_000 || index === 900_000) heap.push(heapAfterGC())
    }),
  )
  const heldGrowth = (heap[1] ?? Number.NaN) - (heap[0] ?? Number.NaN)

  const bareNs = (median(bare) * 1e6) / EVENTS
  const runtimeNs = (median(runtime) * 1e6) / EVENTS
  const ratio = runtimeNs / bareNs
  return {
    name: 'overhead',
    rows: [
      { path: 'bare async generator', events: EVENTS, medianMs: round(median(bare), 0), nsPerEvent: round(bareNs, 0) },
      {
        path: 'createAgent run',
        // run-start and run-end come on top of the strategy's events
        events: runtimeCount,
        medianMs: round(median(runtime), 0),
        nsPerEvent: round(runtimeNs, 0),
        ratioToBare: round(ratio, 2),
        target: `≤ ${TARGET_NS} ns`,
        met: runtimeNs <= TARGET_NS,
        heapGrowthMB_100kTo900k: megabytes(heldGrowth),
      },
    ],
  }
}
