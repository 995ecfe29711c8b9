/**
 * `--serve [PORT]`: research runs over Server-Sent Events on loopback, one run per request:
 * `GET /research?q=QUESTION` (EventSource-friendly). A client that disconnects aborts its run.
 * Bound to 127.0.0.1 and without CORS, because every run spends the configured keys.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Agent } from '../index.js'
import { pipeSSE } from '../streams/index.js'
import { EXIT } from './exit-codes.js'
import type { Output } from './render/index.js'

export interface ServeOptions {
  port: number
  stderr: Output
  /** Stops the server (Ctrl-C). */
  interrupt: AbortSignal
}

function reply(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  res.end(`${JSON.stringify(body)}\n`)
}

export function handleRequest(agent: Agent, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost')
  if (req.method !== 'GET' || url.pathname !== '/research') {
    reply(res, 404, { error: 'not found', usage: 'GET /research?q=QUESTION streams a research run as Server-Sent Events' })
    return
  }
  const question = url.searchParams.get('q')?.trim()
  if (!question) {
    reply(res, 400, { error: 'the question is empty', usage: 'GET /research?q=QUESTION' })
    return
  }
  void pipeSSE(agent.research(question), res).catch(() => res.destroy())
}

/** Serves until `interrupt` fires; resolves with the exit code. */
export async function serve(agent: Agent, options: ServeOptions): Promise<number> {
  const server = createServer((req, res) => handleRequest(agent, req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  options.stderr.write(`laconic: serving on http://127.0.0.1:${port}/research?q=QUESTION (Ctrl-C to stop)\n`)
  if (!options.interrupt.aborted) {
    await new Promise<void>((resolve) => options.interrupt.addEventListener('abort', () => resolve(), { once: true }))
  }
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return EXIT.interrupted
}
