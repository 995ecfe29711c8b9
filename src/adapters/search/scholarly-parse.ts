/**
 * arXiv's and NCBI's XML answers, parsed off the main thread: a body is untrusted, and parsing
 * a few megabytes of it would hold the event loop. The extraction worker pool reads it under a
 * time budget; a runtime without worker threads reads it in place (linkedom loaded on first use).
 */
import { isAbortError } from '../../core/contracts/laconic-error.js'
import { offThread } from '../fetch/off-thread.js'
import { type ArxivFeed, type EsearchAnswer, type EsummaryAnswer, parseArxivFeed, parseEsearch, parseEsummary } from './scholarly-xml.js'
import type { XmlParser } from './xml.js'

/** Time an answer may take to read (a real one takes milliseconds; 200,000 nested elements take linkedom tens of seconds). */
const PARSE_TIMEOUT_MS = 5_000

interface Answers {
  arxiv: ArxivFeed
  esearch: EsearchAnswer
  esummary: EsummaryAnswer
}

declare module '../fetch/off-thread.js' {
  /** arXiv's and NCBI's XML answers are among the extraction pool's jobs. */
  interface ExtractResults extends Answers {}
}

const inPlace: { [K in keyof Answers]: (text: string, Parser: XmlParser) => Answers[K] } = {
  arxiv: parseArxivFeed,
  esearch: parseEsearch,
  esummary: parseEsummary,
}

let parser: Promise<XmlParser> | undefined
const loadParser = async (): Promise<XmlParser> => (parser ??= import('linkedom').then((linkedom) => linkedom.DOMParser as unknown as XmlParser))

/**
 * The answer read, or `unreadable` when it could not be within its time budget (or its
 * thread died): hostile or broken markup. Throws only on an abort.
 */
export async function readXmlAnswer<K extends keyof Answers>(
  kind: K,
  text: string,
  signal?: AbortSignal,
  timeoutMs = PARSE_TIMEOUT_MS,
): Promise<Answers[K] | { kind: 'unreadable'; reason: string }> {
  let parsed: Answers[K] | undefined
  try {
    parsed = (await offThread({ kind, html: text, timeoutMs, signal })) as Answers[K] | undefined
  } catch (error) {
    if (isAbortError(error)) throw error
    return { kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) }
  }
  return parsed ?? inPlace[kind](text, await loadParser())
}

/** The hint of an answer that could not be read. */
export const UNREADABLE_HINT = "the answer was not the API's usual XML (hostile or broken markup): try again later, or another provider"
