/**
 * An eval's questions: rows `{ id, question, answers, evidence?, tags? }`, read from the
 * project's own JSONL or imported from a published format (formats.ts). Reading is total: a bad
 * row becomes a `DatasetProblem` with its line number, and the others are kept.
 */
import type { LocalDocument } from '../adapters/search/index.js'

/** One question of an eval, with the answers that count as right. */
export interface EvalRow {
  /** Unique in its dataset: results are keyed by it (and the configuration), so a resumed eval skips it. */
  id: string
  question: string
  /** Every accepted answer (aliases); grading takes the best match. */
  answers: string[]
  /** What the answer rests on, a passage (`text`), a page (`url`) or both: evidence recall asks whether each one reached a model prompt. */
  evidence?: { url?: string; text?: string }[]
  /** Groups for the per-tag accuracy (a topic, a reasoning type, a difficulty). */
  tags?: string[]
}

/** Something a correct answer rests on. */
export type Evidence = NonNullable<EvalRow['evidence']>[number]

/** A row that was skipped, and why. */
export type DatasetProblem = Dataset['problems'][number]

/** The rows read, the rows skipped, and (HotpotQA) the documents its questions come with. */
export interface Dataset {
  rows: EvalRow[]
  /** The rows skipped, and why: `line` is 1-based, in the file as read. */
  problems: { line: number; message: string }[]
  /**
   * Documents that come with the questions (HotpotQA's context paragraphs): search them with
   * `localCorpus({ documents })` to run the eval offline.
   */
  documents?: LocalDocument[]
}

/** A row's fields as found in a record, before they are checked. */
export interface RawRow {
  id?: unknown
  question?: unknown
  answers?: unknown
  evidence?: unknown
  tags?: unknown
}

const MAX_QUESTION_CHARS = 20_000

/** Checks one row; a string says what is wrong with it. Numbers are taken as ids; duplicates are refused by `collect`. */
export function checkRow(raw: RawRow, fallbackId: string): EvalRow | string {
  const id = typeof raw.id === 'number' && Number.isFinite(raw.id) ? String(raw.id) : raw.id === undefined || raw.id === '' ? fallbackId : raw.id
  if (typeof id !== 'string') return '`id` must be a string or a number'
  if (typeof raw.question !== 'string' || !raw.question.trim()) return '`question` must be a non-empty string'
  if (raw.question.length > MAX_QUESTION_CHARS) return `\`question\` is longer than ${MAX_QUESTION_CHARS} characters`
  const answers = raw.answers
  if (!Array.isArray(answers) || answers.length === 0) return '`answers` must be a non-empty array of strings'
  if (!answers.every((answer) => typeof answer === 'string' && answer.trim())) return '`answers` must hold non-empty strings only'
  const row: EvalRow = { id, question: raw.question.trim(), answers: answers.map((answer: string) => answer.trim()) }
  if (raw.evidence !== undefined && raw.evidence !== null) {
    if (!Array.isArray(raw.evidence)) return '`evidence` must be an array of { url?, text? }'
    const evidence: Evidence[] = []
    for (const item of raw.evidence) {
      if (typeof item !== 'object' || item === null) return '`evidence` must be an array of { url?, text? }'
      const { url, text } = item as Record<string, unknown>
      if ((url !== undefined && typeof url !== 'string') || (text !== undefined && typeof text !== 'string') || (!url && !text)) {
        return 'each `evidence` item needs a string `url` or `text`'
      }
      evidence.push({ ...(url ? { url } : {}), ...(text ? { text } : {}) })
    }
    if (evidence.length > 0) row.evidence = evidence
  }
  if (raw.tags !== undefined && raw.tags !== null) {
    if (!Array.isArray(raw.tags) || !raw.tags.every((tag) => typeof tag === 'string')) return '`tags` must be an array of strings'
    const tags = raw.tags.map((tag: string) => tag.trim()).filter(Boolean)
    if (tags.length > 0) row.tags = tags
  }
  return row
}

/** Gathers checked rows: a bad one or a repeated id becomes a problem at its line. */
export function collect(records: Iterable<{ line: number; row: RawRow | string }>): Dataset {
  const rows: EvalRow[] = []
  const problems: DatasetProblem[] = []
  const seen = new Map<string, number>()
  for (const { line, row: raw } of [...records].sort((a, b) => a.line - b.line)) {
    const row = typeof raw === 'string' ? raw : checkRow(raw, `line-${line}`)
    if (typeof row === 'string') {
      problems.push({ line, message: row })
      continue
    }
    const first = seen.get(row.id)
    if (first !== undefined) {
      problems.push({ line, message: `id "${row.id}" repeats line ${first}` })
      continue
    }
    seen.set(row.id, line)
    rows.push(row)
  }
  return { rows, problems }
}
