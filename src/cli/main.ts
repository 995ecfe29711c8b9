#!/usr/bin/env node
/**
 * The `laconic` executable: binds `runCli` to this process. The first Ctrl-C aborts the run
 * (it ends cleanly and prints what it gathered); a second one exits at once.
 */
import { text } from 'node:stream/consumers'
import { runCli } from './cli.js'
import { lineAsker } from './decide-prompt.js'
import { EXIT } from './exit-codes.js'

const interrupt = new AbortController()
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(EXIT.interrupted)
  interrupt.abort(new DOMException('interrupted (Ctrl-C)', 'AbortError'))
})

/** One question on the terminal (the approval prompt); Ctrl-C while it waits interrupts the run like anywhere else. */
const ask = lineAsker(process.stdin, process.stderr, () => process.emit('SIGINT'))

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin: () => text(process.stdin),
  interrupt: interrupt.signal,
  now: Date.now,
  ...(process.stdin.isTTY && process.stderr.isTTY ? { ask } : {}),
})
process.exitCode = code
// Keep-alive sockets or a paced search queue must not hold the answer's exit code hostage.
setTimeout(() => process.exit(code), 1000).unref()
