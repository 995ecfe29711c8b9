import type { Report, StrategyEvent } from '../../core/contracts/events.js'
import type { InterruptDecision, ReportOutline } from '../../core/contracts/interruption.js'
import { isAbortError, LaconicError } from '../../core/contracts/laconic-error.js'
import type { Step, StrategyContext, StrategyOutcome } from '../../core/contracts/strategy-types.js'
import { defineStrategy } from '../../core/run/registry.js'
import { runVerifyMode } from '../../core/run/shared-options.js'
import { createMerge } from '../../core/util/merge.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { CitationRegistry, citationFilter, rewriteCitations } from '../shared/citations.js'
import { recalledFindings, recalledLines } from '../shared/recalled.js'
import { restoredState } from '../shared/resume.js'
import { claimChecker } from '../shared/verify-claims.js'
import { fitPrompt, shareChars } from './fit.js'
import { inOrder, type SectionRender } from './in-order.js'
import { type ReportOptions, type ReportSettings, reportSettings } from './options.js'
import { outlinePrompt, outlineSchema, outlineSystem, readOutline } from './outline.js'
import { conclusionSystem, framePrompt, introductionSystem, sectionPrompt, sectionSystem, type ShownSource } from './prompts.js'
import { researchSection } from './section.js'
import { channel, slots } from './slots.js'
import { reportState } from './state.js'

export type { ReportOptions } from './options.js'

/** A section written, as a checkpoint keeps it: its text as the model wrote it (numbers as its prompt showed the sources) and those sources. */
interface WrittenSection {
  index: number
  text: string
  sources: ShownSource[]
}

/** What a report checkpoint holds: the outline, and every section written so far (in any order). */
interface ReportState {
  outline: ReportOutline
  /** The run paused for approval of this outline. */
  pending?: boolean
  written: WrittenSection[]
}

const OUTLINE_TOKENS = 900
const FRAME_TOKENS = 500
/** A section summary (for the introduction and conclusion) at most, in characters. */
const SUMMARY_CHARS = 400
/** What the planner sees of the first search: results at most, each snippet cut. */
const FIRST_PASS_RESULTS = 8
/** Recalled findings (long-term memory) shown to the planner, and offered to each section as sources, at most. */
const RECALLED_SHOWN = 3

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

