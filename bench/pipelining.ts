/**
 * Pipelining: graph-reader's wall time when each query starts its node as it closes in a
 * streaming reply, against the same run waiting for whole replies (`pipelining: false`).
 *
 * The G8 workload of bench/graph-reader.ts (4 planned queries, each answer check adds one more:
 * 8 nodes; 500 ms per model call, 300 ms per search, no fetch), with models that stream their
 * replies evenly over the call's 500 ms, a 4-character token at a time, in the order the
 * prompts' schemas ask for (the plan's key elements and queries before its goal and steps; a
 * check's verdict and queries before what is missing), so queries close through the reply.
 *
 * The streaming critical path comes from the same replies: a root's search starts when its
 * query closes in the plan; its extractor when the search ends; a child's search when its
 * query closes in the parent's answer check; the answer after the last node. It ignores the
 * concurrency limit and assumes a node's model calls need nothing but its own search (no
 * wait for the whole plan or the parent's whole check). With `concurrency` slots there is a
 * second floor: the 16 node model calls spread over the slots, after the first search ends,
 * then the answer. The larger of the two is a floor no schedule can beat.
 * Target (issue 20): at concurrency 4, ≤ 0.8× the unpipelined wall time.
 */
import { createAgent, type LLMChunk, type LLMProvider, type LLMRequest } from '../src/index.js'
import { graphReader } from '../src/strategies/graph-reader/index.js'
import { extractorSystem, finalizerSystem, neighborSystem, plannerSystem } from '../src/strategies/graph-reader/prompts.js'
import { createQueryStream } from '../src/strategies/shared/query-stream.js'
import { mockSearch, sleep } from '../src/testing/index.js'
import { MODEL_MS, queryIn, ROOTS, SEARCH_MS, WORKLOAD } from './graph-reader.js'
import { median, round } from './stats.js'

/** Characters per streamed token: ~4 is a token of English. */
const TOKEN_CHARS = 4
/** Runs per mode at the target's concurrency (median); the other rows are context, one run each. */
const RUNS = 3

const PLAN = JSON.stringify({
  key_elements: ['the four topics', 'what they share'],
  queries: ROOTS,
  goal: 'Establish what the four topics have in common, with a source for each claim.',
  steps: ['Search each topic', 'Read what each source says about the others', 'Compare the findings and name what they share'],
})
const checkReply = (query: string) =>
  JSON.stringify({
    answerable: false,
    queries: WORKLOAD[query] ?? [],
    missing: `How ${query} relates to the other topics, and a source that says so.`,
  })
const extractReply = (query: string) => JSON.stringify({ facts: [{ text: `A fact found by searching ${query}`, source: 1 }] })

/** A reply cut into the tokens it streams as. */
export function tokens(text: string, size = TOKEN_CHARS): string[] {
  const pieces: string[] = []
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size))
  return pieces
}

/**
 * When each query closes in a reply streamed evenly over `callMs` (its last token arriving at
 * `callMs`), read by the same incremental reader the strategy uses.
 */
export function closeTimes(reply: string, callMs: number, lists: readonly string[] = ['queries']): Map<string, number> {
  const pieces = tokens(reply)
  const stream = createQueryStream({ lists })
  const closed = new Map<string, number>()
  pieces.forEach((piece, i) => {
    for (const query of stream.push(piece)) if (!closed.has(query)) closed.set(query, (callMs * (i + 1)) / pieces.length)
  })
  return closed
}

/**
 * The streaming critical path of a plan and its query tree: each node's search starts when its
 * query closes in its parent's reply (the plan's, or the parent's answer check), its extractor
 * when the search ends, its check right after; the answer follows the last node.
 */
export function streamingBound(args: {
  plan: string
  check: (query: string) => string
  children: (query: string) => readonly string[]
  modelMs: number
  searchMs: number
}): number {
  const { modelMs, searchMs } = args
  /** When the node whose search starts at `start` ends, with its whole subtree. */
  const finish = (query: string, start: number): number => {
    const checkStart = start + searchMs + modelMs
    const closes = closeTimes(args.check(query), modelMs)
    const subtree = args.children(query).map((child) => finish(child, checkStart + (closes.get(child) ?? modelMs)))
    return Math.max(checkStart + modelMs, ...subtree)
  }
  const roots = closeTimes(args.plan, modelMs)
  return Math.max(...[...roots].map(([query, at]) => finish(query, at))) + modelMs
}

/**
 * A model that streams each reply evenly over `callMs`: token i of n arrives at (i+1)/n of the
 * call, on the clock (so timer slack does not add up over a reply); the caller's signal stops it.
 */
