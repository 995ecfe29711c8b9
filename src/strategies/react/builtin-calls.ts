/**
 * The built-in tools of a `react` run at work: `search` numbers its results as sources, and
 * `read_page` shows the passages of a page that best match the question, each a source of its own.
 */
import type { StrategyEvent } from '../../core/contracts/events.js'
import type { ToolCall } from '../../core/contracts/providers.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'
import { documentPassages, passageTitle } from '../../documents/passages.js'
import { pageFinding, searchFindings } from './conversation.js'
import { bound, type ToolNotes, type ToolOutcome } from './tool-notes.js'

/** What the built-ins work with: the run, its tool notes and the result bound. */
export interface BuiltinInit {
  ctx: StrategyContext
  notes: ToolNotes
  resultChars: number
}

/** Characters of a tool's error the model sees. */
export const ERROR_CHARS = 400

/** A failed call as the model sees it (its error, bounded) and as the notes keep it. */
export function failed(call: ToolCall, error: string): ToolOutcome {
  const content = bound(`Error: ${error}`, ERROR_CHARS)
  return { call, ok: false, content, note: `- ${bound(call.name, 60)}: failed (${bound(error, 120)})` }
}

export async function* searchCall({ ctx, notes, resultChars }: BuiltinInit, call: ToolCall, query: string): AsyncGenerator<StrategyEvent, ToolOutcome> {
  const outcome = yield* ctx.runSearch(query)
  if (outcome.error) return failed(call, `search failed: ${outcome.error.message}`)
  if (!outcome.results.length) return { call, ok: true, content: 'No results.', note: `- search "${query}": no results` }
  const lines = outcome.results.map((r) => {
    const source = notes.source(r.url, r.title, false)
    const snippet = bound(r.snippet, 400)
    notes.saw(source, snippet)
    return { source, snippet: r.snippet, text: `[${source.n}] ${r.title}\n${r.url}\n${snippet}` }
  })
  const content = bound(lines.map((l) => l.text).join('\n\n'), resultChars)
  return {
    call,
    ok: true,
    content,
    note: `- search "${query}": ${lines.map((l) => `[${l.source.n}] ${bound(l.source.title ?? l.source.url, 60)}`).join('; ')}`,
    finding: searchFindings(lines),
  }
}

export async function* readPageCall({ ctx, notes, resultChars }: BuiltinInit, call: ToolCall, ref: string): AsyncGenerator<StrategyEvent, ToolOutcome> {
  // The model may name a source by its number instead of its URL.
  const number = /^\[?(\d{1,4})\]?$/.exec(ref.trim())
  const url = number ? notes.find(Number(number[1]))?.url : ref.trim()
  if (!url || !/^https?:\/\//i.test(url)) return failed(call, `\`${bound(ref, 100)}\` is not the URL of a source; pass a URL from the search results`)
  const page = yield* ctx.readPage(url)
  if (!page) return failed(call, `could not read ${url}`)
  // What the page holds for the question: a document's pages each a source of their own.
  const passages = await documentPassages({ ...page, url: page.url || url }, ctx.question, resultChars)
  if (passages.length === 0) passages.push({ url: page.url || url, text: '' })
  const shown = passages.map((passage) => {
    const title = page.title ? passageTitle(page.title, passage) : undefined
    const source = notes.source(passage.url, title, true)
    notes.saw(source, passage.text)
    return { source, title, text: passage.text }
  })
  const text = shown.map((s) => s.text).join(' ')
  return {
    call,
    ok: true,
    content: shown.map((s) => `[${s.source.n}] ${s.title ?? ''}\n${s.source.url}\n${s.text}`).join('\n\n'),
    note: `- read ${shown.map((s) => `[${s.source.n}]`).join(' ')}: ${bound(text.replace(/\s+/g, ' '), 240)}`,
    finding: shown.map((s) => pageFinding(s.source, s.text)).join('\n'),
  }
}
