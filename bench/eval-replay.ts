/**
 * Eval record/replay (issue 36): an eval of 100 questions recorded through a cassette against
 * loopback servers with realistic latencies (an OpenAI-compatible chat server: 250 ms to the
 * first token, then 20 ms a token; a SearXNG instance: 300 ms a search), then replayed from the
 * cassette with both servers gone.
 *
 * Two evals: 100 questions under scratchpad, and 20 under graph-reader at concurrency 4 (whose
 * prompts depend on the order its concurrent searches and model calls finish in: the replay
 * repeats the recorded order, test/eval/cassette-order.test.ts), the latter answered by a model
 * that plays every strategy's roles (test/support/any-strategy-model.ts).
 *
 * Target: each replay is >= 20x faster than its recording and gives identical per-row results
 * (every field but the wall time).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openai, searxng } from '../src/adapters/index.js'
import { type EvalEvent, type EvalRow, evaluate, openCassette, readResults } from '../src/eval/index.js'
import { estimateTokens } from '../src/core/util/text.js'
import type { AgentOptions } from '../src/index.js'
import { anyStrategyReply } from '../test/support/any-strategy-model.js'
import { extractiveReply } from '../test/support/extractive-model.js'
import { close, listen } from './loopback.js'
import { round } from './stats.js'

const QUESTIONS = 100
/** graph-reader's rows: fewer, each makes a dozen model calls. */
const GRAPH_QUESTIONS = 20
/** The model name that asks the server for `anyStrategyReply` (graph-reader's roles). */
const ANY_STRATEGY = 'any-strategy'
const FIRST_TOKEN_MS = 250
const TOKEN_MS = 20
const SEARCH_MS = 300
const CONCURRENCY = 8
const COLORS = ['crimson', 'teal', 'amber', 'violet', 'olive', 'indigo', 'coral', 'slate', 'ochre', 'jade']

const FACTS = Array.from({ length: QUESTIONS }, (_, n) => ({
  title: `Specimen ${n}`,
  url: `https://specimens.test/${n}`,
  snippet: `Specimen ${n} of the collection is ${COLORS[n % COLORS.length]} and was catalogued in ${1900 + n}.`,
}))
const ROWS: EvalRow[] = FACTS.map((fact, n) => ({
  id: `specimen-${n}`,
  question: n % 2 ? `In which year was specimen ${n} of the collection catalogued?` : `What color is specimen ${n} of the collection?`,
  answers: [n % 2 ? String(1900 + n) : (COLORS[n % COLORS.length] as string)],
  evidence: [{ text: fact.snippet }],
  tags: [n % 2 ? 'year' : 'color'],
}))

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The chat and search servers: replies from the extractive loopback model, streamed at a small model's pace. */
async function startServers(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname === '/search') {
      await wait(SEARCH_MS)
      const query = (url.searchParams.get('q') ?? '').toLowerCase()
      const number = /\b(\d+)\b/.exec(query)?.[1]
      const hits = FACTS.filter((fact) => number !== undefined && fact.title === `Specimen ${number}`).concat(FACTS.slice(0, 2))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ results: hits.map((hit) => ({ url: hit.url, title: hit.title, content: hit.snippet, score: 1 })) }))
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model: string
      messages: { role: string; content: string }[]
      response_format?: unknown
    }
    const system = body.messages.find((m) => m.role === 'system')?.content ?? ''
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? ''
    const any = body.model === ANY_STRATEGY ? anyStrategyReply({ system, prompt, ...(body.response_format ? { json: true } : {}) }) : undefined
    const text = any === undefined ? extractiveReply({ system, prompt }) : typeof any === 'string' ? any : any.text
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    await wait(FIRST_TOKEN_MS)
    // A word a token; JSON (graph-reader's replies, with few spaces) about four characters a token, as a model streams it.
    const pieces = (any === undefined ? text.match(/\s*\S+/g) : text.match(/[\s\S]{1,4}/g)) ?? []
    for (const piece of pieces) {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`)
      await wait(TOKEN_MS)
    }
    const usage = { prompt_tokens: estimateTokens(system + prompt), completion_tokens: pieces.length }
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`)
    res.write(`data: ${JSON.stringify({ choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`)
    res.end('data: [DONE]\n\n')
  })
  const url = await listen(server)
  return { url, stop: () => close(server) }
}

