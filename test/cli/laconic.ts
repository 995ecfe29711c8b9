/**
 * The `laconic` command in this process: argv (and env, stdin, a terminal's answers) in, the exit
 * code and what it printed out, as the executable binds `runCli` to a process (src/cli/main.ts).
 * Tests assert what a user sees through it; `run-cli.ts` runs the real executable where the
 * process itself matters (signals, exit after a kill).
 */
import { runCli } from '../../src/cli/cli.js'

type CliIO = Parameters<typeof runCli>[0]

export interface LaconicRun {
  code: number
  stdout: string
  stderr: string
}

export interface LaconicOptions {
  env?: Record<string, string>
  /** All of stdin, for `--prompt -`. */
  stdin?: string
  /**
   * A terminal: each question is answered with the next of these answers (an empty line once
   * they run out). Without it there is no terminal, as when stdin or stderr is not a TTY.
   */
  answers?: string[]
  /** Every question asked on the terminal, in order. */
  asked?: string[]
  /** Ctrl-C. */
  interrupt?: AbortSignal
  /** The CLI's fetch for Ollama's model list; by default it fails (no network in tests). */
  fetch?: typeof globalThis.fetch
  /** Called with all of stderr so far on every write (e.g. to find the port `--serve` chose). */
  onStderr?: (all: string) => void
  /** The command's clock. @defaultValue always 0 */
  now?: () => number
  /** Whether stderr is a terminal (colours, the status area). */
  stderrIsTTY?: boolean
}

const noNetwork = (async () => {
  throw new Error('no network in this test')
}) as typeof globalThis.fetch

export async function laconic(argv: readonly string[], options: LaconicOptions = {}): Promise<LaconicRun> {
  let stdout = ''
  let stderr = ''
  const answers = options.answers
  const io: CliIO = {
    argv,
    env: options.env ?? {},
    stdout: {
      write: (text: string) => {
        stdout += text
        return true
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text
        options.onStderr?.(stderr)
        return true
      },
      ...(options.stderrIsTTY ? { isTTY: true } : {}),
    },
    readStdin: async () => {
      if (options.stdin === undefined) throw new Error('stdin was not expected')
      return options.stdin
    },
    interrupt: options.interrupt ?? new AbortController().signal,
    now: options.now ?? (() => 0),
    fetch: options.fetch ?? noNetwork,
    ...(answers
      ? {
          ask: async (question: string) => {
            options.asked?.push(question)
            return answers.shift() ?? ''
          },
        }
      : {}),
  }
  const code = await runCli(io)
  return { code, stdout, stderr }
}

/** The exit code of a usage error (a bad flag, a missing value, an empty question). */
export const USAGE = 2
