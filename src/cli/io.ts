import type { Ask } from './decide-prompt.js'
import type { Env } from './llm.js'
import type { Output } from './render/index.js'

/** What the CLI reads and writes: its arguments, environment, streams, clock and terminal. */
export interface CliIO {
  argv: readonly string[]
  env: Env
  stdout: Output
  stderr: Output
  /** All of stdin, for `--prompt -`. */
  readStdin: () => Promise<string>
  /** Aborted on Ctrl-C: the run stops cleanly and prints what it gathered. */
  interrupt: AbortSignal
  now: () => number
  /** For the Ollama model list. @defaultValue globalThis.fetch */
  fetch?: typeof globalThis.fetch
  /** Asks a line on the terminal, for `--approve-plan` and `--tool-approval`; absent when stdin or stderr is not a terminal. */
  ask?: Ask
}
