import type { Report, StrategyContext, StrategyEvent } from '../../core/index.js'
import { CitationRegistry, citationFilter, rewriteCitations } from '../shared/citations.js'
import { meanConfidence, numberFindings, type Finding, type SourceTitles } from './findings.js'
import { parseReport, type ReportBody } from './parse.js'
import { conversationalSystem, findingsPrompt, reportPrompt, reportSystem, summarySystem, type ShownFinding } from './prompts.js'
import { reportSchema } from './schemas.js'

/**
 * The final output. `report`: the executive summary streams as the answer, then the rest of the
 * report is written as JSON and put on `answer.report`. `conversational`: a direct cited answer
 * with `confidence` (the mean confidence of the findings it draws on).
 */
export async function* synthesize(
  question: string,
  findings: readonly Finding[],
  mode: 'report' | 'conversational',
  titles: SourceTitles,
  ctx: StrategyContext,
): AsyncGenerator<StrategyEvent> {
  const registry = new CitationRegistry(ctx.input.citations)
  const { shown, sources } = numberFindings(findings, titles)
  // Prompt numbers map to the conversation's numbers; numbers not in the list are invented.
  const toStable = (n: number) => {
    const source = sources[n - 1]
    return source ? registry.indexOf(source.url, source.title || undefined) : undefined
  }
  const prompt = { question, findings: shown, sources }

  const streamed = yield* ctx.streamAnswer(
    'finalizer',
    { system: mode === 'report' ? summarySystem : conversationalSystem, prompt: findingsPrompt(prompt), maxTokens: 500, temperature: 0 },
    { filter: citationFilter(toStable) },
  )
  let text = streamed
  if (!streamed.trim()) {
    yield ctx.warning('the finalizer wrote nothing; answering with the findings themselves', 'empty-output')
    const fallback = findings.length ? findings.map((f) => f.answer).join(' ') : 'No findings were gathered for this question.'
    yield { type: 'answer-token', text: fallback }
    text = streamed + fallback
  }

  if (mode === 'conversational') {
    yield { type: 'answer', text, citations: registry.citedIn(text), confidence: meanConfidence(findings) }
    return
  }

  const reply = yield* ctx.complete('synthesizer', { system: reportSystem, prompt: reportPrompt(prompt), json: reportSchema, maxTokens: 900, temperature: 0 })
  let body = parseReport(reply)
  if (!body) {
    yield ctx.warning('could not read the report JSON; the report lists the findings', 'unparseable-output')
    body = fallbackReport(question, shown, sources.length)
  }
  const rewrite = (s: string) => rewriteCitations(s, toStable)
  const report: Report = {
    title: body.title || question,
    executiveSummary: text,
    mainFindings: body.mainFindings.map(rewrite),
    conclusions: body.conclusions.map(rewrite),
    limitations: body.limitations.map(rewrite),
    recommendations: body.recommendations.map(rewrite),
    sourcesSummary: rewrite(body.sourcesSummary) || `${sources.length} source(s) across ${findings.length} finding(s).`,
  }
  const everything = [text, ...report.mainFindings, ...report.conclusions, ...report.limitations, ...report.recommendations, report.sourcesSummary].join('\n')
  yield { type: 'answer', text, citations: registry.citedIn(everything), report }
}

function fallbackReport(question: string, findings: readonly ShownFinding[], sourceCount: number): ReportBody {
  return {
    title: question,
    mainFindings: findings.map((f) => `${f.query} — ${f.answer}${f.sourceNumbers.map((n) => ` [${n}]`).join('')}`),
    conclusions: [],
    limitations: ['The report could not be structured; the findings are the answers to each sub-question.'],
    recommendations: [],
    sourcesSummary: `${sourceCount} source(s) across ${findings.length} finding(s).`,
  }
}
