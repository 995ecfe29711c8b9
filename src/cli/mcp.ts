/**
 * `laconic mcp [--http PORT [--idle-ms MS]] [--sessions DIR] [flags]`: the `research` tool of
 * `laconic-research/mcp` for MCP clients (Claude Desktop, editors), with the agent the usual
 * flags configure. Over stdio by default (stdout carries the protocol, so notices go to stderr);
 * with `--http PORT`, Streamable HTTP on 127.0.0.1 at `/mcp`, refusing any request addressed to
 * another host or sent from another origin, since every run spends the configured keys. With
 * `--sessions DIR`, conversations are kept in DIR, so a restarted server (or another one) goes on.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ResearchResult } from '../core/contracts/result.js'
import type { McpServerOptions } from '../mcp/index.js'
import { fileSessions } from '../node/file-sessions.js'
import { hostAllowed } from '../wire/allowed-host.js'
import { parseCliArgs } from './args.js'
import { strategyAgents } from './build-agent.js'
import type { CliIO } from './io.js'
import { EXIT } from './exit-codes.js'
import { count } from './plural.js'
import { idleExpiry } from './idle-expiry.js'
import { loadOptional } from './optional-package.js'
import { UsageError } from './usage-error.js'

const LOOPBACK = '127.0.0.1'
/** Sessions of the HTTP transport held at once; each holds an MCP server. */
const MAX_SESSIONS = 32
/** How long an HTTP session may go without a request before it is closed (`--idle-ms`): 15 minutes. */
export const DEFAULT_IDLE_MS = 900_000

export const MCP_HELP = `laconic mcp: research as an MCP tool

  laconic mcp [flags]              serve over stdio (for Claude Desktop, editors)
  laconic mcp --http PORT [flags]  serve Streamable HTTP on http://127.0.0.1:PORT/mcp
  --sessions DIR                   keep conversations (conversationId) in DIR, across restarts;
                                   without it, in memory (over --http, per MCP session)
  --idle-ms MS                     --http: close a session after MS without a request in flight
                                   (default ${DEFAULT_IDLE_MS}, 15 minutes); at most ${MAX_SESSIONS} sessions at once

The flags that choose the model, search and strategy are those of \`laconic\` (see laconic --help).
`

/** Runs `laconic mcp` until the client leaves (stdio) or Ctrl-C; resolves with the exit code. */
export async function mcpCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { httpPort, sessionsDir, idleMs, rest } = takeMcpFlags(argv)
  if (idleMs !== undefined && httpPort === undefined) throw new UsageError('--idle-ms closes idle HTTP sessions: give it with --http PORT')
  const command = parseCliArgs(rest)
  if (command.kind === 'help') {
    io.stdout.write(MCP_HELP)
    return EXIT.answered
  }
  if (command.kind === 'version') throw new UsageError('laconic mcp takes no --version; run laconic --version')
  const options = command.options
  if (options.words.length > 0 || options.prompt !== undefined) {
    throw new UsageError(`laconic mcp takes no question (the client asks them); got "${options.words.join(' ') || options.prompt}"`)
  }
  if (options.servePort !== undefined) throw new UsageError('laconic mcp and --serve are two servers: choose one')

  const mcp = await loadMcp()
  const agentFor = await strategyAgents(options, io)
  const serverOptions: McpServerOptions = {
    agent: agentFor,
    onRunEnd: (question, result) => io.stderr.write(`laconic mcp: ${summary(question, result)}\n`),
    // One store for every MCP session (and every process given the same folder).
    ...(sessionsDir !== undefined ? { sessions: fileSessions(sessionsDir) } : {}),
  }
  if (httpPort === undefined) return serveStdio(mcp, serverOptions, io)
  return serveHttp(mcp, serverOptions, httpPort, idleMs ?? DEFAULT_IDLE_MS, io)
}

/** `--http PORT`, `--sessions DIR` and `--idle-ms MS` (or `--flag=VALUE`), taken out so the shared parser sees only its own flags. */
function takeMcpFlags(argv: readonly string[]): { httpPort: number | undefined; sessionsDir: string | undefined; idleMs: number | undefined; rest: string[] } {
  const rest: string[] = []
  let httpPort: number | undefined
  let sessionsDir: string | undefined
  let idleMs: number | undefined
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string
    if (token === '--') {
      rest.push(...argv.slice(i))
      break
    }
    const flag = (['--http', '--sessions', '--idle-ms'] as const).find((name) => token === name || token.startsWith(`${name}=`))
    if (!flag) {
      rest.push(token)
      continue
    }
    const value = token === flag ? argv[++i] : token.slice(flag.length + 1)
    if (flag === '--sessions') {
      if (value === undefined || value === '' || value.startsWith('-')) {
        throw new UsageError(`--sessions takes the folder to keep conversations in; got ${value ? `"${value}"` : 'nothing'}`)
      }
      sessionsDir = value
      continue
    }
    if (flag === '--idle-ms') {
      if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < 1) {
        throw new UsageError(
          `--idle-ms takes the milliseconds a session may stay idle (a whole number >= 1); got ${value === undefined ? 'nothing' : `"${value}"`}`,
        )
      }
      idleMs = Number(value)
      continue
    }
    if (value === undefined || !/^\d+$/.test(value) || Number(value) > 65535) {
      throw new UsageError(`--http takes a port from 0 to 65535 (0 picks a free one); got ${value === undefined ? 'nothing' : `"${value}"`}`)
    }
    httpPort = Number(value)
  }
  return { httpPort, sessionsDir, idleMs, rest }
}

