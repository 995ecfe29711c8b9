/**
 * `laconic resume RUN_ID` with `--approve [--tool-args JSON]`, `--reject [REASON]`, `--plan-file FILE`
 * or `--query Q`: checked against what the paused run waits for (its checkpoint's request) and
 * mapped onto `agent.resume`'s `decision`.
 */
import { readFile } from 'node:fs/promises'
import type { Checkpoint } from '../core/contracts/checkpoint.js'
import { isOutline, type InterruptDecision, type InterruptRequest, type ReportOutline } from '../core/contracts/interruption.js'
import type { ResumeOptions } from '../core/contracts/strategy-types.js'
import type { ResumeDecision } from './args.js'
import { UsageError } from './usage-error.js'

export type Waiting = InterruptRequest['kind']

/** What a checkpoint waits for: the kind of its request, when it is paused. */
export function waitingFor(checkpoint: Pick<Checkpoint, 'status' | 'request'>): Waiting | undefined {
  return checkpoint.status === 'paused' ? checkpoint.request?.kind : undefined
}

/** How to answer what a paused run waits for, as stderr says it after the pause. */
export function resumeHint(waiting: Waiting | undefined): string {
  if (waiting === 'outline') return '[--approve | --plan-file OUTLINE.json | --reject [REASON]]'
  return waiting === 'tool-call' ? '--approve [--tool-args JSON] (or --reject [REASON])' : '[--approve | --plan-file FILE | --query Q ... | --reject [REASON]]'
}

const flagOf = (decision: ResumeDecision): string => {
  if (decision.kind === 'plan') return decision.planFile !== undefined ? '--plan-file' : '--query'
  return decision.kind === 'approve' && decision.toolArgs ? '--tool-args' : `--${decision.kind}`
}

/** The `agent.resume` decision for the flags; flags that do not fit what the run waits for are a usage error. */
export async function resumeInputs(checkpoint: Checkpoint, decision: ResumeDecision | undefined): Promise<Pick<ResumeOptions, 'decision'>> {
  const run = `run ${checkpoint.runId}`
  const waiting = waitingFor(checkpoint)
  if (waiting === undefined) {
    if (!decision) return {}
    const why = checkpoint.status === 'final' ? 'it has finished' : checkpoint.status === 'paused' ? 'it names nothing it waits for' : 'it stopped mid-run'
    throw new UsageError(`${run} is not waiting for a decision (${why}): resume it without ${flagOf(decision)}`)
  }
  if (decision?.kind === 'reject') return { decision: { action: 'reject', ...(decision.reason ? { reason: decision.reason } : {}) } }
  if (waiting === 'tool-call') {
    if (!decision) throw new UsageError(`${run} waits for approval of a tool call: resume it with ${resumeHint(waiting)}`)
    if (decision.kind === 'plan')
      throw new UsageError(`${run} waits for approval of a tool call, not of a plan: ${flagOf(decision)} does not fit; give ${resumeHint(waiting)}`)
    return { decision: decision.toolArgs ? { action: 'edit', args: decision.toolArgs } : { action: 'approve' } }
  }
  if (waiting === 'outline' && decision?.kind === 'plan') return { decision: { action: 'edit', outline: await outlineFile(run, decision) } }
  if (decision?.kind === 'approve' && decision.toolArgs) {
    throw new UsageError(`${run} waits for approval of its plan, and --tool-args answers a tool call: edit the plan with --plan-file FILE or --query Q`)
  }
  if (decision?.kind === 'plan') return { decision: { action: 'edit', queries: await planQueries(decision) } satisfies InterruptDecision }
  // --approve, or nothing: the saved plan runs.
  return decision ? { decision: { action: 'approve' } } : {}
}

/** A report's edited outline: `--plan-file` as JSON `{title, sections: [{title, goal, questions}]}`; `--query` does not fit an outline. */
async function outlineFile(run: string, decision: Extract<ResumeDecision, { kind: 'plan' }>): Promise<ReportOutline> {
  const shape = '{"title": "...", "sections": [{"title": "...", "goal": "...", "questions": ["..."]}]}'
  if (decision.planFile === undefined || decision.queries.length) {
    throw new UsageError(`${run} waits for approval of its outline: edit it with --plan-file OUTLINE.json holding ${shape}`)
  }
  let text: string
  try {
    text = await readFile(decision.planFile, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read --plan-file ${decision.planFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  let outline: unknown
  try {
    outline = JSON.parse(text)
  } catch {
    outline = undefined
  }
  if (!isOutline(outline)) throw new UsageError(`--plan-file ${decision.planFile} is not an outline: give JSON ${shape}`)
  return outline
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
