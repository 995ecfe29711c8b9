import type { Report, StrategyEvent } from '../../core/contracts/events.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { citedAnswer, evidenceText, type AnswerDetails } from '../shared/cited-answer.js'
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
  const { shown, sources } = numberFindings(findings, titles)
  const prompt = { question, findings: shown, sources }
  // A source's evidence is the answers the finalizer saw citing it.
  const evidence = (n: number) => evidenceText(shown.filter((f) => f.sourceNumbers.includes(n)).map((f) => f.answer))
  yield* citedAnswer(ctx, {
    from: {
      request: { system: mode === 'report' ? summarySystem : conversationalSystem, prompt: findingsPrompt(prompt), maxTokens: 500, temperature: 0 },
    },
    // Prompt numbers map to the conversation's numbers; numbers not in the list are invented.
    source: (n) => (sources[n - 1] ? { ...sources[n - 1]!, text: evidence(n) } : undefined),
    empty: {
      warning: 'the finalizer wrote nothing; answering with the findings themselves',
      text: () => (findings.length ? findings.map((f) => f.answer).join(' ') : 'No findings were gathered for this question.'),
    },
    details:
      mode === 'conversational' ? () => ({ confidence: meanConfidence(findings) }) : (text, renumber) => writeReport(question, text, prompt, renumber, ctx),
  })
}

/** The rest of the report, written as JSON after the executive summary (`text`). */
async function* writeReport(
  question: string,
  text: string,
  prompt: Parameters<typeof reportPrompt>[0],
  renumber: (text: string) => string,
  ctx: StrategyContext,
): AsyncGenerator<StrategyEvent, AnswerDetails> {
  const reply = yield* ctx.complete('synthesizer', { system: reportSystem, prompt: reportPrompt(prompt), json: reportSchema, maxTokens: 900, temperature: 0 })
  let body = parseReport(reply)
  if (!body) {
    yield ctx.warning('could not read the report JSON; the report lists the findings', 'unparseable-output')
    body = fallbackReport(question, prompt.findings, prompt.sources.length)
  }
  const report: Report = {
    title: body.title || question,
    executiveSummary: text,
    mainFindings: body.mainFindings.map(renumber),
    conclusions: body.conclusions.map(renumber),
    limitations: body.limitations.map(renumber),
    recommendations: body.recommendations.map(renumber),
    sourcesSummary: renumber(body.sourcesSummary) || `${prompt.sources.length} source(s) across ${prompt.findings.length} finding(s).`,
  }
  return { report, alsoCited: [...report.mainFindings, ...report.conclusions, ...report.limitations, ...report.recommendations, report.sourcesSummary] }
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
