/**
 * `--format pretty`: the answer streamed to stdout as it is written, then its sources; progress
 * on stderr, as a live status area on a terminal or as plain lines otherwise (logs, CI, pipes).
 */
import type { Citation, Claim, ResearchEvent, RunEndReason } from '../../core/contracts/events.js'
import type { InterruptRequest } from '../../core/contracts/interruption.js'
import type { ResearchResult } from '../../core/contracts/result.js'
import type { Output } from './output.js'
import { reportSections } from './result-markdown.js'
import type { Renderer } from './renderer.js'
import { createStats, statsLine, usageLine, type RunStats } from './progress-stats.js'
import { createStatusArea } from './status-area.js'
import { oneLine, printable } from './terminal-text.js'
import { count } from '../plural.js'

export interface PrettyOptions {
  stdout: Output
  stderr: Output
  now: () => number
  /** Redraw the status area every so often (for the clock); returns a stop function. */
  every?: (ms: number, fn: () => void) => () => void
  /** ANSI colours on the status area (off under NO_COLOR). */
  color?: boolean
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const REDRAW_MS = 100

const ENDINGS: Record<RunEndReason, string> = {
  answered: 'answered',
  'max-iterations': 'best-effort answer (the iteration cap was reached)',
  paused: 'paused for approval',
  aborted: 'interrupted',
  error: 'failed',
}

function flat(text: string, max = 160): string {
  return oneLine(text, max)
}

/** One plain line per event worth a line; undefined for the rest (tokens, costs, model calls). */
export function progressLine(event: ResearchEvent): string | undefined {
  switch (event.type) {
    case 'run-start':
      return `[start] ${event.strategy}: ${flat(event.question)}`
    case 'recall':
      return `[recall] ${count(event.findings.length, 'earlier finding')} from memory`
    case 'plan':
      return `[plan] ${flat(event.text)}`
    case 'query':
      return `[query ${event.queryId}] ${flat(event.query)}`
    case 'result':
      return `[result ${event.queryId}] ${count(event.results.length, 'result')}${event.cached ? ' (cached)' : ''}${event.sourcesFiltered ? ` (${event.sourcesFiltered} left out by the sources rules)` : ''}`
    case 'page':
      return `[page] ${printable(event.url)} (${count(event.chars, 'char')})`
    case 'fact':
      return `[fact ${event.fact.id}] ${flat(event.fact.text)}${event.fact.sources[0] ? ` (${printable(event.fact.sources[0])})` : ''}`
    case 'knowledge-update':
      return `[notes] iteration ${event.iteration}: ${count(event.knowledge.length, 'char')}`
    case 'warning':
      return `[warning ${event.code}] ${flat(event.message, 300)}`
    case 'tool-call':
      return `[tool ${flat(event.callId, 40)}] ${flat(event.name, 60)} ${flat(JSON.stringify(event.args), 160)}`
    case 'tool-result':
      return `[tool ${flat(event.callId, 40)}] ${event.ok ? 'ok' : 'failed'}: ${flat(event.summary, 160)}`
    case 'claim':
      return `[claim ${event.index + 1}] ${event.verdict}: ${flat(event.text, 160)}`
    default:
      return undefined
  }
}

export function formatCitations(citations: readonly Citation[]): string {
  if (citations.length === 0) return ''
  const lines = citations.map((c) => `[${c.index}] ${c.title ? `${flat(c.title, 100)} — ` : ''}${printable(c.url)}`)
  return `\nSources:\n${lines.join('\n')}\n`
}

/** What a run gathered before it stopped without an answer: its facts, else its notes. */
export function formatGathered(result: ResearchResult): string {
  if (result.facts.length > 0) {
    const facts = result.facts.map((f) => `- ${flat(f.text, 400)}${f.sources.length ? ` (${printable(f.sources.join(', '))})` : ''}`)
    return `\nGathered so far:\n${facts.join('\n')}\n`
  }
  return result.knowledge.trim() ? `\nNotes so far:\n${printable(result.knowledge.trim())}\n` : ''
}

const MARKS: Record<Claim['verdict'], string> = { supported: '✓', partial: '~', unsupported: '✗', uncited: '·', unverifiable: '?' }

/**
 * What verification found, after the answer: the counts and support rate, then each claim not
 * supported, with the passage it was checked against.
 */
export function formatClaims(result: ResearchResult): string {
  const claims = result.claims ?? []
  if (claims.length === 0) return ''
  const counts = new Map<string, number>()
  for (const claim of claims) counts.set(claim.verdict, (counts.get(claim.verdict) ?? 0) + 1)
  const tally = [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(' · ')
  const rate = result.supportRate !== undefined ? ` (support rate ${Math.round(result.supportRate * 100)}%)` : ''
  const doubtful = claims
    .filter((claim) => claim.verdict === 'unsupported' || claim.verdict === 'partial')
    .map((claim) => `  ${MARKS[claim.verdict]} ${flat(claim.text, 200)}${claim.evidence ? `\n      source: ${flat(claim.evidence, 240)}` : ''}`)
  return `\nClaims checked: ${tally}${rate}\n${doubtful.length ? `${doubtful.join('\n')}\n` : ''}`
}

function defaultEvery(ms: number, fn: () => void): () => void {
  const timer = setInterval(fn, ms)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * What a paused run waits for, in full: the plan's queries (its text went by as `[plan]`), or the
 * tool call and its arguments, so the decision can be made from what the terminal shows.
 */
export function waitingFor(request: InterruptRequest): string {
  if (request.kind === 'plan') {
    const queries = request.queries.map((query, i) => `  ${i + 1}. ${oneLine(query, 200)}\n`).join('')
    return `[paused] waiting for approval: the plan's ${count(request.queries.length, 'query', 'queries')}\n${queries}`
  }
  if (request.kind === 'outline') {
    const sections = request.outline.sections.map((section, i) => `  ${i + 1}. ${oneLine(section.title, 200)}\n`).join('')
    return `[paused] waiting for approval: the outline of ${oneLine(request.outline.title, 200)}, ${count(request.outline.sections.length, 'section', 'sections')}\n${sections}`
  }
  return `[paused] waiting for approval: the tool call ${oneLine(request.name, 60)} ${oneLine(JSON.stringify(request.args), 300)}\n`
}

export function prettyRenderer(options: PrettyOptions): Renderer {
  const { stdout, stderr, now } = options
  const live = stderr.isTTY === true
  const dim = (text: string) => (options.color ? `\u001b[2m${text}\u001b[22m` : text)
  const { stats, add } = createStats(now())
  const area = createStatusArea(stderr)
  let streamed = ''
  let answered = false
  /** A revision (`--verify revise`) began: its tokens go after the first answer, under a line that says so. */
  let revising = false
  // On a shared terminal the status area would tear the streamed answer: it stops once writing starts.
  let frozen = false
  let frame = 0
  const deferred: string[] = []

  let held = false
  const redraw = () => {
    if (!live || frozen || held) return
    frame = (frame + 1) % SPINNER.length
    area.draw([`${SPINNER[frame]} ${stats.step}`, `  ${statsLine(stats, now())}`], (line, index) => (index === 0 ? line : dim(line)))
  }
  const stopTicking = live ? (options.every ?? defaultEvery)(REDRAW_MS, redraw) : () => {}

  const note = (line: string) => {
    if (!live) stderr.write(`${line}\n`)
    else if (frozen) deferred.push(line)
    else {
      area.clear()
      stderr.write(`${line}\n`)
    }
  }

  const writeAnswer = (text: string) => {
    if (!streamed && live && stdout.isTTY) {
      area.clear()
      frozen = true
    }
    streamed += text
    // On a terminal the model's text must not carry escape sequences; a pipe gets it verbatim.
    stdout.write(stdout.isTTY ? printable(text) : text)
  }

  return {
    event(event) {
      add(event)
      if (event.type === 'answer-token') {
        if (event.revised && !revising) {
          revising = true
          writeAnswer(`${streamed.endsWith('\n') ? '' : '\n'}\n── Revised without the unsupported sentences ──\n\n`)
        }
        if (!streamed && !live) stderr.write('[answer] writing…\n')
        writeAnswer(event.text)
        return
      }
      if (event.type === 'answer') {
        answered = true
        // A strategy that does not stream its answer still gets it printed.
        if (!streamed && event.text) writeAnswer(event.text)
      }
      const line = event.type === 'warning' || !live ? progressLine(event) : undefined
      if (line) note(line)
      redraw()
    },
    hold() {
      held = true
      area.clear()
      return () => {
        held = false
        redraw()
      }
    },
    end(result, { interrupted, runId }) {
      stopTicking()
      area.clear()
      // A finished run resumed from its checkpoint streams nothing: its answer is in the result.
      if (!streamed && !answered && result.answer && (result.reason === 'answered' || result.reason === 'max-iterations')) {
        writeAnswer(result.answer)
        answered = true
      }
      if (streamed && !streamed.endsWith('\n')) stdout.write('\n')
      if (answered && result.report) stdout.write(reportSections(result.report))
      if (answered) stdout.write(formatCitations(result.citations) + formatClaims(result))
      else if (interrupted || result.reason === 'error') stdout.write(formatGathered(result))
      for (const line of deferred) stderr.write(`${line}\n`)
      if (result.reason === 'paused' && result.request) stderr.write(waitingFor(result.request))
      const ending: RunStats = { ...stats, cost: result.cost }
      const confidence = result.confidence !== undefined ? ` · confidence ${result.confidence}` : ''
      const run = runId !== undefined ? ` · run ${runId}` : ''
      stderr.write(`${dim(`[done] ${ENDINGS[result.reason]} · ${statsLine(ending, now())} · ${usageLine(result.cost)}${confidence}${run}`)}\n`)
    },
  }
}
