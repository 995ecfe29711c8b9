/**
 * The `laconic` command as a function of its inputs (argv, env, streams, a Ctrl-C signal),
 * returning the exit code. `main.ts` binds it to the process; tests can call it directly.
 */
import { createAgent, strategyNames } from '../index.js'
import { type AgentOptions, strategyOptionsKey } from '../agent.js'
import type { Checkpoint, CheckpointStore } from '../core/contracts/checkpoint.js'
import type { ResearchOptions } from '../core/contracts/strategy-types.js'
import { fileCheckpoints } from '../node/file-checkpoints.js'
import { terminalDecide } from './decide-prompt.js'
import { parseCliArgs, type CliOptions } from './args.js'
import { agentOptions } from './agent-options.js'
import { checkStrategy, configuredProviders } from './build-agent.js'
import { errorText, thrownErrorText } from './error-text.js'
import { EXIT, exitCodeFor } from './exit-codes.js'
import { helpText } from './help.js'
import { evalCommand } from './eval.js'
import { isKbCommand, runKbCommand } from './kb.js'
import { mcpCommand } from './mcp.js'
import { readKnowledge, writeKnowledge } from './knowledge-file.js'
import { questionFrom } from './question.js'
import { jsonRenderer, ndjsonRenderer, prettyRenderer, type Renderer } from './render/index.js'
import { resumeInputs, resumeHint } from './resume-decision.js'
import { isScaleOutCommand, runScaleOut } from './scale-out/commands.js'
import { writeOutput } from './output-file.js'
import { printable } from './render/terminal-text.js'
import { serve } from './serve.js'
import { UsageError } from './usage-error.js'
import { VERSION } from '../version.js'
import type { CliIO } from './io.js'
import { installNodeRuntime } from '../node/runtime.js'

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
  checkStrategy(options.strategy)
  const serving = options.servePort !== undefined
  const checkpoints = options.checkpointDir !== undefined ? fileCheckpoints(options.checkpointDir) : undefined
  // A resumed run is shaped by its checkpoint: read it first, so a missing or unreadable one
  // fails before any model is set up.
  const saved = options.resume !== undefined ? await loadCheckpoint(checkpoints as CheckpointStore, options.resume) : undefined
  const resumeWith = saved ? await resumeInputs(saved, options.decision) : {}
  // Without a terminal to ask on, a run with a checkpoint store pauses instead (exit 4), for `laconic resume` to answer.
  const pauses = io.ask === undefined && checkpoints !== undefined
  if (options.approvePlan && !io.ask && !pauses) {
    throw new UsageError('--approve-plan asks on a terminal, or pauses the run for laconic resume with --checkpoint-dir DIR')
  }
  const question = serving || saved ? '' : await questionFrom(options, io.readStdin)
  const researchOptions: ResearchOptions = { signal: io.interrupt }
  if (options.knowledge !== undefined) researchOptions.knowledge = (await readKnowledge(options.knowledge)).trim()
  // The run's own language and sources, not only the agent's: its checkpoint keeps them, so `laconic resume` goes on in them.
  if (options.language !== undefined) researchOptions.language = options.language
  if (options.sources !== undefined) researchOptions.sources = options.sources
  if (options.toolApproval && (saved?.strategy ?? options.strategy) !== 'react') throw new UsageError('--tool-approval works with --strategy react')
  if (options.toolApproval && !io.ask && !pauses) {
    throw new UsageError('--tool-approval asks on a terminal, or pauses the run for laconic resume with --checkpoint-dir DIR')
  }
  const providers = await configuredProviders(options, io)
  const settings = saved ? resumedAgentOptions(agentOptions(options, providers), saved) : agentOptions(options, providers)
  const agent = createAgent(settings)
  // --approve-plan and --tool-approval are the run's review switches. The checkpoint keeps them:
  // a resumed run asks (or pauses) as the run it continues did; a flag given to a resume adds its switch.
  const review = { ...(options.approvePlan ? { plan: true } : {}), ...(options.toolApproval ? { tools: true } : {}) }

  if (serving) {
    const corpus = providers.corpus
    return serve(agent, {
      port: options.servePort as number,
      stderr: io.stderr,
      interrupt: io.interrupt,
      ...(corpus ? { readSource: (url: string, signal: AbortSignal) => corpus.fetch(url, { signal }) } : {}),
      ...(checkpoints ? { checkpoints, review } : {}),
    })
  }

  const renderer = rendererFor(options, io)
  if (checkpoints) researchOptions.checkpoints = checkpoints
  // On a terminal, the prompt answers what the run waits for; without one, the run pauses for `laconic resume`.
  const decide = io.ask ? terminalDecide(io.ask, io.stderr, renderer.hold) : undefined
  if (Object.keys(review).length) researchOptions.review = review
  if (decide) researchOptions.decide = decide
  const run =
    options.resume !== undefined
      ? agent.resume(options.resume, {
          checkpoints: checkpoints as CheckpointStore,
          signal: io.interrupt,
          ...resumeWith,
          ...(decide ? { decide } : {}),
          ...(Object.keys(review).length ? { review: { ...saved?.input.review, ...review } } : {}),
        })
      : agent.research(question, researchOptions)
  if (checkpoints) io.stderr.write(`laconic: run ${run.runId} (checkpoints in ${options.checkpointDir})\n`)
  for await (const event of run) renderer.event(event)
  const result = await run.result
  const interrupted = io.interrupt.aborted
  renderer.end(result, { interrupted, ...(checkpoints ? { runId: run.runId } : {}) })
  if (result.error && !interrupted) io.stderr.write(errorText(result.error, options.debug))
  if (result.reason === 'paused' || (checkpoints && (interrupted || result.reason === 'error'))) {
    const answer = result.reason === 'paused' ? ` ${resumeHint(result.request?.kind)}` : ''
    io.stderr.write(
      checkpoints
        ? `laconic: continue it with: laconic resume ${run.runId} --checkpoint-dir ${options.checkpointDir}${answer}\n`
        : 'laconic: stopped before the plan ran (without --checkpoint-dir it cannot be resumed)\n',
    )
  }
  if (options.output !== undefined && result.answer.trim()) {
    await writeOutput(options.output, question, result)
    if (options.format === 'pretty') io.stderr.write(`laconic: answer written to ${options.output}\n`)
  }
  if (options.knowledge !== undefined && (await writeKnowledge(options.knowledge, result.knowledge)) && options.format === 'pretty') {
    io.stderr.write(`laconic: knowledge saved to ${options.knowledge}\n`)
  }
  // The run's findings are written to --memory after it ended: the process must not exit first.
  await providers.memory?.writes()
  return interrupted ? EXIT.interrupted : exitCodeFor(result.reason)
}

