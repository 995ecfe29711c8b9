/**
 * `laconic resume RUN_ID` with `--approve [--tool-args JSON]`, `--reject [REASON]`, `--plan-file FILE`
 * or `--query Q`: what the paused run waits for, checked against the flags, and mapped onto
 * `agent.resume`'s `approval` (a tool call) or `plan` (the queries to run).
 */
import { readFile } from 'node:fs/promises'
import type { Checkpoint, ResumeOptions } from '../core/index.js'
import type { ResumeDecision } from './args.js'
import { UsageError } from './usage-error.js'

export type Waiting = 'plan' | 'tool'

/**
 * What a checkpoint waits for. `react` is the one built-in strategy that pauses on a tool call,
 * and it proposes no plan; every other pauses only after its plan.
 */
export function waitingFor(checkpoint: Pick<Checkpoint, 'status' | 'strategy'>): Waiting | undefined {
  if (checkpoint.status !== 'paused') return undefined
  return checkpoint.strategy === 'react' ? 'tool' : 'plan'
}

/** How to continue a run paused on `waiting`, as stderr says it after the pause. */
export function resumeHint(waiting: Waiting): string {
  return waiting === 'tool' ? '--approve (or --reject [REASON])' : '[--approve | --plan-file FILE | --query Q ...]'
}

const flagOf = (decision: ResumeDecision): string => {
  if (decision.kind === 'plan') return decision.planFile !== undefined ? '--plan-file' : '--query'
  return decision.kind === 'approve' && decision.toolArgs ? '--tool-args' : `--${decision.kind}`
}

/** The `agent.resume` inputs for `decision`; a decision that does not fit what the run waits for is a usage error. */
export async function resumeInputs(checkpoint: Checkpoint, decision: ResumeDecision | undefined): Promise<Pick<ResumeOptions, 'approval' | 'plan'>> {
  const run = `run ${checkpoint.runId}`
  const waiting = waitingFor(checkpoint)
  if (waiting === undefined) {
    if (!decision) return {}
    const why = checkpoint.status === 'final' ? 'it has finished' : 'it stopped mid-run'
    throw new UsageError(`${run} is not paused (${why}), so there is nothing to approve: resume it without ${flagOf(decision)}`)
  }
  if (waiting === 'tool') {
    if (!decision) throw new UsageError(`${run} waits for approval of a tool call: resume it with ${resumeHint('tool')}`)
    if (decision.kind === 'plan')
      throw new UsageError(`${run} waits for approval of a tool call, not of a plan: ${flagOf(decision)} does not fit; give ${resumeHint('tool')}`)
    if (decision.kind === 'approve') return { approval: { approved: true, ...(decision.toolArgs ? { arguments: decision.toolArgs } : {}) } }
    return { approval: { approved: false, ...(decision.reason ? { message: decision.reason } : {}) } }
  }
  if (decision?.kind === 'approve' && decision.toolArgs) {
    throw new UsageError(`${run} waits for approval of its plan, and --tool-args answers a tool call: edit the plan with --plan-file FILE or --query Q`)
  }
  if (decision?.kind === 'reject') {
    throw new UsageError(
      `${run} waits for approval of its plan, and --reject answers a tool call: run the plan (--approve), run other queries (--plan-file FILE, --query Q), or leave it paused`,
    )
  }
  if (decision?.kind === 'plan') return { plan: { queries: await planQueries(decision) } }
  // --approve, or nothing: the saved plan runs.
  return {}
}

/** The queries of an edited plan: the file's lines (blank ones and `#` comments skipped), then each `--query`. */
async function planQueries(decision: Extract<ResumeDecision, { kind: 'plan' }>): Promise<string[]> {
  const fromFile: string[] = []
  if (decision.planFile !== undefined) {
    let text: string
    try {
      text = await readFile(decision.planFile, 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read --plan-file ${decision.planFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    for (const line of text.split(/\r?\n/)) {
      const query = line.trim()
      if (query && !query.startsWith('#')) fromFile.push(query)
    }
    if (!fromFile.length) throw new UsageError(`--plan-file ${decision.planFile} holds no queries (one per line)`)
  }
  return [...fromFile, ...decision.queries]
}