type McpModules = Awaited<ReturnType<typeof loadMcp>>

/** The MCP SDK is an optional peer dependency: loaded only here, with a clear error when missing. */
async function loadMcp() {
  const [{ createMcpServer }, { StdioServerTransport }, { StreamableHTTPServerTransport }] = await loadOptional('laconic mcp', 'mcp', () =>
    Promise.all([import('../mcp/index.js'), import('@modelcontextprotocol/sdk/server/stdio.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]),
  )
  return { createMcpServer, StdioServerTransport, StreamableHTTPServerTransport }
}

function summary(question: string, result: ResearchResult): string {
  const q = question.length > 80 ? `${question.slice(0, 79)}…` : question
  const error = result.error ? ` (${result.error.message.replace(/\s+/g, ' ')})` : ''
  return `"${q}" ${result.reason}${error} · $${result.cost.total.toFixed(4)} · ${count(result.cost.llmCalls, 'model call')} · ${count(result.cost.searches, 'search', 'searches')}`
}

async function serveStdio(mcp: McpModules, serverOptions: McpServerOptions, io: CliIO): Promise<number> {
  const server = await mcp.createMcpServer(serverOptions)
  const transport = new mcp.StdioServerTransport(process.stdin, process.stdout)
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve()
  })
  await server.connect(transport)
  io.stderr.write('laconic mcp: serving the research tool over stdio\n')
  // The client closing our stdin is how a stdio session ends.
  const leave = () => void server.close()
  process.stdin.once('end', leave)
  io.interrupt.addEventListener('abort', leave, { once: true })
  await closed
  return io.interrupt.aborted ? EXIT.interrupted : EXIT.answered
}

async function serveHttp(mcp: McpModules, serverOptions: McpServerOptions, port: number, idleMs: number, io: CliIO): Promise<number> {
  type Transport = InstanceType<McpModules['StreamableHTTPServerTransport']>
  const sessions = new Map<string, Transport>()
  // A client that went away without closing its sessions must not hold the server's slots: an idle one is closed (its client starts a new one on the 404).
  const idle = idleExpiry(idleMs, (id) => {
    io.stderr.write(`laconic mcp: closed session ${id} after ${idleMs} ms without a request\n`)
    void sessions.get(id)?.close()
  })

  const handle = async (req: IncomingMessage, res: ServerResponse, ownPort: number): Promise<void> => {
    if (!sameOrigin(req, ownPort)) return text(res, 403, 'refused: requests must be addressed to this loopback server from its own origin')
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp') return text(res, 404, 'the MCP endpoint is /mcp')
    const sessionId = req.headers['mcp-session-id']
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId)
      if (!transport) return jsonRpcError(res, 404, -32001, 'session not found: initialize a new one')
      // A request (a tool call streaming its progress too) is activity; the notification stream a client keeps open (GET) is not.
      if (req.method !== 'GET') res.once('close', idle.busy(sessionId))
      return transport.handleRequest(req, res)
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'no session: start with an initialize request (POST)')
    if (sessions.size >= MAX_SESSIONS) return jsonRpcError(res, 503, -32000, `too many sessions (${MAX_SESSIONS}); close one`)
    const transport: Transport = new mcp.StreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport)
        idle.add(id)
        res.once('close', idle.busy(id))
      },
    })
    transport.onclose = () => {
      if (!transport.sessionId) return
      sessions.delete(transport.sessionId)
      idle.remove(transport.sessionId)
    }
    await (await mcp.createMcpServer(serverOptions)).connect(transport)
    await transport.handleRequest(req, res)
  }

  const server = createServer((req, res) => {
    const { port: ownPort } = server.address() as AddressInfo
    handle(req, res, ownPort).catch(() => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'internal error')
      else res.destroy()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, LOOPBACK, () => resolve())
  })
  const { port: bound } = server.address() as AddressInfo
  io.stderr.write(`laconic mcp: Streamable HTTP on http://${LOOPBACK}:${bound}/mcp (Ctrl-C to stop)\n`)
  if (!io.interrupt.aborted) await new Promise<void>((resolve) => io.interrupt.addEventListener('abort', () => resolve(), { once: true }))
  idle.clear()
  await Promise.all([...sessions.values()].map((transport) => transport.close()))
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return EXIT.interrupted
}

/**
 * Only requests a local client addresses to this server: the `Host` must name loopback (against
 * DNS rebinding), and a browser's `Sec-Fetch-Site` and `Origin`, when sent, must say it is this
 * server's own page.
 */
function sameOrigin(req: IncomingMessage, port: number): boolean {
  if (!hostAllowed(req.headers.host, LOOPBACK)) return false
  // A browser marks a request from another site; MCP clients that are not browsers send neither header.
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    const url = new URL(origin)
    return url.protocol === 'http:' && hostAllowed(url.host, LOOPBACK) && url.port === String(port)
  } catch {
    return false
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${body}\n`)
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}
