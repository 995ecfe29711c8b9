/** Child processes for the scale-out tests: fixture workers and `laconic serve` web nodes, stopped by PID. */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))

export interface Child {
  readonly process: ChildProcess
  /** Everything it printed so far (stdout and stderr). */
  output(): string
  /** Resolves with the first match of `pattern` in its output. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>
  kill(signal?: NodeJS.Signals): Promise<void>
}

export function startChild(args: readonly string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void; reject: (e: Error) => void }[] = []
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = output.match(waiter.pattern)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  }
  const onData = (text: string) => {
    output += text
    check()
  }
  child.stdout.setEncoding('utf8').on('data', onData)
  child.stderr.setEncoding('utf8').on('data', onData)
  child.on('exit', (code, signal) => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the process exited (${code ?? signal}) before printing ${waiter.pattern}:\n${output}`))
  })
  return {
    process: child,
    output: () => output,
    waitFor(pattern) {
      const match = output.match(pattern)
      if (match) return Promise.resolve(match)
      if (child.exitCode !== null || child.signalCode !== null) return Promise.reject(new Error(`the process had exited:\n${output}`))
      return new Promise((resolve, reject) => waiters.push({ pattern, resolve, reject }))
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill(signal)
      await exited
    },
  }
}

export interface WebNode extends Child {
  url: string
  token: string
}

/** `laconic serve --redis URL --port 0 --queue NAME`, once it listens; its page's token read from GET /. */
export async function startWebNode(redisUrl: string, queue: string, env: Record<string, string> = {}): Promise<WebNode> {
  const child = startChild(['src/cli/main.ts', 'serve', '--redis', redisUrl, '--port', '0', '--queue', queue], env)
  const [, url] = (await child.waitFor(/web node on (http:\/\/127\.0\.0\.1:\d+)\//)) as [string, string]
  const page = await (await fetch(`${url}/`)).text()
  const token = /name="laconic-token" content="([^"]+)"/.exec(page)?.[1]
  if (!token) throw new Error('the page carries no token')
  return { ...child, url, token }
}

export function startWorker(redisUrl: string, queue: string, env: Record<string, string> = {}): Child {
  return startChild(['test/redis/fixtures/worker-process.ts'], { REDIS_URL: redisUrl, QUEUE: queue, ...env })
}

/** POST /runs on a web node, as its page does. */
export async function submit(node: WebNode, question: string): Promise<string> {
  const response = await fetch(`${node.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-laconic-token': node.token },
    body: JSON.stringify({ question }),
  })
  if (response.status !== 201) throw new Error(`POST /runs: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { runId: string }).runId
}