/** The sections (those in `written` are not written again), the introduction, the conclusion, the references and the answer. */
async function* writeReport(
  question: string,
  outline: ReportOutline,
  written: readonly WrittenSection[],
  ctx: StrategyContext,
  settings: ReportSettings,
): Step<void> {
  const count = outline.sections.length
  const done = new Map(written.filter((w) => w.index < count).map((w) => [w.index, w]))
  const registry = new CitationRegistry(ctx.input.citations)
  /** The texts each reference was shown with: the evidence its claims are checked against. */
  const evidence = new Map<number, Set<string>>()
  const sourcesOf: ShownSource[][] = outline.sections.map((_, i) => done.get(i)?.sources ?? [])
  const filters = outline.sections.map((_, i) =>
    citationFilter((n) => {
      const source = sourcesOf[i]![n - 1]
      if (!source) return undefined
      const index = registry.indexOf(source.url, source.title || undefined)
      if (source.text.trim()) evidence.set(index, (evidence.get(index) ?? new Set()).add(source.text))
      return index
    }),
  )
  const bodies = outline.sections.map(() => '')
  const merge = createMerge<StrategyEvent>()
  const verify = runVerifyMode(ctx.options, ctx.input)
  const checker = verify
    ? claimChecker(ctx, {
        sourceText: (n) => {
          const texts = evidence.get(n)
          return texts ? [...texts].join('\n\n') : undefined
        },
        start: (check) => merge.add(check),
      })
    : undefined
  const token = (index: number, text: string): StrategyEvent => ({ type: 'answer-token', text, section: index })
  const body = (index: number, text: string): StrategyEvent[] => {
    if (!text) return []
    bodies[index] += text
    return [token(index, text), ...(checker?.push(text) ?? [])]
  }
  const render: SectionRender<StrategyEvent> = {
    open: (i) => [{ type: 'section-start', index: i, title: outline.sections[i]!.title }, token(i, `## ${outline.sections[i]!.title}\n\n`)],
    piece: (i, raw) => body(i, filters[i]!.push(raw)),
    close: (i) => [...body(i, filters[i]!.flush()), ...(checker?.flush() ?? []), token(i, '\n\n'), { type: 'section-end', index: i }],
  }
  const order = inOrder(count, 0, render)
  const state = (): ReportState => ({ outline, written: [...done.values()].sort((a, b) => a.index - b.index) })
  const sectionSlots = slots(settings.concurrency)
  const maxChars = settings.sectionWords * 12
  let budgetWarned = false

  // Every section's streamed events go through one channel, in the order `order` made them.
  const out = channel<StrategyEvent>()
  let finished = 0
  const end = (index: number) => {
    out.put(order.end(index))
    if (++finished === count) out.close()
  }
  const replay = (w: WrittenSection) => {
    out.put(order.push(w.index, w.text))
    end(w.index)
  }
  async function* section(index: number): Step<void> {
    const planned = outline.sections[index]!
    await sectionSlots.acquire()
    let raw = ''
    try {
      let research = { sources: [] as ShownSource[], facts: [] as { text: string; sources: number[] }[] }
      if (ctx.budgetExhausted()) {
        if (!budgetWarned) yield ctx.warning('the budget is nearly spent: the remaining sections are written without research', 'budget')
        budgetWarned = true
      } else research = yield* researchSection(planned, outline.title, ctx, { ...settings, recalled: recalledFindings(ctx).slice(0, RECALLED_SHOWN) })
      sourcesOf[index] = research.sources
      const words = settings.sectionWords
      const maxTokens = Math.ceil(words * 1.6) + 50
      const prompt = fitPrompt({
        system: sectionSystem,
        maxTokens,
        contextTokens: settings.contextTokens,
        build: (chars) =>
          sectionPrompt({
            section: planned,
            reportTitle: outline.title,
            words,
            facts: research.facts,
            sources: research.sources,
            texts: shareChars(
              research.sources.map((s) => s.text),
              chars,
            ),
          }),
      })
      let cut = false
      try {
        for await (const event of ctx.streamAnswer('finalizer', { system: sectionSystem, prompt, maxTokens, temperature: 0 })) {
          if (event.type !== 'answer-token') {
            yield event
            continue
          }
          const piece = event.text.slice(0, Math.max(0, maxChars - raw.length))
          cut ||= piece.length < event.text.length
          raw += piece
          out.put(order.push(index, piece))
        }
      } catch (error) {
        // One section's failed call (after the runtime's retries) costs that section, not the report.
        if (ctx.signal.aborted || isAbortError(error)) throw error
        const why = error instanceof Error ? error.message : String(error)
        yield ctx.warning(`the section "${planned.title}" could not be written (${why.slice(0, 200)}); it keeps what streamed`, 'section-failed')
      }
      if (cut) yield ctx.warning(`the section "${planned.title}" ran past ${maxChars} characters; the rest was dropped`, 'unparseable-output')
      if (!raw.trim()) {
        yield ctx.warning(`the section "${planned.title}" came back empty`, 'empty-output')
        raw = research.facts.length
          ? research.facts.map((f) => `${f.text} ${f.sources.map((n) => `[${n}]`).join('')}`).join(' ')
          : 'The sources found do not cover this section.'
        out.put(order.push(index, raw))
      }
    } finally {
      sectionSlots.release()
    }
    done.set(index, { index, text: raw, sources: sourcesOf[index]! })
    yield* ctx.checkpoint(state)
    end(index)
  }

  let answer = ''
  const pass = function* (event: StrategyEvent) {
    if (event.type === 'answer-token') answer += event.text
    yield event
  }
  yield* pass({ type: 'answer-token', text: `# ${outline.title}\n\n` })
  merge.add(out)
  for (let i = 0; i < count; i++) {
    const w = done.get(i)
    if (w) replay(w)
    else merge.add(section(i))
  }
  for await (const event of merge) yield* pass(event)

  const summaries = bodies.map((text) =>
    truncateAtSentence(
      rewriteCitations(text, () => undefined)
        .replace(/\s+/g, ' ')
        .trim(),
      SUMMARY_CHARS,
    ),
  )
  const titles = outline.sections.map((s) => s.title)
  const frame = async function* (heading: string, system: string): Step<string> {
    yield* pass({ type: 'answer-token', text: `## ${heading}\n\n` })
    const prompt = fitPrompt({
      system,
      maxTokens: FRAME_TOKENS,
      contextTokens: settings.contextTokens,
      build: (chars) => framePrompt({ question, title: outline.title, sections: titles, summaries: shareChars(summaries, chars) }),
    })
    let text = ''
    for await (const event of ctx.streamAnswer(
      'finalizer',
      { system, prompt, maxTokens: FRAME_TOKENS, temperature: 0 },
      { filter: citationFilter(() => undefined) },
    )) {
      if (event.type === 'answer-token') text += event.text
      yield* pass(event)
    }
    if (!text.trim()) {
      yield ctx.warning(`the ${heading.toLowerCase()} came back empty`, 'empty-output')
      text = heading === 'Summary' ? summaries.filter(Boolean).join(' ') : ''
      if (text) yield* pass({ type: 'answer-token', text })
    }
    yield* pass({ type: 'answer-token', text: '\n\n' })
    return text.trim()
  }
  const introduction = yield* frame('Summary', introductionSystem)
  const conclusion = yield* frame('Conclusion', conclusionSystem)

  const cited = registry.citedIn(bodies.join('\n'))
  if (cited.length) {
    const lines = cited.map((c) => `[${c.index}] ${c.title ? `${c.title}. ` : ''}${c.url}`).join('\n')
    yield* pass({ type: 'answer-token', text: `## References\n\n${lines}\n` })
  }
  yield { type: 'knowledge-update', knowledge: titles.map((t, i) => `${t}: ${summaries[i]}`).join('\n'), iteration: count }
  const reportBody: Report = {
    title: outline.title,
    executiveSummary: introduction,
    mainFindings: summaries,
    conclusions: conclusion ? [conclusion] : [],
    limitations: [],
    recommendations: [],
    sourcesSummary: `${cited.length} source(s) across ${count} section(s).`,
    sections: titles.map((title, i) => ({ title, text: bodies[i]!.trim() })),
  }
  yield { type: 'answer', text: answer, citations: cited, report: reportBody }
}
