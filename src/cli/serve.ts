/**
 * `--serve [PORT]`: the live research page (`createLiveServer` of `laconic-research/node`) with the
 * agent the other flags configure. Bound to 127.0.0.1, checking the `Host` header, without
 * CORS, and starting runs only for its own page (POST with the page's token), because every
 * run spends the configured keys. With `--corpus`, the page opens a run's `file:` sources in the
 * server's plain-text view, read from the corpus.
 */
import type { AddressInfo } from 'node:net'
import type { Agent } from '../index.js'
import { createLiveServer } from '../node/index.js'
import type { LiveServerOptions } from '../node/live-server.js'
import { EXIT } from './exit-codes.js'
import type { Output } from './render/index.js'

const LOOPBACK = '127.0.0.1'
/** How long open streams get to receive their run-end before their connections are cut. */
const CLOSE_GRACE_MS = 2000

export interface ServeOptions {
  port: number
  stderr: Output
  /** Stops the server (Ctrl-C). */
  interrupt: AbortSignal
  /** Reads a run's `file:` sources for the page's text view (the local corpus with `--corpus`). */
  readSource?: LiveServerOptions['readSource']
  /** Where runs save their checkpoints (`--checkpoint-dir`): the page then answers a paused run. */
  checkpoints?: LiveServerOptions['checkpoints']
  /** `--approve-plan` and `--tool-approval`: every run pauses at its plan, or at each tool call, for the page to answer. */
  review?: LiveServerOptions['review']
}

/** Serves until `interrupt` fires; resolves with the exit code. */
export async function serve(agent: Agent, options: ServeOptions): Promise<number> {
  const { readSource, checkpoints, review } = options
  const server = createLiveServer({ agent, host: LOOPBACK, readSource, checkpoints, review })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, LOOPBACK, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const base = `http://${LOOPBACK}:${port}`
  options.stderr.write(`laconic: live page on ${base}/ (runs start from that page only; Ctrl-C to stop)\n`)
  if (!options.interrupt.aborted) {
    await new Promise<void>((resolve) => options.interrupt.addEventListener('abort', () => resolve(), { once: true }))
  }
  // Closing aborts the runs: each open page gets its run-end (aborted) before the connections go.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  const late = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
  await closed
  clearTimeout(late)
  return EXIT.interrupted
}
