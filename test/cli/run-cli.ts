/** Runs the CLI from source as a child process (`node --import tsx src/cli/main.ts ...`). */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))

export interface CliOutcome {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunCliOptions {
  env?: Record<string, string>
  /** Sends SIGINT once stdout contains this text. */
  interruptWhenStdout?: string
  /** Called with each stderr chunk (e.g. to find the port `--serve` chose). */
  onStderr?: (all: string, child: { kill(signal: NodeJS.Signals): boolean }) => void
  entry?: string
}

export function runCli(args: readonly string[], options: RunCliOptions = {}): Promise<CliOutcome> {
  const entry = options.entry ?? 'src/cli/main.ts'
  const nodeArgs = entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry]
  // No proxy or key from the developer's shell leaks into a test.
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...options.env }
  const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let interrupted = false
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text
    if (!interrupted && options.interruptWhenStdout !== undefined && stdout.includes(options.interruptWhenStdout)) {
      interrupted = true
      child.kill('SIGINT')
    }
  })
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
    options.onStderr?.(stderr, child)
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}