async function timed(events: AsyncIterable<EvalEvent>): Promise<{ ms: number; end: Extract<EvalEvent, { type: 'eval-end' }> | undefined }> {
  const started = performance.now()
  let end: Extract<EvalEvent, { type: 'eval-end' }> | undefined
  for await (const event of events) if (event.type === 'eval-end') end = event
  return { ms: performance.now() - started, end }
}

const agentAt = (url: string) => ({
  llm: openai({ baseURL: `${url}/v1`, model: 'gpt-4o-mini', apiKey: 'sk-bench-not-a-key-000000' }),
  search: searxng({ baseURL: url }),
  strategy: 'scratchpad',
})

const graphAgentAt = (url: string) => ({
  llm: openai({ baseURL: `${url}/v1`, model: ANY_STRATEGY, apiKey: 'sk-bench-not-a-key-000000' }),
  search: searxng({ baseURL: url }),
  strategy: 'graph-reader',
  graphReader: { concurrency: 4, maxSteps: 8, maxPagesPerNode: 0 },
})

/** Every per-row result but the wall time, in a stable order. */
const strip = (rows: Awaited<ReturnType<typeof readResults>>) =>
  rows
    .map(({ wallMs: _wallMs, ...rest }) => JSON.stringify(rest))
    .sort()
    .join('\n')

/** Records an eval of `rows` under one configuration through a cassette, then replays it with the servers closed. */
async function recordAndReplay(dir: string, name: string, rows: EvalRow[], agentAt: (url: string) => AgentOptions) {
  const cassetteDir = join(dir, 'cassette')
  const servers = await startServers()
  const recording = await timed(
    evaluate({
      dataset: rows,
      configs: [{ name, agent: agentAt(servers.url) }],
      out: join(dir, 'recorded'),
      concurrency: CONCURRENCY,
      cassette: openCassette(cassetteDir, { mode: 'record' }),
    }),
  )
  await servers.stop()
  // Replayed with the servers gone: a request the cassette lacked would fail the eval.
  const replaying = await timed(
    evaluate({
      dataset: rows,
      configs: [{ name, agent: agentAt(servers.url) }],
      out: join(dir, 'replayed'),
      concurrency: CONCURRENCY,
      cassette: openCassette(cassetteDir, { mode: 'replay' }),
    }),
  )
  const recordedRows = await readResults(join(dir, 'recorded'))
  const replayedRows = await readResults(join(dir, 'replayed'))
  const identical = recordedRows.length === rows.length && strip(recordedRows) === strip(replayedRows)
  // Where rows differ, the first few fields that do (for the results file).
  const byId = new Map(replayedRows.map((row) => [row.id, row]))
  const differences = recordedRows
    .flatMap((row) =>
      (Object.keys(row) as (keyof typeof row)[])
        .filter((key) => key !== 'wallMs' && JSON.stringify(row[key]) !== JSON.stringify(byId.get(row.id)?.[key]))
        .map((key) => `${row.id} ${key}: ${JSON.stringify(row[key])} recorded, ${JSON.stringify(byId.get(row.id)?.[key])} replayed`),
    )
    .slice(0, 5)
  const speedup = recording.ms / replaying.ms
  return {
    row: {
      configuration: name,
      questions: rows.length,
      concurrency: CONCURRENCY,
      'record ms': round(recording.ms),
      'replay ms': round(replaying.ms),
      speedup: round(speedup, 1),
      'identical rows': identical,
      'replay end': replaying.end?.reason ?? 'none',
      accuracy: round(recording.end?.summary[0]?.accuracy ?? 0, 2),
      target: '>= 20x, identical',
      met: speedup >= 20 && identical && replaying.end?.reason === 'done',
    },
    details: {
      recordedEnd: recording.end?.reason,
      replayError: replaying.end?.error,
      modelCalls: recordedRows.reduce((sum, row) => sum + row.llmCalls, 0),
      ...(differences.length ? { differences } : {}),
    },
  }
}

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-eval-replay-'))
  try {
    const scratchpad = await recordAndReplay(join(dir, 'scratchpad'), 'scratchpad/gpt-4o-mini', ROWS, agentAt)
    const graph = await recordAndReplay(join(dir, 'graph-reader'), 'graph-reader/concurrency-4', ROWS.slice(0, GRAPH_QUESTIONS), graphAgentAt)
    return {
      name: 'eval-replay',
      rows: [scratchpad.row, graph.row],
      details: { firstTokenMs: FIRST_TOKEN_MS, tokenMs: TOKEN_MS, searchMs: SEARCH_MS, scratchpad: scratchpad.details, graphReader: graph.details },
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
