/**
 * The `node:http` shell of a Web-standard handler: each `IncomingMessage` becomes a `Request`
 * (its body streamed, its signal aborted when the client leaves), and the `Response` is written
 * back with socket backpressure; a client that leaves cancels the body (an SSE reader then stops).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { Readable } from 'node:stream'

/** A `fetch`-style handler, told the client's address: `createChatHandler`'s and `createResearchHandler`'s fit. */
export type WebHandler = (request: Request, client: { address?: string | undefined }) => Promise<Response>

/** A `node:http` server (not yet listening) serving `handler`, answering oversized headers with `431`. */
export function createHandlerServer(handler: WebHandler): Server {
  const server = createServer(nodeListener(handler))
  answerOversizedHeaders(server)
  return server
}

/**
 * A `node:http` request listener serving a Web-standard `handler`:
 * `createServer(nodeListener(createChatHandler({ agent })))`. The request's signal aborts when
 * the client goes away, and the response body streams with the socket's backpressure.
 */
export function nodeListener(handler: WebHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(handler, req, res).catch(() => res.destroy())
  }
}

async function serve(handler: WebHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const left = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) left.abort(new DOMException('the client left', 'AbortError'))
  })
  let request: Request
  try {
    request = toRequest(req, left.signal)
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end('malformed request\n')
    return
  }
  const response = await handler(request, { address: req.socket.remoteAddress })
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (!response.body || req.method === 'HEAD') {
    await response.body?.cancel()
    res.end()
    return
  }
  const reader = response.body.getReader()
  const stop = () => void reader.cancel(new Error('the client disconnected')).catch(() => {})
  res.once('close', stop)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || res.destroyed) break
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve))
    }
  } finally {
    res.off('close', stop)
    if (!res.destroyed) res.end()
  }
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers()
  for (let index = 0; index + 1 < req.rawHeaders.length; index += 2) headers.append(req.rawHeaders[index] as string, req.rawHeaders[index + 1] as string)
  // The path only: the origin is not the client's to choose (the guard reads the Host header itself).
  const path = req.url?.startsWith('/') ? req.url : `/${req.url ?? ''}`
  const method = req.method ?? 'GET'
  const init: RequestInit & { duplex?: 'half' } = { method, headers, signal }
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>
    init.duplex = 'half'
  }
  return new Request(`http://localhost${path}`, init)
}

/**
 * A request line or headers past Node's `maxHeaderSize` (16 KB) get a `431` the client can
 * read, instead of a reset: the rest of what it sends is drained for a while before the socket
 * closes (closing with unread bytes would send a TCP reset over the answer).
 */
export function answerOversizedHeaders(server: Server, drainMs = 5_000): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return void socket.destroy()
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.end(plain(408, 'Request Timeout', 'the request took too long to arrive'))
    if (error.code !== 'HPE_HEADER_OVERFLOW') return void socket.end(plain(400, 'Bad Request', 'malformed request'))
    socket.end(plain(431, 'Request Header Fields Too Large', 'the request line and headers must fit in 16 KB: send long input in a POST body'))
    socket.resume()
    const drained = setTimeout(() => socket.destroy(), drainMs)
    drained.unref()
    socket.once('close', () => clearTimeout(drained))
  })
}

function plain(status: number, reason: string, message: string): string {
  const body = `${message}\n`
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
}
