/**
 * Eval record/replay (issue 36): an eval of 100 questions recorded through a cassette against
 * loopback servers with realistic latencies (an OpenAI-compatible chat server: 250 ms to the
 * first token, then 20 ms a token; a SearXNG instance: 300 ms a search), then replayed from the
 * cassette with both servers gone.
 *
 * Target: the replay is >= 20x faster than the recording and gives identical per-row results
 * (every field but the wall time).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openai, searxng } from '../src/adapters/index.js'
import { type EvalEvent, type EvalRow, evaluate, openCassette, readResults } from '../src/eval/index.js'
import { estimateTokens } from '../src/core/util/text.js'
import { extractiveReply } from '../test/support/extractive-model.js'
import { close, listen } from './loopback.js'
import { round } from './stats.js'

const QUESTIONS = 100
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
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content: string }[] }
    const system = body.messages.find((m) => m.role === 'system')?.content ?? ''
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? ''
    const text = extractiveReply({ system, prompt })
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    await wait(FIRST_TOKEN_MS)
    const pieces = text.match(/\s*\S+/g) ?? []
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

export async function run() {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-eval-replay-'))
  const cassetteDir = join(dir, 'cassette')
  try {
    const servers = await startServers()
    const recording = await timed(
      evaluate({
        dataset: ROWS,
        configs: [{ name: 'scratchpad/gpt-4o-mini', agent: agentAt(servers.url) }],
        out: join(dir, 'recorded'),
        concurrency: CONCURRENCY,
        cassette: openCassette(cassetteDir, { mode: 'record' }),
      }),
    )
    await servers.stop()
    // Replayed with the servers gone: a request the cassette lacked would fail the eval.
    const replaying = await timed(
      evaluate({
        dataset: ROWS,
        configs: [{ name: 'scratchpad/gpt-4o-mini', agent: agentAt(servers.url) }],
        out: join(dir, 'replayed'),
        concurrency: CONCURRENCY,
        cassette: openCassette(cassetteDir, { mode: 'replay' }),
      }),
    )
    const strip = (rows: Awaited<ReturnType<typeof readResults>>) =>
      rows
        .map(({ wallMs: _wallMs, ...rest }) => JSON.stringify(rest))
        .sort()
        .join('\n')
    const recordedRows = await readResults(join(dir, 'recorded'))
    const replayedRows = await readResults(join(dir, 'replayed'))
    const identical = recordedRows.length === QUESTIONS && strip(recordedRows) === strip(replayedRows)
    const speedup = recording.ms / replaying.ms
    const accuracy = recording.end?.summary[0]?.accuracy ?? 0
    return {
      name: 'eval-replay',
      rows: [
        {
          questions: QUESTIONS,
          concurrency: CONCURRENCY,
          'record ms': round(recording.ms),
          'replay ms': round(replaying.ms),
          speedup: round(speedup, 1),
          'identical rows': identical,
          'replay end': replaying.end?.reason ?? 'none',
          accuracy: round(accuracy, 2),
          target: '>= 20x, identical',
          met: speedup >= 20 && identical && replaying.end?.reason === 'done',
        },
      ],
      details: { firstTokenMs: FIRST_TOKEN_MS, tokenMs: TOKEN_MS, searchMs: SEARCH_MS, recordedEnd: recording.end?.reason, replayError: replaying.end?.error },
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
