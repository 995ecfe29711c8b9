/**
 * Benchmark: what checkpoints cost. (1) Saving one graph-reader-sized checkpoint (40 facts, a
 * frontier of 20 nodes, 100 titles): `fileCheckpoints` (temp file, fsync, rename) against
 * `memoryCheckpoints`. (2) A strategy of 20,000 steps that checkpoints after each, with the
 * memory store and with none: what a checkpoint adds per step, store included.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent } from '../src/agent.js'
import { CHECKPOINT_VERSION, type Checkpoint, type CheckpointStore, memoryCheckpoints } from '../src/core/contracts/checkpoint.js'
import { zeroCost } from '../src/core/contracts/run-cost.js'
import type { Strategy } from '../src/core/contracts/strategy-types.js'
import { fileCheckpoints } from '../src/node/index.js'
import { scriptedLLM } from '../src/testing/index.js'
import { type BenchResult, median, percentile, round } from './stats.js'

const SAVES = 200
const STEPS = 20_000
/** A step of a real run takes seconds of model time: a save must be negligible beside it. */
const FILE_SAVE_TARGET_MS = 20
const RUNTIME_TARGET_MS = 0.1

function sample(runId: string, seq: number): Checkpoint {
  const facts = Array.from({ length: 40 }, (_, i) => ({
    id: `f${i}`,
    text: `Fact number ${i} says something specific about the question.`,
    sources: [`https://site${i % 7}.example/page/${i}`],
    queryId: `q${i % 9}`,
  }))
  const frontier = Array.from({ length: 20 }, (_, i) => ({ query: `follow-up query ${i}`, parentId: `q${i % 5}`, depth: 1 + (i % 3) }))
  const titles = Array.from({ length: 100 }, (_, i) => [`https://site${i % 7}.example/page/${i}`, `Title ${i}`])
  return {
    version: CHECKPOINT_VERSION,
    runId,
    question: 'What does a graph-reader-sized checkpoint cost to save?',
    strategy: 'graph-reader',
    options: { graphReader: { maxSteps: 8 } },
    input: {},
    status: 'running',
    state: {
      keyElements: ['a', 'b'],
      explore: { frontier, visited: frontier.map((n) => n.query), searched: [], readUrls: [], titles, explored: 8, answered: false },
    },
    cost: zeroCost(),
    seq,
    facts,
    knowledge: '',
    ids: { q: 9, f: 40 },
    savedAt: Date.now(),
  }
}

async function timeSaves(store: CheckpointStore): Promise<number[]> {
  const ms: number[] = []
  for (let i = 0; i < SAVES; i++) {
    const checkpoint = sample('bench-run', i)
    const started = performance.now()
    await store.save(checkpoint)
    ms.push(performance.now() - started)
  }
  return ms
}

const stepper: Strategy = {
  name: 'stepper',
  async *run(_question, ctx) {
    for (let i = 0; i < STEPS; i++) {
      yield { type: 'plan', text: `step ${i}` }
      yield* ctx.checkpoint({ step: i, notes: 'a few hundred bytes of state '.repeat(10) })
    }
    return { reason: 'answered' }
  },
}

async function timeRun(checkpoints?: CheckpointStore): Promise<number> {
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: stepper })
  const started = performance.now()
  await agent.research('steps', checkpoints ? { checkpoints } : {}).result
  return performance.now() - started
}

export async function run(): Promise<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-bench-cp-'))
  try {
    const size = JSON.stringify(sample('bench-run', 0), null, 2).length
    const file = await timeSaves(fileCheckpoints(dir))
    const memory = await timeSaves(memoryCheckpoints())
    const bare: number[] = []
    const saving: number[] = []
    for (let trial = 0; trial < 5; trial++) {
      bare.push(await timeRun())
      saving.push(await timeRun(memoryCheckpoints()))
    }
    const perStep = Math.max(0, median(saving) - median(bare)) / STEPS
    return {
      name: 'checkpoints',
      rows: [
        {
          what: `save, fileCheckpoints (${round(size / 1024, 1)} KB, fsync)`,
          median_ms: round(median(file), 3),
          p95_ms: round(percentile(file, 95), 3),
          target: `median <= ${FILE_SAVE_TARGET_MS} ms`,
          met: median(file) <= FILE_SAVE_TARGET_MS,
        },
        { what: 'save, memoryCheckpoints', median_ms: round(median(memory), 3), p95_ms: round(percentile(memory, 95), 3), target: '', met: '' },
        {
          what: `added per step by a checkpoint (memory store; ${STEPS} steps: ${round(median(bare))} ms without, ${round(median(saving))} ms with)`,
          median_ms: round(perStep, 4),
          p95_ms: '',
          target: `<= ${RUNTIME_TARGET_MS} ms`,
          met: perStep <= RUNTIME_TARGET_MS,
        },
      ],
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
