/**
 * The `laconic` command as a function of its inputs (argv, env, streams, a Ctrl-C signal),
 * returning the exit code. `main.ts` binds it to the process; tests can call it directly.
 */
import { createAgent, strategyNames } from '../index.js'
import type { ResearchOptions } from '../core/index.js'
import { parseCliArgs, type CliOptions } from './args.js'
import { agentOptions } from './agent-options.js'
import { configuredProviders } from './build-agent.js'
import { EXIT, exitCodeFor } from './exit-codes.js'
import { helpText } from './help.js'
import { mcpCommand } from './mcp.js'
import { readKnowledge, writeKnowledge } from './knowledge-file.js'
import type { Env } from './llm.js'
import { questionFrom } from './question.js'
import { jsonRenderer, ndjsonRenderer, prettyRenderer, type Output, type Renderer } from './render/index.js'
import { isScaleOutCommand, runScaleOut } from './scale-out/commands.js'
import { serve } from './serve.js'
import { UsageError } from './usage-error.js'
import { packageVersion } from './version.js'

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
}

/** Errors are one line on stderr: a provider's multi-line message is folded. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim()
}

function rendererFor(options: CliOptions, io: CliIO): Renderer {
  switch (options.format) {
    case 'ndjson':
      return ndjsonRenderer(io.stdout)
    case 'json':
      return jsonRenderer(io.stdout)
    case 'pretty':
      return prettyRenderer({ stdout: io.stdout, stderr: io.stderr, now: io.now, color: io.stderr.isTTY === true && !io.env.NO_COLOR })
  }
}

async function research(options: CliOptions, io: CliIO): Promise<number> {
  const known = strategyNames()
  if (options.strategy !== undefined && !known.includes(options.strategy)) {
    throw new UsageError(`unknown strategy "${options.strategy}": choose one of ${known.join(', ')}`)
  }
  const serving = options.servePort !== undefined
  const question = serving ? '' : await questionFrom(options, io.readStdin)
  const researchOptions: ResearchOptions = { signal: io.interrupt }
  if (options.knowledge !== undefined) researchOptions.knowledge = (await readKnowledge(options.knowledge)).trim()
  const agent = createAgent(agentOptions(options, await configuredProviders(options, io)))

  if (serving) return serve(agent, { port: options.servePort as number, stderr: io.stderr, interrupt: io.interrupt })

  const renderer = rendererFor(options, io)
  const run = agent.research(question, researchOptions)
  for await (const event of run) renderer.event(event)
  const result = await run.result
  const interrupted = io.interrupt.aborted
  renderer.end(result, { interrupted })
  if (result.error && !interrupted) io.stderr.write(`laconic: error: ${oneLine(result.error.message)}\n`)
  if (options.knowledge !== undefined && (await writeKnowledge(options.knowledge, result.knowledge)) && options.format === 'pretty') {
    io.stderr.write(`laconic: knowledge saved to ${options.knowledge}\n`)
  }
  return interrupted ? EXIT.interrupted : exitCodeFor(result.reason)
}

export async function runCli(io: CliIO): Promise<number> {
  let debug = io.argv.includes('--debug')
  try {
    if (isScaleOutCommand(io.argv)) return await runScaleOut(io)
    // A subcommand of its own: `laconic mcp ...` (its module parses the rest).
    if (io.argv[0] === 'mcp') return await mcpCommand(io.argv.slice(1), io)
    const command = parseCliArgs(io.argv)
    if (command.kind === 'help') {
      io.stdout.write(helpText(strategyNames()))
      return EXIT.answered
    }
    if (command.kind === 'version') {
      io.stdout.write(`${packageVersion()}\n`)
      return EXIT.answered
    }
    debug = command.options.debug
    return await research(command.options, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`laconic: ${error.message}\n`)
      return EXIT.usage
    }
    const message = error instanceof Error ? error.message : String(error)
    io.stderr.write(`laconic: error: ${oneLine(message)}\n`)
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`)
    return EXIT.error
  }
}
