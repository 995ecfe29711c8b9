/**
 * Benchmark 7: one run broadcast to 1,000 SSE clients over loopback. Each request is
 * subscribed to one `broadcast` as it arrives and streamed with `pipeSSE` (as a server answers
 * an SSE request); the run starts once all 1,000 are there, so its first events go to every
 * client at once, then it streams tokens at a steady pace. Each client (node:http) notes when
 * each piece of its body arrives; once every stream is over, each is parsed (a light SSE parser):
 * an event's lag is the arrival of the piece that completed it − the event's `time` stamp.
 * Target: every event delivered to every client, p99 lag ≤ 100 ms.
 *
 * Two rows: the clients in a worker thread (the target: the server gets its own core, as it
 * would facing real clients), and the clients on the server's own thread (context: parsing
 * 1,000 streams competes with the server for one event loop). Besides the overall lag, each row
 * gives the p99 of the first 3 events (the start, when they go to every client at once) and of
 * the rest, so a slow start shows apart from a slow machine.
 *
 * A third row is what the library itself costs per delivery, without sockets: the same
 * broadcast into 1,000 `pipeSSE` responses whose `write` does nothing, in CPU time (which other
 * work on the machine barely changes). Target: ≤ 1 µs per delivery; a socket write costs ~13 µs.
 */
import { Agent, createServer, get } from 'node:http'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import { createAgent } from '../src/agent.js'
import type { ResearchEvent } from '../src/core/contracts/events.js'
import type { Strategy } from '../src/core/contracts/strategy-types.js'
import { broadcast, pipeSSE } from '../src/streams/index.js'
import { scriptedLLM } from '../src/testing/index.js'
import { close, listen } from './loopback.js'
import { max, mean, median, percentile, round, type BenchResult } from './stats.js'

const CLIENTS = 1_000
const TOKENS = 150
/** 100 tokens a second: a fast model. */
const TOKEN_GAP_MS = 10
const TARGET_P99_MS = 100
/** The events a client's start burst covers: run-start and the first tokens. */
const START_EVENTS = 3

/** The library's own CPU per delivery (one event to one client), sockets left out. */
const LIBRARY_TARGET_NS = 1000
const LIBRARY_TOKENS = 2_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A run that streams an answer at a steady pace, as a finalizer would. */
function pacedAnswer(tokens: number, gapMs: number): Strategy {
  return {
    name: 'paced-answer',
    async *run() {
      let text = ''
      for (let i = 0; i < tokens; i++) {
        const token = `token${i} `
        text += token
        yield { type: 'answer-token', text: token }
        await sleep(gapMs)
      }
      yield { type: 'answer', text, citations: [] }
      return { reason: 'answered' }
    },
  }
}

/**
 * Splits buffered SSE text into the `data` of each complete frame (multi-line data joined by
 * `\n`) and the unfinished rest. Enough for toSSE's own output: LF line ends, no BOM.
 */
export function takeSSEData(buffer: string): { data: string[]; rest: string } {
  const data: string[] = []
  let start = 0
  for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n', start)) {
    const lines = buffer
      .slice(start, end)
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    if (lines.length > 0) data.push(lines.join('\n'))
    start = end + 2
  }
  return { data, rest: buffer.slice(start) }
}

interface ClientLog {
  lags: number[]
  seqs: number[]
  sawRunEnd: boolean
}

/** A piece of a response body and when it arrived. */
type Pieces = Array<{ at: number; text: string }>

/**
 * One SSE client: resolves with its body's pieces and when each arrived, once the server closes
 * the stream. Parsing waits until every client is done: 1,000 simulated clients share one
 * thread, where real ones each have their own, so parsing on arrival would make the last client
 * of a round wait for the other 999 clients' parsing, a lag no real client has.
 */
function connect(url: string, agent: Agent): Promise<Pieces> {
  return new Promise((resolve, reject) => {
    const pieces: Pieces = []
    const request = get(url, { agent, headers: { accept: 'text/event-stream' } }, (response) => {
      response.setEncoding('utf8')
      response.on('data', (text: string) => pieces.push({ at: Date.now(), text }))
      response.on('end', () => resolve(pieces))
      response.on('error', reject)
    })
    request.on('error', reject)
  })
}

/** What a client saw: an event's lag is from its `time` stamp to the arrival of the piece that completed it. */
function readPieces(pieces: Pieces): ClientLog {
  const log: ClientLog = { lags: [], seqs: [], sawRunEnd: false }
  let buffer = ''
  for (const { at, text } of pieces) {
    const { data, rest } = takeSSEData(buffer + text)
    buffer = rest
    for (const payload of data) {
      if (payload === '[DONE]') continue
      const event = JSON.parse(payload) as ResearchEvent
      log.lags.push(at - event.time)
      log.seqs.push(event.seq)
      if (event.type === 'run-end') log.sawRunEnd = true
    }
  }
  return log
}

/** The clients, on this thread or a worker: resolves with every client's log. */
function connectAll(url: string, where: 'worker' | 'server thread'): Promise<ClientLog[]> {
  if (where === 'server thread') return connectClients(url)
  const worker = new Worker(new URL(import.meta.url), { workerData: { fanoutClientsOf: url } })
  return new Promise<ClientLog[]>((resolve, reject) => {
    worker.once('message', (logs: ClientLog[]) => resolve(logs))
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`the client worker exited (${code}) before reporting`)))
  }).finally(() => void worker.terminate())
}

async function connectClients(url: string): Promise<ClientLog[]> {
  const clientAgent = new Agent({ keepAlive: false, maxSockets: CLIENTS })
  try {
    const bodies = await Promise.all(Array.from({ length: CLIENTS }, () => connect(`${url}/events`, clientAgent)))
    return bodies.map(readPieces)
  } finally {
    clientAgent.destroy()
  }
}

