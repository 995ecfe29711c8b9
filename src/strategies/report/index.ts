import type { StrategyEvent } from '../../core/contracts/events.js'
import type { InterruptDecision, ReportOutline } from '../../core/contracts/interruption.js'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { Step, StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { recalledFindings, recalledLines } from '../shared/recalled.js'
import { restoredState } from '../shared/resume.js'
import { fitPrompt, shareChars } from './fit.js'
import { type ReportOptions, type ReportSettings, reportSettings } from './options.js'
import { outlinePrompt, outlineSchema, outlineSystem, readOutline } from './outline.js'
import { reportState } from './state.js'
import { RECALLED_SHOWN, type ReportState, writeReport } from './write.js'

export type { ReportOptions } from './options.js'

const OUTLINE_TOKENS = 900
/** What the planner sees of the first search: results at most, each snippet cut. */
const FIRST_PASS_RESULTS = 8

/**
 * A long report: a first search, an outline (approved like a plan), then the sections
 * researched and written side by side and streamed in outline order, then an introduction and a
 * conclusion from the sections' summaries, and the references numbered once across the report.
 */
export const report = defineStrategy<ReportSettings, ReportOptions>({
  name: 'report',
  optionsKey: 'report',
  normalize: reportSettings,
  concurrency: (settings) => settings.concurrency,
  run: runReport,
})

async function* runReport(question: string, ctx: StrategyContext, settings: ReportSettings): AsyncGenerator<StrategyEvent, StrategyOutcome> {
  const saved = restoredState<ReportState>(ctx, 'report', reportState)
  let outline: ReportOutline
  if (saved?.pending) {
    const decided = yield* decidedOutline(ctx, saved.outline, settings, ctx.resumed?.decision)
    if (!decided) return { reason: 'answered' }
    outline = decided
  } else if (saved) outline = saved.outline
  else {
    const planned = yield* planOutline(question, ctx, settings)
    // The outline is the report's plan: `review.plan` puts it to the caller.
    const answer = await ctx.decide({ kind: 'outline', outline: planned })
    if (answer.action === 'pause') {
      yield* ctx.checkpoint({ outline: planned, pending: true, written: [] } satisfies ReportState)
      return { reason: 'paused', request: { kind: 'outline', outline: planned } }
    }
    const decided = yield* decidedOutline(ctx, planned, settings, answer)
    if (!decided) return { reason: 'answered' }
    outline = decided
  }
  yield { type: 'outline', outline }
  yield* writeReport(question, outline, saved?.pending ? [] : (saved?.written ?? []), ctx, settings)
  return { reason: 'answered' }
}

/** The first search and the planner's outline (the question as one section when the reply cannot be read). */
async function* planOutline(question: string, ctx: StrategyContext, settings: ReportSettings): Step<ReportOutline> {
  const { results } = yield* ctx.runSearch(question)
  const found = results.slice(0, FIRST_PASS_RESULTS)
  const recalled = recalledLines(recalledFindings(ctx).slice(0, RECALLED_SHOWN), (f) => `(${f.title || f.url})`)
  const prompt = fitPrompt({
    system: outlineSystem,
    maxTokens: OUTLINE_TOKENS,
    contextTokens: settings.contextTokens,
    build: (maxChars) => {
      const texts = shareChars(
        found.map((r) => r.snippet ?? ''),
        maxChars,
      )
      return outlinePrompt({
        question,
        sections: settings.sections,
        recalled: truncateAtSentence(recalled, Math.floor(maxChars / 3)),
        notes: found.map((r, i) => `- ${r.title ?? r.url}: ${texts[i]}`).join('\n'),
      })
    },
  })
  const reply = yield* ctx.complete('planner', { system: outlineSystem, prompt, json: outlineSchema, maxTokens: OUTLINE_TOKENS, temperature: 0 })
  const outline = readOutline(reply, settings.sections, question)
  if (outline) return outline
  yield ctx.warning('could not read the outline; the report is one section on the question', 'unparseable-output')
  return { title: truncateAtSentence(question, 120), sections: [{ title: truncateAtSentence(question, 120), goal: question, questions: [question] }] }
}

/**
 * The outline the run goes on with, by the caller's decision (in process, or on the resume of a
 * run paused at it): approve (or none) keeps it,
 * `edit` replaces it (read like the planner's; one without a usable section is a `config`
 * error), `reject` ends the run with nothing written (undefined, a `plan-rejected` warning).
 */
async function* decidedOutline(
  ctx: StrategyContext,
  pending: ReportOutline,
  settings: ReportSettings,
  decision: InterruptDecision | undefined,
): Step<ReportOutline | undefined> {
  if (decision?.action === 'reject') {
    yield ctx.warning(`the outline was rejected${decision.reason ? `: ${decision.reason}` : ''}; nothing was written`, 'plan-rejected')
    return undefined
  }
  if (decision?.action !== 'edit' || !('outline' in decision)) return pending
  const edited = readOutline(decision.outline, settings.sections, pending.title)
  if (!edited) throw new LaconicError('the edited outline has no section with a title', { code: 'config', hint: 'give at least one section a title' })
  return edited
}
