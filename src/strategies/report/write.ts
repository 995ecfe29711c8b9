/** Writing a report: its sections side by side, streamed in outline order, then the summary, the conclusion, the references and the answer. */
import type { Report, StrategyEvent } from '../../core/contracts/events.js'
import type { OutlineSection, ReportOutline } from '../../core/contracts/interruption.js'
import { isAbortError } from '../../core/contracts/laconic-error.js'
import type { Step, StrategyContext } from '../../core/contracts/strategy-types.js'
import { runVerifyMode } from '../../core/run/shared-options.js'
import { createMerge } from '../../core/util/merge.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { CitationRegistry, citationFilter, rewriteCitations } from '../shared/citations.js'
import { recalledFindings } from '../shared/recalled.js'
import { claimChecker } from '../shared/verify-claims.js'
import { fitPrompt, shareChars } from './fit.js'
import { inOrder, type SectionRender } from './in-order.js'
import type { ReportSettings } from './options.js'
import { conclusionSystem, framePrompt, introductionSystem, sectionPrompt, sectionSystem, type ShownSource } from './prompts.js'
import { researchSection, type SectionResearch } from './section.js'
import { channel, slots } from './slots.js'

const FRAME_TOKENS = 500
/** A section summary (for the introduction and conclusion) at most, in characters. */
const SUMMARY_CHARS = 400
/** Recalled findings (long-term memory) shown to the planner, and offered to each section as sources, at most. */
export const RECALLED_SHOWN = 3

/** A section written, as a checkpoint keeps it: its text as the model wrote it (numbers as its prompt showed the sources) and those sources. */
export interface WrittenSection {
  index: number
  text: string
  sources: ShownSource[]
}

/** What a report checkpoint holds: the outline, and every section written so far (in any order). */
export interface ReportState {
  outline: ReportOutline
  /** The run paused for approval of this outline. */
  pending?: boolean
  written: WrittenSection[]
}

/** The sections (those in `written` are not written again), the introduction, the conclusion, the references and the answer. */
export async function* writeReport(
  question: string,
  outline: ReportOutline,
  written: readonly WrittenSection[],
  ctx: StrategyContext,
  settings: ReportSettings,
): Step<void> {
  const answer = answerText()
  yield* answer.pass({ type: 'answer-token', text: `# ${outline.title}\n\n` })
  const sections = sectionsInOrder(outline, written, ctx, settings)
  for await (const event of sections.events) yield* answer.pass(event)
  yield* closeReport(question, outline, { ...sections, answer }, ctx, settings)
}

/** The answer's text, gathered from the `answer-token`s passed on. */
function answerText(): { readonly text: string; pass(event: StrategyEvent): Generator<StrategyEvent> } {
  let text = ''
  return {
    get text() {
      return text
    },
    *pass(event) {
      if (event.type === 'answer-token') text += event.text
      yield event
    },
  }
}

/** What the sections of one report share while they are written side by side. */
interface SectionWork {
  outline: ReportOutline
  ctx: StrategyContext
  settings: ReportSettings
  /** Sections in work at once: `concurrency`. */
  places: ReturnType<typeof slots>
  /** The sources each section's prompt showed, by section. */
  sourcesOf: ShownSource[][]
  /** The sections written, for the checkpoint. */
  done: Map<number, WrittenSection>
  /** Takes a section's raw text: its events go out in outline order. */
  push(index: number, text: string): void
  /** The section is over: its closing events go out, in order. */
  end(index: number): void
  /** The budget warning was given (once a report). */
  budgetWarned: boolean
}

/**
 * Every section's events in outline order (those in `written` replayed), with each claim check
 * as it settles; the bodies as they were streamed, and the citation registry numbering them.
 */
function sectionsInOrder(
  outline: ReportOutline,
  written: readonly WrittenSection[],
  ctx: StrategyContext,
  settings: ReportSettings,
): { events: AsyncIterable<StrategyEvent>; bodies: string[]; registry: CitationRegistry } {
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

  // Every section's streamed events go through one channel, in the order `order` made them.
  const out = channel<StrategyEvent>()
  let finished = 0
  const work: SectionWork = {
    outline,
    ctx,
    settings,
    places: slots(settings.concurrency),
    sourcesOf,
    done,
    push: (index, text) => out.put(order.push(index, text)),
    end: (index) => {
      out.put(order.end(index))
      if (++finished === count) out.close()
    },
    budgetWarned: false,
  }
  merge.add(out)
  for (let i = 0; i < count; i++) {
    const w = done.get(i)
    if (w) {
      work.push(w.index, w.text)
      work.end(w.index)
    } else merge.add(writeSection(i, work))
  }
  return { events: merge, bodies, registry }
}

