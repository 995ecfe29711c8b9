/**
 * The one terminal prompt for anything a run waits for (`--approve-plan`, `--tool-approval`):
 * the request on stderr, then a question whose answer is the run's `decide` answer. A plan or an
 * outline: approve, edit (its queries, its section titles), reject (with a reason), or pause. A
 * tool call: yes, no (a refusal the model is told), edit its arguments (JSON), or pause.
 */
import { createInterface } from 'node:readline/promises'
import type { OutlineRequest, PlanRequest, ReportOutline, ToolCallRequest } from '../core/contracts/interruption.js'
import type { DecideAnswer, ResearchOptions } from '../core/contracts/strategy-types.js'
import type { Output } from './render/index.js'
import { oneLine } from './render/terminal-text.js'

/** Asks one line on the terminal; rejects when `signal` aborts (Ctrl-C). */
export type Ask = (question: string, signal: AbortSignal) => Promise<string>

/** An `Ask` over a line-based input (the terminal's stdin), its questions written to `output`; `onInterrupt` hears a Ctrl-C typed while it waits. */
export function lineAsker(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, onInterrupt?: () => void): Ask {
  return async (question, signal) => {
    const rl = createInterface({ input, output })
    if (onInterrupt) rl.on('SIGINT', onInterrupt)
    try {
      return await rl.question(question, { signal })
    } finally {
      rl.close()
    }
  }
}

const PAUSE = ['p', 'pause', 's', 'stop']
const YES = ['', 'y', 'yes', 'run', 'approve']
const REJECT = ['r', 'reject', 'n', 'no']

/** The run's `decide` on the terminal; `hold` pauses the live output while it asks. */
export function terminalDecide(ask: Ask, stderr: Output, hold?: () => () => void): NonNullable<ResearchOptions['decide']> {
  return async (request, { signal }) => {
    const release = hold?.()
    try {
      const line = async (question: string) => (await ask(question, signal)).trim()
      return request.kind === 'tool-call' ? await toolCallAnswer(request, line, stderr) : await planAnswer(request, line, stderr)
    } finally {
      release?.()
    }
  }
}

type Line = (question: string) => Promise<string>

/** A plan's or an outline's answer: [Y]es, [e]dit, [r]eject (a reason asked), [p]ause. */
async function planAnswer(request: PlanRequest | OutlineRequest, line: Line, stderr: Output): Promise<DecideAnswer> {
  const plan = request.kind === 'plan'
  if (plan) stderr.write(`\nPlan: ${oneLine(request.text, 300)}\n${numbered(request.queries)}\n`)
  else stderr.write(`\nOutline: ${oneLine(request.outline.title, 200)}\n${numbered(request.outline.sections.map((s) => `${s.title} — ${s.goal}`))}\n`)
  for (;;) {
    const answer = (await line(`${plan ? 'Run it' : 'Write it'}? [Y]es, [e]dit the ${plan ? 'queries' : 'section titles'}, [r]eject, [p]ause: `)).toLowerCase()
    if (YES.includes(answer)) return { action: 'approve' }
    if (PAUSE.includes(answer)) return { action: 'pause' }
    if (REJECT.includes(answer)) {
      const reason = await line('Why (optional, shown in the warning): ')
      return { action: 'reject', ...(reason ? { reason } : {}) }
    }
    if (answer !== 'e' && answer !== 'edit') continue
    stderr.write(`The ${plan ? 'queries to run' : 'section titles, in order'}, one per line; an empty line ends:\n`)
    const lines: string[] = []
    for (let next = await line('> '); next; next = await line('> ')) lines.push(next)
    if (!lines.length) {
      stderr.write(`No ${plan ? 'queries' : 'sections'} given.\n`)
      continue
    }
    return plan ? { action: 'edit', queries: lines } : { action: 'edit', outline: outlineFromTitles(request.outline, lines) }
  }
}

/** A tool call's answer: [y]es, [N]o (refused, the model told so), [e]dit its arguments as JSON, [p]ause. */
async function toolCallAnswer(request: ToolCallRequest, line: Line, stderr: Output): Promise<DecideAnswer> {
  for (;;) {
    const args = oneLine(JSON.stringify(request.args), 200)
    const answer = (await line(`laconic: run ${oneLine(request.name, 60)} ${args}? [y]es, [N]o, [e]dit the arguments, [p]ause: `)).toLowerCase()
    if (answer === 'y' || answer === 'yes') return { action: 'approve' }
    if (PAUSE.includes(answer)) return { action: 'pause' }
    if (answer !== 'e' && answer !== 'edit') return { action: 'reject' }
    const edited = readObject(await line('Arguments (a JSON object): '))
    if (edited) return { action: 'edit', args: edited }
    stderr.write('That is not a JSON object.\n')
  }
}

function numbered(lines: readonly string[]): string {
  return lines.map((text, i) => `  ${i + 1}. ${oneLine(text, 200)}`).join('\n')
}

function readObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The outline for edited section titles: a kept title keeps its section (goal, questions), a new one is a section of its own. */
function outlineFromTitles(outline: ReportOutline, titles: readonly string[]): ReportOutline {
  const byTitle = new Map(outline.sections.map((s) => [s.title.trim().toLowerCase(), s]))
  return { title: outline.title, sections: titles.map((t) => byTitle.get(t.toLowerCase()) ?? { title: t, goal: t, questions: [t] }) }
}
