/** The report's outline: the planner's prompt and schema, and the total reader of its reply (or of a caller's edit). */
import type { OutlineSection, ReportOutline } from '../../core/contracts/interruption.js'
import { normalizeText, truncateAtSentence } from '../../core/util/text.js'
import { parseLooseJson, stringArrayField, stringField } from '../shared/json.js'
import { distinctQueries, trimEdges } from '../shared/read.js'
import { list, object, query, text } from '../shared/schema.js'

const TITLE_CHARS = 120
const GOAL_CHARS = 300
/** Questions a section keeps at most (its searches are a further cap). */
const QUESTIONS = 3

export const outlineSchema = object('report_outline', {
  title: text(TITLE_CHARS),
  sections: list(object('section', { title: text(TITLE_CHARS), goal: text(GOAL_CHARS), questions: list(query, QUESTIONS) }), 20),
})

export const outlineSystem = `You plan a long research report. Reply with JSON only:
{"title": "...", "sections": [{"title": "...", "goal": "what the section must establish", "questions": ["a web search query", "..."]}]}
Sections do not overlap and together answer the question; each has 1-3 short search queries.`

export function outlinePrompt(args: { question: string; sections: number; notes: string; recalled?: string }): string {
  return `Question: ${args.question}
${args.recalled ? `\nKnown from earlier research:\n${args.recalled}\n` : ''}
What a first search found:
${args.notes || '(nothing)'}

Plan a report of at most ${args.sections} sections.

JSON:`
}

/** A title, goal or question as the outline keeps it: one line, trimmed, bounded. */
function line(value: unknown, maxChars: number): string {
  if (typeof value !== 'string') return ''
  return truncateAtSentence(trimEdges(value.slice(0, maxChars * 2).replace(/\s+/g, ' ')), maxChars)
}

/**
 * The outline in `value` (a model's reply as text, or an object: a caller's edit), read totally:
 * sections without a title and repeated titles are dropped, at most `maxSections` kept, a
 * section without questions searches its title. Undefined when no section is left.
 */
export function readOutline(value: unknown, maxSections: number, fallbackTitle: string): ReportOutline | undefined {
  const parsed = typeof value === 'string' ? parseLooseJson(value, 'object') : value
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined
  const record = parsed as Record<string, unknown>
  const raw = Array.isArray(record.sections) ? record.sections.slice(0, 100) : []
  const seen = new Set<string>()
  const sections: OutlineSection[] = []
  for (const item of raw) {
    if (sections.length >= maxSections) break
    if (typeof item !== 'object' || item === null) continue
    const title = line(stringField(item, 'title', 'heading', 'name') ?? '', TITLE_CHARS)
    const key = normalizeText(title)
    if (!key || seen.has(key)) continue
    seen.add(key)
    const questions = distinctQueries(stringArrayField(item, 'questions', 'queries'), QUESTIONS)
    sections.push({
      title,
      goal: line(stringField(item, 'goal', 'purpose', 'description') ?? '', GOAL_CHARS) || title,
      questions: questions.length ? questions : [title],
    })
  }
  if (!sections.length) return undefined
  return { title: line(stringField(record, 'title') ?? '', TITLE_CHARS) || line(fallbackTitle, TITLE_CHARS), sections }
}
