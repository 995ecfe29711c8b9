/**
 * What a browser may see of a failure. A provider's error text names its endpoint (often an
 * internal URL), so with `maskErrors` every failure text becomes a short message and its `code`
 * and the full text goes to `onError` (the server's log). Warnings the library writes itself,
 * with no error text in them, are shown as they are.
 */
import type { WarningCode } from '../core/contracts/events.js'

/** A failure hidden from the client: where it was, its code and its full message. */
export interface MaskedError {
  /** `run`: the run's error; `warning`: a warning's message; `search`: a failed search; `tool`: a failed tool call; `request`: the chat handler's own (a store that failed). */
  kind: 'run' | 'warning' | 'search' | 'tool' | 'request'
  code: string
  /** The full text, as the run reported it. */
  message: string
  runId?: string | undefined
  /** The chat, when the chat handler reports it. */
  chatId?: string | undefined
}

/** Where a masked failure's full text goes. @defaultValue one `console.error` line each */
export type OnMaskedError = (error: MaskedError) => void

/** Warnings whose text the library writes from its own words (no error text in it): shown as they are. */
const OWN_WORDS: ReadonlySet<WarningCode> = new Set<WarningCode>([
  'search-empty',
  'checkpoint-locked',
  'budget',
  'max-iterations',
  'unparseable-output',
  'empty-output',
  'no-sources',
  'no-facts',
  'forced-search',
  'repeated-query',
  'empty-question',
  'repeated-question',
  'ungrounded-facts',
  'invented-source',
  'repeated-call',
  'answer-rejected',
  'answer-ungrounded',
  'approval-needed',
  'approval-unavailable',
  'approval-missing',
  'plan-rejected',
  'slow-subscriber',
  'resumed',
])

/** Warnings that say a search, a page read or a model call failed (not a retry: that may still work). */
const FAILURES: ReadonlySet<string> = new Set([
  'search-failed',
  'fetch-failed',
  'node-failed',
  'network',
  'http',
  'auth',
  'rate-limit',
  'timeout',
  'bad-response',
  'not-found',
  'blocked-url',
  'unsupported-content',
  'refusal',
  'strategy',
  'error',
])

const KIND_TEXT: Partial<Record<MaskedError['kind'], string>> = {
  run: 'the research failed',
  search: 'the search failed',
  tool: 'the tool call failed',
  request: 'the chat could not start',
}

const WARNING_TEXT: Readonly<Record<string, string>> = {
  retry: 'a call is being retried',
  'search-failed': 'a search failed',
  'fetch-failed': 'a page could not be read',
  'node-failed': 'a research step failed',
  'tools-unsupported': 'the model cannot call tools; using the text protocol',
  'checkpoint-failed': 'a checkpoint could not be saved',
  'recall-failed': 'earlier findings could not be recalled',
  'session-failed': 'the conversation could not be saved',
  'extraction-fallback': 'a page was read with the fallback extractor',
}

/** Whether a warning's message may reach a browser when errors are masked. */
export function isOwnWords(code: string): boolean {
  return OWN_WORDS.has(code as WarningCode)
}

/** Whether a warning says that a call failed. */
export function isFailure(code: string): boolean {
  return FAILURES.has(code)
}

/** The short text a browser sees instead of a failure's own. */
export function maskedText(kind: MaskedError['kind'], code: string): string {
  const text = KIND_TEXT[kind] ?? WARNING_TEXT[code] ?? 'a call failed'
  return `${text} (${code})`
}

/** The default `onError`: one line on the server's console. */
export const logMaskedError: OnMaskedError = (error) => {
  const where = [error.chatId && `chat ${error.chatId}`, error.runId && `run ${error.runId}`].filter(Boolean).join(', ')
  console.error(`laconic: hidden from the client (${error.kind}, ${error.code}${where ? `, ${where}` : ''}): ${error.message}`)
}
