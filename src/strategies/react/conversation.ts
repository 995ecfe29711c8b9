/**
 * What a `react` turn carries from the conversation: the earlier answers, shown in its prompt,
 * and what it leaves for the next turn: its findings, not the log of its calls.
 */
import type { Citation } from '../../core/contracts/events.js'
import type { PriorAnswer } from '../../core/contracts/result.js'
import { truncateAtSentence } from '../../core/util/text.js'
import { rewriteCitations } from '../shared/citations.js'
import type { Source, ToolOutcome } from './tool-notes.js'
import { READ_PAGE } from './tools.js'

/** Characters of one earlier answer at most. */
const ANSWER_CHARS = 800

/**
 * The conversation's earlier answers as prompt lines (`Q:` and `A:`), the newest kept first
 * while they fit in `maxChars`, shown oldest first. Each `[n]` the answer cites becomes the
 * number `cite` gives its source in this run (so the model may cite it again); a number that
 * names no citation of the conversation is dropped.
 */
export function earlierAnswers(priors: readonly PriorAnswer[], citations: readonly Citation[], cite: (citation: Citation) => number, maxChars: number): string {
  const byIndex = new Map(citations.map((c) => [c.index, c]))
  const kept: string[] = []
  let chars = 0
  for (const prior of [...priors].reverse()) {
    if (typeof prior?.query !== 'string' || typeof prior.answer !== 'string' || !prior.answer.trim()) continue
    const answer = rewriteCitations(truncateAtSentence(prior.answer.trim(), ANSWER_CHARS), (n) => {
      const citation = byIndex.get(n)
      return citation ? cite(citation) : undefined
    })
    const entry = `Q: ${prior.query.trim()}\nA: ${answer}`
    if (chars + entry.length > maxChars) break
    kept.unshift(entry)
    chars += entry.length + 2
  }
  return kept.join('\n\n')
}

/** Characters of a search result's snippet, and of a page's text, a finding keeps. */
const SNIPPET_CHARS = 300
const PAGE_CHARS = 400

/** What a search found: one line per result, its source named by URL (a run's `[n]` mean nothing to the next turn). */
export function searchFindings(results: readonly { source: Source; snippet: string }[]): string {
  return results.map(({ source, snippet }) => findingLine(source, snippet, SNIPPET_CHARS)).join('\n')
}

/** What a page read found: its opening text, named by URL. */
export function pageFinding(source: Source, text: string): string {
  return findingLine(source, text, PAGE_CHARS)
}

function findingLine(source: Source, text: string, chars: number): string {
  const said = truncateAtSentence(text.replace(/\s+/g, ' ').trim(), chars)
  return `- ${source.title ? `${source.title}: ` : ''}${said} (${source.url})`
}

/**
 * The knowledge a `react` run leaves: what its calls found (pages read first, then search
 * results and the user's tools, each line once), then the knowledge it was given, whole lines
 * while they fit in `maxChars`.
 */
export function runKnowledge(outcomes: readonly ToolOutcome[], given: string, maxChars: number): string {
  const ok = outcomes.filter((o) => o.ok)
  const ordered = [...ok.filter((o) => o.call.name === READ_PAGE), ...ok.filter((o) => o.call.name !== READ_PAGE)]
  // A user tool's note is what it returned; a checkpoint of an earlier version has no findings.
  const lines = [...ordered.flatMap((o) => (o.finding ?? o.note).split('\n')), ...given.split('\n')]
  const kept: string[] = []
  const seen = new Set<string>()
  let chars = 0
  for (const line of lines) {
    const key = line.trim()
    if (!key || seen.has(key)) continue
    if (chars + line.length > maxChars) break
    seen.add(key)
    kept.push(line)
    chars += line.length + 1
  }
  return kept.join('\n')
}
