/**
 * Loopback `node:http` servers for adapter tests: no network, exact bytes, chunked as told.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

export interface Loopback {
  /** `http://127.0.0.1:PORT` */
  url: string
  requests: RecordedRequest[]
  /** Resolves when the server saw a request's connection close before its response ended. */
  closedEarly: Promise<void>
  close(): Promise<void>
}

export type Handler = (req: RecordedRequest, res: ServerResponse, attempt: number) => void | Promise<void>

export async function startLoopback(handler: Handler): Promise<Loopback> {
  const requests: RecordedRequest[] = []
  let sawEarlyClose!: () => void
  const closedEarly = new Promise<void>((resolve) => (sawEarlyClose = resolve))
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') }
    requests.push(recorded)
    res.on('close', () => {
      if (!res.writableFinished) sawEarlyClose()
    })
    res.socket?.setNoDelay(true)
    await handler(recorded, res, requests.length)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closedEarly,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Write `pieces` one at a time, letting each reach the socket before the next. */
export async function writePieces(res: ServerResponse, pieces: ReadonlyArray<Uint8Array | string>): Promise<void> {
  for (const piece of pieces) {
    if (res.destroyed) return
    await new Promise<void>((resolve) => res.write(piece, () => resolve()))
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Cut `bytes` at the given offsets (any order, duplicates and out-of-range ignored). */
export function cutAt(bytes: Uint8Array, offsets: ReadonlyArray<number>): Uint8Array[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < bytes.length))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let start = 0
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(start, cut))
    start = cut
  }
  return pieces
}

/** A `serve(handler)` for one test file: every server it starts is closed after each test. */
export function loopbacks(): (handler: Handler) => Promise<Loopback> {
  let open: Loopback[] = []
  afterEach(async () => {
    await Promise.all(open.map((server) => server.close()))
    open = []
  })
  return async (handler) => {
    const server = await startLoopback(handler)
    open.push(server)
    return server
  }
}