function streamingLLM(reply: (req: LLMRequest) => string, callMs: number): LLMProvider & { inFlight: { current: number; peak: number } } {
  const inFlight = { current: 0, peak: 0 }
  return {
    local: true,
    inFlight,
    async *stream(req): AsyncGenerator<LLMChunk> {
      inFlight.current++
      inFlight.peak = Math.max(inFlight.peak, inFlight.current)
      try {
        const started = performance.now()
        const text = reply(req)
        const pieces = tokens(text)
        for (const [i, piece] of pieces.entries()) {
          await sleep(started + (callMs * (i + 1)) / pieces.length - performance.now(), req.signal)
          yield { type: 'text', text: piece }
        }
        yield { type: 'usage', inputTokens: Math.ceil(req.prompt.length / 4), outputTokens: pieces.length }
      } finally {
        inFlight.current--
      }
    },
  }
}

function replyFor(req: LLMRequest): string {
  switch (req.system) {
    case plannerSystem:
      return PLAN
    case extractorSystem:
      return extractReply(queryIn(req.prompt))
    case neighborSystem:
      return checkReply(queryIn(req.prompt))
    case finalizerSystem:
      return 'The topics share a common origin [1].'
    default:
      return ''
  }
}

async function runOnce(concurrency: number, pipelining: boolean) {
  const llm = streamingLLM(replyFor, MODEL_MS)
  const search = mockSearch({ delayMs: SEARCH_MS, results: (q) => [{ title: q, url: `https://example.com/${encodeURIComponent(q)}`, snippet: `About ${q}.` }] })
  const agent = createAgent({ llm, search, pipelining, strategy: graphReader({ concurrency, maxSteps: 8 }) })
  const started = performance.now()
  let nodes = 0
  let exploreCalls = 0
  for await (const event of agent.research('What do the topics have in common?')) {
    if (event.type === 'query') nodes++
    if (event.type === 'llm-call' && (event.role === 'extractor' || event.role === 'neighbor')) exploreCalls++
  }
  const ranWorkload = [...search.calls].sort().join('|') === Object.keys(WORKLOAD).sort().join('|')
  return { ms: performance.now() - started, nodes, exploreCalls, ranWorkload, modelPeak: llm.inFlight.peak }
}

/**
 * What `concurrency` slots allow at best: every node's two model calls spread over the slots,
 * starting no sooner than the first search can end, then the answer.
 */
export function slotBound(args: { plan: string; nodes: number; concurrency: number; modelMs: number; searchMs: number }): number {
  const firstSearchEnds = Math.min(...closeTimes(args.plan, args.modelMs).values()) + args.searchMs
  return firstSearchEnds + (2 * args.nodes * args.modelMs) / args.concurrency + args.modelMs
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[] }> {
  const critical = streamingBound({ plan: PLAN, check: checkReply, children: (q) => WORKLOAD[q] ?? [], modelMs: MODEL_MS, searchMs: SEARCH_MS })
  const nodes = Object.keys(WORKLOAD).length
  const rows: Record<string, unknown>[] = []
  for (const concurrency of [2, 4, 8]) {
    const piped: Awaited<ReturnType<typeof runOnce>>[] = []
    const whole: Awaited<ReturnType<typeof runOnce>>[] = []
    // Alternating, so a slow moment of a shared machine falls on both.
    for (let i = 0; i < (concurrency === 4 ? RUNS : 1); i++) {
      piped.push(await runOnce(concurrency, true))
      whole.push(await runOnce(concurrency, false))
    }
    const pipedMs = median(piped.map((r) => r.ms))
    const wholeMs = median(whole.map((r) => r.ms))
    const ratio = pipedMs / wholeMs
    const last = piped.at(-1)!
    const slots = slotBound({ plan: PLAN, nodes, concurrency, modelMs: MODEL_MS, searchMs: SEARCH_MS })
    rows.push({
      concurrency,
      pipelinedMs: Math.round(pipedMs),
      unpipelinedMs: Math.round(wholeMs),
      ratio: round(ratio),
      criticalPathMs: Math.round(critical),
      ratioToCriticalPath: round(pipedMs / critical),
      slotBoundMs: Math.round(slots),
      // The best any schedule could do here, against the unpipelined run: how far the target is reachable.
      bestRatio: round(Math.max(critical, slots) / wholeMs),
      nodes: last.nodes,
      ranWorkload: piped.every((r) => r.ranWorkload) && whole.every((r) => r.ranWorkload),
      modelCallsPerNode: round(last.exploreCalls / last.nodes),
      modelPeak: Math.max(...piped.map((r) => r.modelPeak)),
      ...(concurrency === 4 && { target: '≤ 0.8× unpipelined', met: ratio <= 0.8 }),
    })
  }
  return { name: 'pipelining', rows }
}
