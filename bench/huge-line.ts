/**
 * Issue 29: an OpenAI stream with one huge line, never terminated, against the 4,000,000-character
 * line cap. The body is served by an injected `fetch` in chunks of a fixed size (no network, so
 * the figure is the reader's alone): what the heap and the array buffers hold above the baseline
 * (after forced GCs at a quarter, half, three quarters and 95% of the cap: held, not garbage) before
 * the stream ends `bad-response`. Target: at most 4 bytes per character of the cap, whatever the
 * chunk size. The peak with garbage (sampled every 64 KB, no GC) is shown for reference.
 */
import { openai } from '../src/adapters/llm/index.js'
import { heapAfterGC, megabytes } from './stats.js'

const CAP = 4_000_000
const SENT_CHARS = 2 * CAP
const TARGET_BYTES = 4 * CAP

const used = () => {
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

/** A `fetch` answering with an event stream whose second line never ends, sent `chunkBytes` at a time. */
function hugeLineFetch(chunkBytes: number, unit: string, sample: (chars: number) => void): typeof globalThis.fetch {
  const encoder = new TextEncoder()
  const head = encoder.encode('data: {"choices":[{"index":0,"delta":{"content":"Hello"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"')
  const unitBytes = encoder.encode(unit).length
  const filler = encoder.encode(unit.repeat(Math.ceil(chunkBytes / unitBytes) + 1)).subarray(0, chunkBytes)
  return async () => {
    let sent = 0
    let sampled = 0
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent - sampled >= 65_536) {
            sampled = sent
            sample(sent / unitBytes)
          }
          if (sent === 0) controller.enqueue(head.slice())
          else if (sent > SENT_CHARS * 4) controller.close()
          // A fresh copy per chunk, as a socket gives.
          else controller.enqueue(filler.slice())
          sent += chunkBytes
        },
      },
      { highWaterMark: 0 },
    )
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } })
  }
}

async function measure(chunkBytes: number, unit: string): Promise<{ held: number; peak: number; error: string }> {
  heapAfterGC()
  const base = used()
  let peak = 0
  let held = 0
  const checkpoints = [0.25, 0.5, 0.75, 0.95].map((share) => share * CAP)
  const sample = (chars = 0) => {
    peak = Math.max(peak, used() - base)
    if (chars >= (checkpoints[0] ?? Number.POSITIVE_INFINITY)) {
      checkpoints.shift()
      heapAfterGC()
      held = Math.max(held, used() - base)
    }
  }
  const model = openai({ baseURL: 'http://bench.invalid/v1', apiKey: 'k', model: 'm', maxRetries: 0, fetch: hugeLineFetch(chunkBytes, unit, sample) })
  let error = 'none'
  try {
    for await (const _ of model.stream({ prompt: 'q' }));
  } catch (caught) {
    error = (caught as { code?: string }).code ?? String(caught)
  }
  return { held, peak, error }
}

export async function run() {
  const rows: Record<string, unknown>[] = []
  for (const [unit, what] of [
    ['x', 'ASCII'],
    ['é', 'two-byte (é)'],
  ] as const) {
    for (const chunkBytes of [16, 1024, 65_536]) {
      const { held, peak, error } = await measure(chunkBytes, unit)
      rows.push({
        line: what,
        'chunk bytes': chunkBytes,
        ends: error,
        'held MB (after GC)': megabytes(held),
        'peak MB (with garbage)': megabytes(peak),
        target: `≤ ${megabytes(TARGET_BYTES)} MB held`,
        met: error === 'bad-response' && held <= TARGET_BYTES,
      })
    }
  }
  return { name: 'huge-line', rows }
}