/**
 * A resumed run's agent: the providers, prices and budget of these flags, the strategy and the
 * options that shape it from the checkpoint (the agent must match it, or resume refuses).
 */
function resumedAgentOptions(fromFlags: AgentOptions, saved: Checkpoint): AgentOptions {
  const { strategy: _strategy, searchLimit: _searchLimit, scratchpad: _s, graphReader: _g, reflect: _r, deep: _d, react: _react, ...rest } = fromFlags
  // The checkpoint holds the strategy's settings already normalised: its section takes them as they are.
  const { searchLimit, settings } = saved.options
  const key = strategyOptionsKey(saved.strategy)
  return {
    ...rest,
    strategy: saved.strategy,
    ...(typeof searchLimit === 'number' ? { searchLimit } : {}),
    ...(key !== undefined && settings !== undefined ? { [key]: settings } : {}),
  }
}

/** The checkpoint `laconic resume` continues; a missing one is a plain error, not a silent new run. */
async function loadCheckpoint(store: CheckpointStore, runId: string) {
  const checkpoint = await store.load(runId)
  if (!checkpoint) throw new Error(`no checkpoint for run ${runId} in that --checkpoint-dir`)
  return checkpoint
}

export async function runCli(io: CliIO): Promise<number> {
  // The command runs on Node: off-thread extraction, the DNS-pinned guard, folders and files.
  installNodeRuntime()
  let debug = io.argv.includes('--debug')
  try {
    if (isScaleOutCommand(io.argv)) return await runScaleOut(io)
    // A subcommand of its own: `laconic mcp ...` (its module parses the rest).
    if (io.argv[0] === 'mcp') return await mcpCommand(io.argv.slice(1), io)
    if (io.argv[0] === 'eval') return await evalCommand(io.argv.slice(1), io)
    if (isKbCommand(io.argv)) return await runKbCommand(io.argv, io)
    const command = parseCliArgs(io.argv)
    if (command.kind === 'help') {
      io.stdout.write(helpText(strategyNames()))
      return EXIT.answered
    }
    if (command.kind === 'version') {
      io.stdout.write(`${VERSION}\n`)
      return EXIT.answered
    }
    debug = command.options.debug
    return await research(command.options, io)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`laconic: ${error.message}\n`)
      return EXIT.usage
    }
    io.stderr.write(thrownErrorText(error, debug))
    // The stack repeats the message, whose text may be a server's: printed without its control characters too.
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${printable(error.stack)}\n`)
    return EXIT.error
  }
}
