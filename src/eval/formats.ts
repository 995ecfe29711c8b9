/**
 * The published question sets, read from the files users have (nothing downloads): SimpleQA's
 * CSV, FRAMES' TSV (or CSV), HotpotQA's JSON, laconic's own JSONL, and any CSV or JSONL with a
 * column mapping. Each turns its records into raw rows for `collect`, with line numbers.
 */
import { parse } from 'csv-parse/sync'
import type { LocalDocument } from '../adapters/search/index.js'
import { collect, type Dataset, type Evidence, type RawRow } from './dataset.js'
import { parsePythonLiteral } from './python-literal.js'

/** A file's format. */
export type DatasetFormat = NonNullable<ReadDatasetOptions['format']>

/** Which column or field holds each part of a row. */
export type ColumnMapping = NonNullable<ReadDatasetOptions['mapping']>

type Records = { line: number; row: RawRow | string }[]

/** A cell as a list: a JSON or Python list, else split on `separator`, else the one value. */
function listCell(value: unknown, separator?: string): unknown[] {
  if (value === undefined || value === null || value === '') return []
  if (Array.isArray(value)) return value
  if (typeof value !== 'string') return [value]
  const trimmed = value.trim()
  if (trimmed.startsWith('[')) {
    const list = parseJsonOrPython(trimmed)
    if (Array.isArray(list)) return list
  }
  return separator ? trimmed.split(separator).map((part) => part.trim()) : [trimmed]
}

function parseJsonOrPython(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return parsePythonLiteral(text)
  }
}

