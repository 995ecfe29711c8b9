/**
 * `laconic worker` and `laconic serve`: the two processes of the scale-out on Redis. A worker
 * runs research jobs with the agent the usual flags configure; a web node takes runs from
 * browsers and streams any run's events. Both stop on Ctrl-C (a worker finishes its runs first;
 * a second Ctrl-C exits at once, and the runs move to another worker).
 */
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import type { CliOptions } from '../args.js'
import { parseCliArgs } from '../args.js'
import { strategyAgents } from '../build-agent.js'
import type { CliIO } from '../io.js'
import { EXIT } from '../exit-codes.js'
import { UsageError } from '../usage-error.js'
import { loadOptional } from '../optional-package.js'
import { count } from '../plural.js'

export const SCALE_OUT_COMMANDS = ['worker', 'serve'] as const
const LOOPBACK = '127.0.0.1'

export function isScaleOutCommand(argv: readonly string[]): boolean {
  return (SCALE_OUT_COMMANDS as readonly string[]).includes(argv[0] ?? '')
}

interface ScaleOutFlags {
  redis: string
  host: string
  port: number
  concurrency: number
  queue: string | undefined
  /** How soon a dead worker's runs move on (worker only): BullMQ's `lockDuration` and `stalledInterval`; the worker's defaults when absent. */
  lockMs: number | undefined
  stallMs: number | undefined
  /** The flags left for the agent (worker only). */
  rest: string[]
}

/** Takes the scale-out flags out of argv; what is left configures the agent as for a question. */
export function parseScaleOutFlags(command: string, argv: readonly string[], env: CliIO['env']): ScaleOutFlags {
  const { values, tokens } = parseArgs({
    args: [...argv],
    options: {
      redis: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      concurrency: { type: 'string' },
      queue: { type: 'string' },
      'lock-ms': { type: 'string' },
      'stall-ms': { type: 'string' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const mine = new Set(['redis', 'host', 'port', 'concurrency', 'queue', 'lock-ms', 'stall-ms'])
  const rest: string[] = []
  for (const token of tokens) {
    if (token.kind === 'option' && mine.has(token.name)) continue
    if (token.kind === 'option') rest.push(token.inlineValue ? `${token.rawName}=${token.value ?? ''}` : token.rawName)
    else if (token.kind === 'positional') rest.push(token.value)
    else rest.push('--')
  }
  for (const token of tokens) {
    if (token.kind === 'option' && mine.has(token.name) && typeof values[token.name] !== 'string') throw new UsageError(`--${token.name} needs a value`)
  }
  const text = (name: string) => values[name] as string | undefined
  const redis = text('redis') ?? env.REDIS_URL
  if (!redis) throw new UsageError(`laconic ${command} needs --redis URL (or REDIS_URL), e.g. --redis redis://127.0.0.1:6379`)
  if (!/^rediss?:\/\//.test(redis)) throw new UsageError(`--redis must be a redis:// or rediss:// URL; got "${redis}"`)
  if (command === 'serve' && rest.length > 0) throw new UsageError(`laconic serve takes --redis, --port, --host and --queue only; got ${rest.join(' ')}`)
  if (command === 'worker' && text('port') !== undefined) throw new UsageError('laconic worker serves nothing: --port is for laconic serve')
  if (command === 'serve' && (text('lock-ms') ?? text('stall-ms')) !== undefined)
    throw new UsageError('laconic serve runs nothing: --lock-ms and --stall-ms are for laconic worker')
  return {
    redis,
    host: text('host') ?? LOOPBACK,
    port: whole('port', text('port'), 0, 65_535) ?? 3000,
    concurrency: whole('concurrency', text('concurrency'), 1, 10_000) ?? 1,
    queue: text('queue'),
    lockMs: whole('lock-ms', text('lock-ms'), 1_000, 3_600_000),
    stallMs: whole('stall-ms', text('stall-ms'), 100, 3_600_000),
    rest,
  }
}

function whole(flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}; got "${value}"`)
  return n
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'redis'
  }
}

function loadRedis() {
  return loadOptional('the scale-out', 'redis', () => import('../../redis/index.js'))
}

export async function runScaleOut(io: CliIO): Promise<number> {
  const [command, ...argv] = io.argv as [string, ...string[]]
  const flags = parseScaleOutFlags(command, argv, io.env)
  return command === 'worker' ? worker(flags, io) : serve(flags, io)
}

async function worker(flags: ScaleOutFlags, io: CliIO): Promise<number> {
  const parsed = parseCliArgs(flags.rest)
  if (parsed.kind !== 'run') throw new UsageError('laconic worker: see laconic --help')
  const options: CliOptions = parsed.options
  if (options.words.length > 0 || options.prompt !== undefined) throw new UsageError('laconic worker takes its questions from the queue, not the command line')
  // One agent per strategy a run asks for; unknown names fail that run (createAgent says why).
  const agentFor = await strategyAgents(options, io)
  const { createResearchWorker } = await loadRedis()
  const running = createResearchWorker({
    connection: flags.redis,
    agent: agentFor,
    concurrency: flags.concurrency,
    ...(flags.queue ? { name: flags.queue } : {}),
    bullmq: {
      ...(flags.lockMs !== undefined ? { lockDuration: flags.lockMs } : {}),
      ...(flags.stallMs !== undefined ? { stalledInterval: flags.stallMs } : {}),
    },
  })
  await running.ready()
  io.stderr.write(`laconic: worker on ${shown(flags.redis)}, ${count(flags.concurrency, 'run')} at once (Ctrl-C to stop)\n`)
  await untilAborted(io.interrupt)
  io.stderr.write(`laconic: stopping; waiting for ${count(running.running, 'run')} to end\n`)
  await running.close()
  return EXIT.interrupted
}

/**
 * A web node passes runs to the queue, where they wait for a worker: it bounds the runs it has
 * in flight (each followed by one Redis connection until it ends), not runs per client, since
 * behind a load balancer every client has the balancer's address.
 */
const WEB_NODE_LIMITS = { maxActiveRuns: 64, maxActiveRunsPerClient: 64 }

async function serve(flags: ScaleOutFlags, io: CliIO): Promise<number> {
  const { redisRuns } = await loadRedis()
  const { createResearchHandler } = await import('../../server/handler.js')
  const { createHandlerServer } = await import('../../node/node-listener.js')
  // Nodes behind one load balancer share a token (a page from one node posts to another).
  const token = io.env.LACONIC_WEB_TOKEN
  if (token !== undefined && token.length < 16) throw new UsageError('LACONIC_WEB_TOKEN must be at least 16 characters (a long random string)')
  const runs = redisRuns({ connection: flags.redis, ...(flags.queue ? { name: flags.queue } : {}) })
  const server = createHandlerServer(
    createResearchHandler({
      runs,
      limits: WEB_NODE_LIMITS,
      ...(token ? { token } : {}),
      ...(flags.host === LOOPBACK || flags.host === 'localhost' ? { host: flags.host } : {}),
    }),
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(flags.port, flags.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const base = `http://${flags.host.includes(':') ? `[${flags.host}]` : flags.host}:${port}`
  io.stderr.write(`laconic: web node on ${base}/ (runs on ${shown(flags.redis)}; Ctrl-C to stop)\n`)
  await untilAborted(io.interrupt)
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await runs.close()
  return EXIT.interrupted
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}