// In the worker: connect, then hand the logs back to the server's thread.
const clientsOf = (workerData as { fanoutClientsOf?: string } | null)?.fanoutClientsOf
if (!isMainThread && clientsOf !== undefined) parentPort?.postMessage(await connectClients(clientsOf))

async function measure(where: 'worker' | 'server thread'): Promise<Record<string, unknown>> {
  let arrivedCount = 0
  let allArrived!: () => void
  const arrived = new Promise<void>((resolve) => (allArrived = resolve))
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: pacedAnswer(TOKENS, TOKEN_GAP_MS) })
  // The run starts once every client is there, as a run whose model has not answered yet would:
  // its first events then go to 1,000 subscribers at once, the burst this bench is about.
  async function* startedOnceAllArrived() {
    await arrived
    yield* agent.research('broadcast me')
  }
  const hub = broadcast(startedOnceAllArrived())
  // Each client is subscribed as it arrives, the way a server answers an SSE request.
  const server = createServer((_req, res) => {
    void pipeSSE(hub.subscribe(), res)
    if (++arrivedCount === CLIENTS) allArrived()
  })
  const url = await listen(server)

  const everyLog = connectAll(url, where)
  try {
    // A client that fails to connect rejects here instead of leaving the server waiting forever.
    await Promise.race([arrived, everyLog])
    const started = performance.now()
    const results = await everyLog
    const wallMs = performance.now() - started
    // run-start, the tokens, answer, run-end (cost events do not occur: no model or search call)
    const expected = TOKENS + 3
    const complete = results.filter((log) => log.sawRunEnd && log.seqs.length === expected && log.seqs.every((seq, i) => seq === i)).length
    const lags = results.flatMap((log) => log.lags)
    const p99 = percentile(lags, 99)
    // The start (the first events, which wait behind every client's headers) apart from the rest.
    const startLags = results.flatMap((log) => log.lags.filter((_, i) => (log.seqs[i] ?? 0) < START_EVENTS))
    const steadyLags = results.flatMap((log) => log.lags.filter((_, i) => (log.seqs[i] ?? 0) >= START_EVENTS))
    const allDelivered = complete === CLIENTS
    return {
      clients: `${CLIENTS} (${where})`,
      eventsPerClient: expected,
      tokenGapMs: TOKEN_GAP_MS,
      clientsComplete: complete,
      allDelivered,
      p50LagMs: median(lags),
      p99LagMs: p99,
      maxLagMs: max(lags),
      target: where === 'worker' ? `all delivered, p99 ≤ ${TARGET_P99_MS} ms` : 'context',
      met: where === 'worker' ? allDelivered && p99 <= TARGET_P99_MS : '—',
      meanLagMs: round(mean(lags), 1),
      [`p99LagFirst${START_EVENTS}Ms`]: percentile(startLags, 99),
      p99LagRestMs: percentile(steadyLags, 99),
      // context: the run itself lasts about TOKENS × TOKEN_GAP_MS
      wallMs: Math.round(wallMs),
      deliveriesPerSec: Math.round((lags.length / wallMs) * 1000),
    }
  } finally {
    await close(server)
  }
}

/** A run that makes one token per turn of the event loop, as fast as the loop turns. */
function tokenPerTurn(tokens: number): Strategy {
  return {
    name: 'token-per-turn',
    async *run() {
      for (let i = 0; i < tokens; i++) {
        yield { type: 'answer-token', text: `token${i} ` }
        await new Promise((resolve) => setImmediate(resolve))
      }
      return { reason: 'answered' }
    },
  }
}

/** CPU nanoseconds per delivery: one run broadcast to CLIENTS `pipeSSE`s whose responses discard what they get. */
async function libraryNsPerDelivery(): Promise<{ ns: number; writesPerDelivery: number }> {
  let writes = 0
  const response = { writeHead: () => undefined, write: () => ++writes > 0, end: () => undefined, on: () => undefined, once: () => undefined }
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const agent = createAgent({ llm: scriptedLLM({ replies: [] }), strategy: tokenPerTurn(LIBRARY_TOKENS) })
  const hub = broadcast(
    (async function* () {
      await released
      yield* agent.research('what does a delivery cost?')
    })(),
  )
  const piped = Array.from({ length: CLIENTS }, () => pipeSSE(hub.subscribe(), response, { heartbeatMs: 0 }))
  writes = 0
  const before = process.cpuUsage()
  release()
  await Promise.all(piped)
  const cpu = process.cpuUsage(before)
  // run-start, the tokens, run-end
  const deliveries = CLIENTS * (LIBRARY_TOKENS + 2)
  return { ns: ((cpu.user + cpu.system) * 1000) / deliveries, writesPerDelivery: writes / deliveries }
}

async function measureLibrary(): Promise<Record<string, unknown>> {
  await libraryNsPerDelivery() // warm-up
  const trials = [await libraryNsPerDelivery(), await libraryNsPerDelivery(), await libraryNsPerDelivery()]
  const ns = Math.round(median(trials.map((trial) => trial.ns)))
  return {
    clients: `${CLIENTS} (no sockets: the library's cost)`,
    eventsPerClient: LIBRARY_TOKENS + 2,
    nsPerDelivery: ns,
    writesPerDelivery: round(trials[0]?.writesPerDelivery ?? Number.NaN, 3),
    target: `≤ ${LIBRARY_TARGET_NS} ns CPU per delivery`,
    met: ns <= LIBRARY_TARGET_NS,
  }
}

export async function run(): Promise<BenchResult> {
  return { name: 'fanout', rows: [await measure('worker'), await measure('server thread'), await measureLibrary()] }
}