function evidenceItems(values: readonly unknown[]): Evidence[] | unknown[] {
  return values.map((value) => (typeof value === 'string' ? (/^https?:\/\//i.test(value.trim()) ? { url: value.trim() } : { text: value }) : value))
}

function mappedRow(get: (column: string) => unknown, mapping: ColumnMapping): RawRow {
  const evidence = mapping.evidence ? listCell(get(mapping.evidence), mapping.separator) : []
  return {
    ...(mapping.id ? { id: get(mapping.id) } : {}),
    question: get(mapping.question),
    answers: listCell(get(mapping.answers), mapping.separator),
    ...(evidence.length ? { evidence: evidenceItems(evidence) } : {}),
    ...(mapping.tags ? { tags: listCell(get(mapping.tags), mapping.separator) } : {}),
  }
}

/** JSONL: one object a line; blank lines are skipped, a line that is not an object is a problem. */
function jsonlRecords(text: string, toRow: (record: Record<string, unknown>) => RawRow): Records {
  const records: Records = []
  const lines = text.split(/\r?\n/)
  for (const [index, line] of lines.entries()) {
    if (!line.trim()) continue
    let record: unknown
    try {
      record = JSON.parse(line)
    } catch {
      records.push({ line: index + 1, row: 'not valid JSON' })
      continue
    }
    records.push({
      line: index + 1,
      row: typeof record === 'object' && record !== null && !Array.isArray(record) ? toRow(record as Record<string, unknown>) : 'not a JSON object',
    })
  }
  return records
}

/** A CSV or TSV table: its header, and each record by column name with the line it ends on. */
function table(text: string): { header: string[]; records: Records; rows: { line: number; cells: Map<string, string> }[] } {
  const delimiter = (text.split('\n', 1)[0] ?? '').includes('\t') ? '\t' : ','
  const problems: Records = []
  const parsed = parse(text, {
    delimiter,
    bom: true,
    info: true,
    relax_column_count: true,
    relax_quotes: delimiter === '\t',
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      problems.push({ line: typeof error?.lines === 'number' ? error.lines : 0, row: `unreadable record: ${error?.message ?? 'bad quoting'}` })
      return undefined
    },
  }) as unknown as { record: string[]; info: { lines: number } }[]
  const [first, ...rest] = parsed
  const header = (first?.record ?? []).map((name) => name.trim())
  const rows: { line: number; cells: Map<string, string> }[] = []
  for (const { record, info } of rest) {
    if (record.length !== header.length) {
      problems.push({ line: info.lines, row: `${record.length} columns where the header has ${header.length}` })
      continue
    }
    rows.push({ line: info.lines, cells: new Map(header.map((name, index) => [name, record[index] ?? ''])) })
  }
  return { header, records: problems, rows }
}

function needColumns(header: readonly string[], columns: readonly string[], format: string): void {
  const missing = columns.filter((column) => !header.includes(column))
  if (missing.length) throw new Error(`not a ${format} file: no column ${missing.map((c) => `"${c}"`).join(', ')} (its header: ${header.join(', ')})`)
}

/** SimpleQA: `metadata` (a Python dict: topic, answer_type, urls), `problem`, `answer`. */
function simpleqa(text: string): Records {
  const { header, records, rows } = table(text)
  needColumns(header, ['problem', 'answer'], 'SimpleQA')
  for (const { line, cells } of rows) {
    const metadata = parsePythonLiteral(cells.get('metadata') ?? '')
    const meta = typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {}
    const tags = [meta.topic, meta.answer_type].filter((tag): tag is string => typeof tag === 'string')
    const urls = Array.isArray(meta.urls) ? meta.urls.filter((url): url is string => typeof url === 'string') : []
    records.push({
      line,
      row: {
        id: `simpleqa-${line}`,
        question: cells.get('problem'),
        answers: listCell(cells.get('answer')),
        ...(urls.length ? { evidence: urls.map((url) => ({ url })) } : {}),
        ...(tags.length ? { tags } : {}),
      },
    })
  }
  return records
}

/** FRAMES: `Prompt`, `Answer`, `wiki_links` (a Python list), `reasoning_types` (`a | b`), and an unnamed index column. */
function frames(text: string): Records {
  const { header, records, rows } = table(text)
  needColumns(header, ['Prompt', 'Answer'], 'FRAMES')
  const indexColumn = header.find((name) => name === '' || name === 'Unnamed: 0' || name === 'index')
  for (const { line, cells } of rows) {
    const links = listCell(cells.get('wiki_links')).filter((link): link is string => typeof link === 'string' && /^https?:\/\//.test(link))
    const tags = (cells.get('reasoning_types') ?? '')
      .split('|')
      .map((tag) => tag.trim())
      .filter(Boolean)
    const index = indexColumn !== undefined ? cells.get(indexColumn) : undefined
    records.push({
      line,
      row: {
        id: index ? `frames-${index}` : `frames-${line}`,
        question: cells.get('Prompt'),
        answers: listCell(cells.get('Answer')),
        ...(links.length ? { evidence: links.map((url) => ({ url })) } : {}),
        ...(tags.length ? { tags } : {}),
      },
    })
  }
  return records
}

/** Where each top-level item of a JSON array starts (1-based lines), by a scan that skips strings. */
function arrayItemLines(text: string): number[] {
  const lines: number[] = []
  let line = 1
  let depth = 0
  let inString = false
  for (let at = 0; at < text.length; at++) {
    const char = text[at]
    if (char === '\n') line++
    if (inString) {
      if (char === '\\') at++
      else if (char === '"') inString = false
      continue
    }
    if (char === '"') inString = true
    else if (char === '[' || char === '{') {
      if (depth === 1) lines.push(line)
      depth++
    } else if (char === ']' || char === '}') depth--
  }
  return lines
}

const hotpotUrl = (title: string) => `hotpotqa:${encodeURIComponent(title)}`

/**
 * HotpotQA: an array of `{ _id, question, answer, supporting_facts: [[title, sentence]],
 * context: [[title, [sentences]]], type, level }`. The supporting sentences are the evidence;
 * every context paragraph becomes a document of the offline corpus.
 */
function hotpotqa(text: string): Dataset {
  let items: unknown
  try {
    items = JSON.parse(text)
  } catch (error) {
    throw new Error(`not a HotpotQA file: ${error instanceof Error ? error.message : 'not JSON'}`)
  }
  if (!Array.isArray(items)) throw new Error('not a HotpotQA file: it holds no JSON array')
  const lines = arrayItemLines(text)
  const documents = new Map<string, LocalDocument>()
  const records: Records = items.map((item, index) => {
    const line = lines[index] ?? 0
    if (typeof item !== 'object' || item === null) return { line, row: 'not a JSON object' }
    const { _id, question, answer, supporting_facts, context, type, level } = item as Record<string, unknown>
    if (typeof answer !== 'string') return { line, row: 'no `answer` (a test-set question without its answer?)' }
    const paragraphs = new Map<string, string[]>()
    for (const entry of Array.isArray(context) ? context : []) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) continue
      const sentences = entry[1].filter((sentence): sentence is string => typeof sentence === 'string')
      paragraphs.set(entry[0], sentences)
      if (!documents.has(entry[0])) documents.set(entry[0], { id: entry[0], title: entry[0], text: sentences.join('').trim(), url: hotpotUrl(entry[0]) })
    }
    const evidence: Evidence[] = []
    for (const fact of Array.isArray(supporting_facts) ? supporting_facts : []) {
      if (!Array.isArray(fact) || typeof fact[0] !== 'string' || typeof fact[1] !== 'number') continue
      const sentence = paragraphs.get(fact[0])?.[fact[1]]?.trim()
      evidence.push(sentence ? { url: hotpotUrl(fact[0]), text: sentence } : { url: hotpotUrl(fact[0]) })
    }
    const tags = [type, level].filter((tag): tag is string => typeof tag === 'string')
    return { line, row: { id: _id, question, answers: [answer], ...(evidence.length ? { evidence } : {}), ...(tags.length ? { tags } : {}) } }
  })
  return { ...collect(records), documents: [...documents.values()] }
}

/** The format a file's name and first line suggest; `undefined` when only a mapping can read it. */
export function guessFormat(path: string, text: string): DatasetFormat | undefined {
  const lower = path.toLowerCase()
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl'
  if (lower.endsWith('.json')) return 'hotpotqa'
  const header = (text.split('\n', 1)[0] ?? '').replace(/^\uFEFF/, '')
  if (/(^|[,\t])"?problem"?([,\t]|$)/.test(header) && /(^|[,\t])"?answer"?([,\t]|$)/.test(header)) return 'simpleqa'
  if (/(^|[,\t])"?Prompt"?([,\t]|$)/.test(header) && /(^|[,\t])"?Answer"?([,\t]|$)/.test(header)) return 'frames'
  if (lower.endsWith('.csv') || lower.endsWith('.tsv')) return 'csv'
  return undefined
}

/** Options of `parseDataset` and `readDataset`: the format (guessed from the name and header when absent) and a column mapping. */
export interface ReadDatasetOptions {
  /** laconic's JSONL, a published set, or a CSV/JSONL read through a `mapping`. */
  format?: 'jsonl' | 'simpleqa' | 'frames' | 'hotpotqa' | 'csv'
  /**
   * Which column (CSV) or field (JSONL in another shape) holds each part of a row. A cell holding
   * a list (JSON or Python, `["a", "b"]`) gives several answers, evidence items or tags;
   * `separator` splits a plain cell instead (e.g. `|`). Evidence that looks like a URL is a page,
   * anything else a passage.
   */
  mapping?: { id?: string; question: string; answers: string; evidence?: string; tags?: string; separator?: string }
}

/**
 * Reads a dataset's text. Bad rows are `problems` (line and reason), never silently dropped; a
 * file that is not the format at all (no such column, not JSON) throws, naming what is missing.
 */
export function parseDataset(text: string, options: ReadDatasetOptions & { path?: string } = {}): Dataset {
  const format = options.format ?? guessFormat(options.path ?? '', text) ?? (options.mapping ? 'csv' : undefined)
  const { mapping } = options
  switch (format) {
    case 'jsonl':
      return collect(jsonlRecords(text, (record) => (mapping ? mappedRow((key) => record[key], mapping) : record)))
    case 'simpleqa':
      return collect(simpleqa(text))
    case 'frames':
      return collect(frames(text))
    case 'hotpotqa':
      return hotpotqa(text)
    case 'csv': {
      if (!mapping) throw new Error('a CSV of another shape needs a column mapping: which columns hold the question and the answers')
      const { header, records, rows } = table(text)
      needColumns(header, [mapping.question, mapping.answers, ...(mapping.id ? [mapping.id] : [])], 'mapped CSV')
      for (const { line, cells } of rows) records.push({ line, row: mappedRow((column) => cells.get(column), mapping) })
      return collect(records)
    }
    default:
      throw new Error(`unknown dataset format${options.path ? ` for ${options.path}` : ''}: pass one of jsonl, simpleqa, frames, hotpotqa, csv`)
  }
}
