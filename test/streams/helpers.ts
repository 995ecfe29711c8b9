import type { ResearchEvent } from '../../src/index.js'

/**
 * The wire text of one event as docs/streams.md shows it, written out here rather than taken from
 * the encoder under test: `id` is its `seq`, `event` its type, `data` the event as one line of JSON.
 */
export function eventFrame(event: ResearchEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of iterable) out.push(item)
  return out
}

export async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

export function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}

/** A promise with its resolver outside, for gating a source on what a consumer saw. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

/**
 * A hand-made run: yields the events, waits at `pauseBefore[seq]` if given, and records
 * whether it was aborted or returned early, as a ResearchRun would be. `pausedAt(seq)`
 * settles once the run is waiting at that pause, so a test can act at that exact point.
 */
export function scriptedRun(events: readonly ResearchEvent[], pauseBefore: Record<number, Promise<void>> = {}) {
  const controller = new AbortController()
  const state = { aborted: false, returned: false, abortReason: undefined as unknown, pulled: 0 }
  const arrivals = new Map<number, ReturnType<typeof gate>>()
  const arrival = (seq: number) => {
    const known = arrivals.get(seq)
    if (known) return known
    const arrived = gate()
    arrivals.set(seq, arrived)
    return arrived
  }
  async function* generate(): AsyncGenerator<ResearchEvent> {
    try {
      for (const event of events) {
        const pause = pauseBefore[event.seq]
        if (pause) {
          arrival(event.seq).open()
          await Promise.race([pause, abortedPromise(controller.signal)])
        }
        if (controller.signal.aborted) return
        state.pulled += 1
        yield event
      }
    } finally {
      state.returned = true
    }
  }
  const iterator = generate()
  return {
    state,
    pausedAt(seq: number): Promise<void> {
      if (!(seq in pauseBefore)) throw new Error(`scriptedRun has no pause before seq ${seq}`)
      return arrival(seq).promise
    },
    [Symbol.asyncIterator]: () => iterator,
    abort(reason?: unknown) {
      state.aborted = true
      state.abortReason = reason
      controller.abort(reason)
    },
  }
}

function abortedPromise(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