/** One section: researched (unless the budget is spent), written by the finalizer, checkpointed. */
async function* writeSection(index: number, work: SectionWork): Step<void> {
  const { outline, ctx, settings } = work
  const planned = outline.sections[index]!
  await work.places.acquire()
  let raw = ''
  try {
    let research: SectionResearch = { sources: [], facts: [] }
    if (ctx.budgetExhausted()) {
      if (!work.budgetWarned) yield ctx.warning('the budget is nearly spent: the remaining sections are written without research', 'budget')
      work.budgetWarned = true
    } else research = yield* researchSection(planned, outline.title, ctx, { ...settings, recalled: recalledFindings(ctx).slice(0, RECALLED_SHOWN) })
    work.sourcesOf[index] = research.sources
    raw = yield* streamSection(index, planned, research, work)
    if (!raw.trim()) {
      yield ctx.warning(`the section "${planned.title}" came back empty`, 'empty-output')
      raw = research.facts.length
        ? research.facts.map((f) => `${f.text} ${f.sources.map((n) => `[${n}]`).join('')}`).join(' ')
        : 'The sources found do not cover this section.'
      work.push(index, raw)
    }
  } finally {
    work.places.release()
  }
  work.done.set(index, { index, text: raw, sources: work.sourcesOf[index]! })
  yield* ctx.checkpoint((): ReportState => ({ outline, written: [...work.done.values()].sort((a, b) => a.index - b.index) }))
  work.end(index)
}

/** The finalizer's text of one section, streamed as it comes (within its characters); a failed call keeps what streamed. */
async function* streamSection(index: number, planned: OutlineSection, research: SectionResearch, work: SectionWork): Step<string> {
  const { outline, ctx, settings } = work
  const words = settings.sectionWords
  const maxChars = words * 12
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
  let raw = ''
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
      work.push(index, piece)
    }
  } catch (error) {
    // One section's failed call (after the runtime's retries) costs that section, not the report.
    if (ctx.signal.aborted || isAbortError(error)) throw error
    const why = error instanceof Error ? error.message : String(error)
    yield ctx.warning(`the section "${planned.title}" could not be written (${why.slice(0, 200)}); it keeps what streamed`, 'section-failed')
  }
  if (cut) yield ctx.warning(`the section "${planned.title}" ran past ${maxChars} characters; the rest was dropped`, 'unparseable-output')
  return raw
}

/** After the sections: the summary and the conclusion (streamed), the references, what a follow-up knows, and the answer event. */
async function* closeReport(
  question: string,
  outline: ReportOutline,
  written: { bodies: readonly string[]; registry: CitationRegistry; answer: ReturnType<typeof answerText> },
  ctx: StrategyContext,
  settings: ReportSettings,
): Step<void> {
  const { bodies, registry, answer } = written
  const count = outline.sections.length
  const summaries = bodies.map((text) =>
    truncateAtSentence(
      rewriteCitations(text, () => undefined)
        .replace(/\s+/g, ' ')
        .trim(),
      SUMMARY_CHARS,
    ),
  )
  const titles = outline.sections.map((s) => s.title)
  const frame = { question, title: outline.title, sections: titles, summaries }
  const introduction = yield* writeFrame('Summary', introductionSystem, frame, { ctx, settings, answer })
  const conclusion = yield* writeFrame('Conclusion', conclusionSystem, frame, { ctx, settings, answer })

  const cited = registry.citedIn(bodies.join('\n'))
  if (cited.length) {
    const lines = cited.map((c) => `[${c.index}] ${c.title ? `${c.title}. ` : ''}${c.url}`).join('\n')
    yield* answer.pass({ type: 'answer-token', text: `## References\n\n${lines}\n` })
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
  yield { type: 'answer', text: answer.text, citations: cited, report: reportBody }
}

/** The summary or the conclusion under its heading, streamed from the sections' summaries (the summaries themselves when a summary comes back empty). */
async function* writeFrame(
  heading: string,
  system: string,
  frame: { question: string; title: string; sections: readonly string[]; summaries: readonly string[] },
  { ctx, settings, answer }: { ctx: StrategyContext; settings: ReportSettings; answer: ReturnType<typeof answerText> },
): Step<string> {
  yield* answer.pass({ type: 'answer-token', text: `## ${heading}\n\n` })
  const prompt = fitPrompt({
    system,
    maxTokens: FRAME_TOKENS,
    contextTokens: settings.contextTokens,
    build: (chars) => framePrompt({ ...frame, summaries: shareChars(frame.summaries, chars) }),
  })
  let text = ''
  for await (const event of ctx.streamAnswer(
    'finalizer',
    { system, prompt, maxTokens: FRAME_TOKENS, temperature: 0 },
    { filter: citationFilter(() => undefined) },
  )) {
    if (event.type === 'answer-token') text += event.text
    yield* answer.pass(event)
  }
  if (!text.trim()) {
    yield ctx.warning(`the ${heading.toLowerCase()} came back empty`, 'empty-output')
    text = heading === 'Summary' ? frame.summaries.filter(Boolean).join(' ') : ''
    if (text) yield* answer.pass({ type: 'answer-token', text })
  }
  yield* answer.pass({ type: 'answer-token', text: '\n\n' })
  return text.trim()
}
