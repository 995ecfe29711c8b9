/**
 * Benchmark 3: token latency end to end. A loopback OpenAI-compatible server streams the
 * answer; the library reads it with the `openai` adapter (a scratchpad run with prior
 * knowledge, so it answers at once), relays it with `sseResponse` from a loopback node:http
 * server, and a `fromSSE` client reads it back. Each token carries an id; the upstream server
 * records when it wrote each id and the client when it received it (one process, one clock).
 * Target: median (client receives − server sent) ≤ 2 ms.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { openai } from '../src/adapters/llm/index.js'
import { createAgent } from '../src/agent.js'
import { fromSSE, sseResponse } from '../src/streams/index.js'
import { scriptedLLM } from '../src/testing/index.js'
import { close, listen } from './loopback.js'
import { max, median, percentile, round, type BenchResult } from './stats.js'

const RUNS = 20
const WARMUP_RUNS = 2
const TOKENS_PER_RUN = 50
/** Gap between tokens: about 200 tokens/s, faster than most models stream. */
const TOKEN_GAP_MS = 5
const TARGET_MEDIAN_MS = 2

/** The text of token `id`: the id travels inside the answer, so the client can name it. */
export const tokenText = (id: number): string => `w${id} `

/** The token ids in a piece of streamed answer text (a piece may hold several tokens). */
export function tokenIds(text: string): number[] {
  return [...text.matchAll(/w(\d+)/g)].map((m) => Number(m[1]))
}

/** One OpenAI chat-completions SSE frame carrying `content`. */
export function openaiFrame(content: string): string {
  return `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The upstream model server: streams TOKENS_PER_RUN tokens per request, stamping each send. */
function upstreamServer(sentAt: Map<number, number>) {
  let nextId = 0
  return createServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (let i = 0; i < TOKENS_PER_RUN; i++) {
        const id = nextId++
        sentAt.set(id, performance.now())
        res.write(openaiFrame(tokenText(id)))
        await sleep(TOKEN_GAP_MS)
      }
      res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 40, completion_tokens: TOKENS_PER_RUN } })}\n\n`)
      res.end('data: [DONE]\n\n')
    })
  })
}

/** Writes a Web `Response` (what `sseResponse` returns) to a node:http response. */
async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  res.on('close', () => void reader.cancel().catch(() => {}))
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    res.write(value)
  }
  res.end()
}

export async function run(): Promise<BenchResult> {
  const sentAt = new Map<number, number>()
  const upstream = upstreamServer(sentAt)
  const upstreamURL = await listen(upstream)
  const agent = createAgent({
    models: {
      planner: scriptedLLM({ replies: () => 'Action: Answer' }),
      finalizer: openai({ baseURL: `${upstreamURL}/v1`, model: 'bench-model', maxRetries: 0 }),
    },
    strategy: 'scratchpad',
  })
  const relay = createServer((_req: IncomingMessage, res: ServerResponse) => {
    const researchRun = agent.research('What does the team already know?', { knowledge: 'The team knows everything it needs (https://example.com).' })
    void sendResponse(sseResponse(researchRun), res)
  })
  const relayURL = await listen(relay)

  const all: number[] = []
  const first: number[] = []
  try {
    for (let r = 0; r < WARMUP_RUNS + RUNS; r++) {
      const latencies: number[] = []
      for await (const event of fromSSE(`${relayURL}/research`)) {
        if (event.type !== 'answer-token') continue
        const receivedAt = performance.now()
        for (const id of tokenIds(event.text)) latencies.push(receivedAt - (sentAt.get(id) ?? Number.NaN))
      }
      if (latencies.length !== TOKENS_PER_RUN) throw new Error(`run ${r} received ${latencies.length} of ${TOKENS_PER_RUN} tokens`)
      if (r < WARMUP_RUNS) continue
      all.push(...latencies)
      first.push(latencies[0] as number)
    }
  } finally {
    await close(relay)
    await close(upstream)
  }

  const summary = (tokens: string, samples: number[]) => {
    const mid = median(samples)
    return {
      tokens,
      samples: samples.length,
      medianMs: round(mid, 3),
      p99Ms: round(percentile(samples, 99), 3),
      maxMs: round(max(samples), 3),
      target: `median ≤ ${TARGET_MEDIAN_MS} ms`,
      met: mid <= TARGET_MEDIAN_MS,
    }
  }
  return {
    name: 'first-token',
    rows: [summary(`every token (${RUNS} runs × ${TOKENS_PER_RUN}, ${TOKEN_GAP_MS} ms apart)`, all), summary('first token of each run', first)],
  }
}
