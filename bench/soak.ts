/**
 * Benchmark 8: 1,000 scratchpad runs in one process, through one long-lived agent (scripted
 * models, mock search, no delays). Heap after forced GC is taken after a 50-run warm-up and
 * again at the end. Target: growth ≤ 10%.
 * The testing kit records every call (`.calls`, `.signals`); those recordings are cleared after
 * each run, so only what the library itself keeps can grow.
 */
import { createAgent } from '../src/agent.js'
import { mockSearch, scriptedLLM } from '../src/testing/index.js'
import { resultsFor } from './flat-prompts.js'
import { heapAfterGC, megabytes, round, type BenchResult } from './stats.js'

const RUNS = 1_000
const WARMUP_RUNS = 50
const TARGET_GROWTH = 0.1

/** Relative heap growth from `start` to `end` bytes (0.1 = 10%). */
export function growth(start: number, end: number): number {
  return (end - start) / start
}

export async function run(): Promise<BenchResult & { details: unknown }> {
  if (Number.isNaN(heapAfterGC())) throw new Error('the soak needs node --expose-gc (npm run bench passes it)')
  // Two searches, then an answer: each run makes 3 planner, 2 synthesizer and 1 finalizer calls.
  const planner = scriptedLLM({ replies: (_, i) => (i < 2 ? `Action: Search\nQuery: soak topic part ${i + 1}` : 'Action: Answer') })
  const synthesizer = scriptedLLM({
    replies: (req) => `Notes: ${req.prompt.slice(0, 200)} The parts agree on the main points (https://example.com/soak). `.repeat(4),
  })
  const finalizer = scriptedLLM({ replies: () => 'The parts agree on the main points, as the notes show (https://example.com/soak). '.repeat(3) })
  const search = mockSearch({ results: (query) => resultsFor(query) })
  const agent = createAgent({ models: { planner, synthesizer, finalizer }, search, scratchpad: { maxSteps: 5 } })

  let events = 0
  const oneRun = async (n: number) => {
    const research = agent.research(`Soak question number ${n}: what do the parts say?`)
    for await (const _ of research) events++
    const result = await research.result
    if (result.reason !== 'answered' || !result.answer) throw new Error(`soak run ${n} ended with ${result.reason}`)
    for (const recording of [planner.calls, synthesizer.calls, finalizer.calls, search.calls, search.signals]) recording.length = 0
  }

  for (let n = 0; n < WARMUP_RUNS; n++) await oneRun(n)
  const start = heapAfterGC()
  events = 0
  const samples: { afterRuns: number; heapMB: number }[] = []
  const started = performance.now()
  for (let n = 1; n <= RUNS; n++) {
    await oneRun(n)
    if (n % 250 === 0 && n < RUNS) samples.push({ afterRuns: n, heapMB: megabytes(heapAfterGC()) })
  }
  const seconds = (performance.now() - started) / 1000
  const end = heapAfterGC()
  samples.push({ afterRuns: RUNS, heapMB: megabytes(end) })
  const grown = growth(start, end)
  return {
    name: 'soak',
    rows: [
      {
        runs: RUNS,
        eventsRead: events,
        runsPerSec: Math.round(RUNS / seconds),
        heapStartMB: megabytes(start),
        heapEndMB: megabytes(end),
        growthPercent: round(grown * 100, 1),
        target: `≤ ${TARGET_GROWTH * 100}%`,
        met: grown <= TARGET_GROWTH,
      },
    ],
    details: { heapAfterGC: samples },
  }
}
