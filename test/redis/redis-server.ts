/**
 * A real `redis-server` for one test file: started on a free loopback port in a temp dir, stopped
 * by PID. Without the binary, tests skip with a visible notice locally and fail in CI.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server'

/** Whether the tests can run; prints why not, and throws in CI where skipping is not allowed. */
export function redisAvailable(): boolean {
  if (existsSync(REDIS_SERVER)) return true
  const message = `redis-server is missing at ${REDIS_SERVER}: install it with \`apt-get install -y redis-server\` (.ci/run does)`
  if (process.env.CI) throw new Error(message)
  console.warn(`[SKIPPED] ${message}; the Redis tests are skipped.`)
  return false
}

export interface RedisServer {
  readonly port: number
  readonly url: string
  readonly pid: number | undefined
  /** SIGKILL (or SIGTERM), then wait for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Start again on the same port and dir (the data survives with `persistent`). */
  start(): Promise<void>
  /** Stop, and remove the temp dir. */
  close(): Promise<void>
}

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * `persistent`: every write is fsynced to an append-only file, so a restart keeps the queue and
 * the logs (what production should run; see docs/scale-out.md).
 */
export async function startRedis({ persistent = false }: { persistent?: boolean } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'laconic-redis-'))
  const port = await freePort()
  let child: ChildProcess | undefined
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'notice']
  args.push(...(persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']))

  const start = async () => {
    const proc = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    child = proc
    let output = ''
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes('Ready to accept connections')) resolve()
      }
      proc.stdout.on('data', onData)
      proc.stderr.on('data', onData)
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)))
      proc.once('error', reject)
    })
    // Keep draining so the pipe never fills.
    proc.stdout.resume()
    proc.stderr.resume()
  }

  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const proc = child
    child = undefined
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return
    const exited = new Promise((resolve) => proc.once('exit', resolve))
    proc.kill(signal)
    await exited
  }

  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid
    },
    stop,
    start,
    async close() {
      await stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
