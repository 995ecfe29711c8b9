/**
 * The per-row results of an eval: `results.jsonl` in its output folder, one complete line per
 * finished row, each written with a single append. A process killed mid-write can leave only a
 * torn last line (no newline): opening the file cuts it off before anything is appended, and a
 * row seen twice (configuration and id) counts once, so a resumed eval neither re-runs a finished
 * row nor writes it again.
 */
import { mkdir, open, readFile, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import type { EvalRowResult } from './row-result.js'

export const RESULTS_FILE = 'results.jsonl'

export const rowKey = (config: string, id: string): string => `${config}\u0000${id}`

function isRowResult(value: unknown): value is EvalRowResult {
  if (typeof value !== 'object' || value === null) return false
  const row = value as Record<string, unknown>
  return typeof row.config === 'string' && typeof row.id === 'string' && typeof row.answer === 'string' && typeof row.grades === 'object' && row.grades !== null
}

/** The rows of a results text: whole lines only, the first of each key; `torn` is the length of a last line without its newline. */
export function parseResults(text: string): { rows: EvalRowResult[]; torn: number; unreadable: number[] } {
  const end = text.lastIndexOf('\n') + 1
  const rows: EvalRowResult[] = []
  const unreadable: number[] = []
  const seen = new Set<string>()
  for (const [index, line] of text.slice(0, end).split('\n').entries()) {
    if (!line.trim()) continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      unreadable.push(index + 1)
      continue
    }
    if (!isRowResult(value)) {
      unreadable.push(index + 1)
      continue
    }
    const key = rowKey(value.config, value.id)
    if (seen.has(key)) continue
    seen.add(key)
    rows.push(value)
  }
  return { rows, torn: text.length - end, unreadable }
}

/** The rows of an output folder (an eval's, or one to compare); none when it has no results yet. */
export async function readResults(folder: string): Promise<EvalRowResult[]> {
  const text = await readFile(join(folder, RESULTS_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return ''
    throw error
  })
  return parseResults(text).rows
}

export interface ResultsWriter {
  /** The rows finished before (a resumed eval skips them). */
  readonly rows: readonly EvalRowResult[]
  /** Lines that were not a row (reported, then ignored). */
  readonly unreadable: readonly number[]
  /** Whether a torn last line was cut off. */
  readonly repaired: boolean
  append(row: EvalRowResult): Promise<void>
  close(): Promise<void>
}

/** Opens the folder's results for appending: reads what is there, cuts a torn last line, then appends whole lines one at a time. */
export async function openResults(folder: string): Promise<ResultsWriter> {
  await mkdir(folder, { recursive: true })
  const path = join(folder, RESULTS_FILE)
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return ''
    throw error
  })
  const { rows, torn, unreadable } = parseResults(text)
  if (torn > 0) await truncate(path, Buffer.byteLength(text) - Buffer.byteLength(text.slice(text.length - torn)))
  const handle = await open(path, 'a')
  let queue = Promise.resolve()
  return {
    rows,
    unreadable,
    repaired: torn > 0,
    append(row) {
      const line = Buffer.from(`${JSON.stringify(row)}\n`)
      // One write of the whole line, in order: lines never interleave.
      queue = queue.then(async () => {
        let written = 0
        while (written < line.length) written += (await handle.write(line, written, line.length - written)).bytesWritten
      })
      return queue
    },
    close: () => queue.then(() => handle.close()),
  }
}
