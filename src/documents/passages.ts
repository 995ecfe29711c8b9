/**
 * What a model is shown of a read page within a budget: the page cut into windows along its
 * structure (`textWindows`: paragraphs under their headings, a document's pages apart, at most
 * about 800 characters each), ranked against the query by the shared lexical ranker, and the
 * best of them shown in reading order, each under its section's heading line, with `[…]` where
 * text was left out. Each passage cites its place: a document's page as `url#page=n` (a source
 * of its own), a web page as its URL. A page within the budget is shown whole.
 *
 * A web page's sections are not cited apart: its extracted text keeps no element ids (a
 * GitHub-style slug of a heading names a place only on Markdown-rendered pages), and a URL's
 * fragment other than `#page=n` names the same source (`normalizeUrl`), so `url#a` and `url#b`
 * would fold into one citation carrying the first one's anchor. The heading line above a window
 * says where in the page it sits instead.
 *
 * A large page is cut into terms a slice at a time, yielding to the event loop between slices: a
 * megabyte of text takes tens of milliseconds to tokenize, and other runs' streams go on meanwhile.
 */
import { documentPages, pageUrl } from './document-pages.js'
import type { FetchedPage } from '../core/contracts/providers.js'
import { lexicalTerms, rankTermLists } from './lexical.js'
import { truncateAtSentence } from '../core/util/text.js'
import { type TextWindow, textWindows } from './text-windows.js'

/** Text a strategy shows a model from a read page, with the URL (and page number) a fact from it cites. */
export interface Passage {
  /** The page's URL, or for a document's page `url#page=n`. */
  url: string
  /** The page number, for a document's page. */
  page?: number
  /** The page's own text: its chosen windows in reading order, each under its heading line, `[…]` where text was left out. */
  text: string
}

/** Where text was left out of a passage. */
export const OMITTED = '[…]'
/** The longest window, in characters. */
export const WINDOW_CHARS = 800

/**
 * Which windows to show: the best-scoring first (an earlier one on a tie), each kept while
 * `fits` accepts the windows kept so far with it; returned in reading order (ascending). A
 * `pinned` window is tried first whatever its score.
 */
export function chooseWindows(scores: readonly number[], fits: (chosen: readonly number[]) => boolean, pinned?: number): number[] {
  const ranked = scores.map((_, index) => index).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b)
  const order = pinned !== undefined && pinned >= 0 && pinned < scores.length ? [pinned, ...ranked.filter((index) => index !== pinned)] : ranked
  let chosen: number[] = []
  for (const index of order) {
    const at = chosen.findIndex((other) => other > index)
    const trial = at === -1 ? [...chosen, index] : [...chosen.slice(0, at), index, ...chosen.slice(at)]
    if (fits(trial)) chosen = trial
  }
  return chosen
}

/** A window with the place it cites. */
interface Placed {
  /** Its own text: a stretch of its place's text. */
  text: string
  /** Its section's heading line, as the page has it. */
  headingLine?: string
  section: number
  /** Which place it belongs to (a document's page; a web page is one place). */
  place: number
  /** First or last window of its place. */
  first: boolean
  last: boolean
  url: string
  page?: number
  /** What is ranked: its heading path, then its text. */
  ranked: string
}

function placed(windows: readonly TextWindow[], text: string, at: { place: number; url: string; page?: number }): Placed[] {
  return windows.map((window, index) => {
    const own = text.slice(window.start, window.end)
    return {
      ...at,
      text: own,
      ...(window.headingLine ? { headingLine: text.slice(window.headingLine.start, window.headingLine.end) } : {}),
      section: window.section,
      first: index === 0,
      last: index === windows.length - 1,
      ranked: window.headings.length ? `${window.headings.join('\n')}\n${own}` : own,
    }
  })
}

/** The page cut into windows that cite their place. */
function pageWindows(page: Pick<FetchedPage, 'url' | 'text' | 'pageStarts'>, windowChars: number): Placed[] {
  const pages = documentPages(page)
  if (pages.length === 0) return placed(textWindows(page.text, windowChars), page.text, { place: 0, url: page.url })
  return pages.flatMap(({ page: number, text }) =>
    placed(textWindows(text, windowChars), text, { place: number, url: pageUrl(page.url, number), page: number }),
  )
}

/** The chosen windows (in reading order) as passages, one per place. */
function render(windows: readonly Placed[], chosen: readonly number[]): Passage[] {
  const passages: Passage[] = []
  let parts: string[] = []
  let previous: number | undefined
  const close = () => {
    const last = previous === undefined ? undefined : windows[previous]
    if (!last) return
    if (!last.last) parts.push(OMITTED)
    passages.push({ url: last.url, ...(last.page !== undefined ? { page: last.page } : {}), text: parts.join('\n\n') })
    parts = []
  }
  for (const index of chosen) {
    const window = windows[index] as Placed
    const before = previous === undefined ? undefined : windows[previous]
    if (before && before.place !== window.place) {
      close()
      previous = undefined
    }
    const follows = previous !== undefined && index === previous + 1
    if (!follows && !(previous === undefined && window.first)) parts.push(OMITTED)
    // Its heading line, unless the window shown just before it is of the same section.
    if (window.headingLine && (previous === undefined || windows[previous]?.section !== window.section)) parts.push(window.headingLine)
    parts.push(window.text)
    previous = index
  }
  close()
  return passages
}

const shown = (passages: readonly Passage[]) => passages.reduce((sum, passage) => sum + passage.text.length, 0)

/** Characters of window text cut into terms between two yields to the event loop. */
const SLICE_CHARS = 64_000

/** Lets other work run: a macrotask (`setImmediate` where the runtime has it, else a 0 ms timer). */
const yieldToEventLoop = () =>
  new Promise<void>((resolve) => (typeof globalThis.setImmediate === 'function' ? globalThis.setImmediate(resolve) : setTimeout(resolve, 0)))

/** Each window's `lexicalTerms`, a slice of `SLICE_CHARS` at a time. */
async function termsOf(windows: readonly Placed[]): Promise<string[][]> {
  const lists: string[][] = []
  let sinceYield = 0
  for (const window of windows) {
    if (sinceYield >= SLICE_CHARS) {
      sinceYield = 0
      await yieldToEventLoop()
    }
    lists.push(lexicalTerms(window.ranked))
    sinceYield += window.ranked.length
  }
  return lists
}

/**
 * The passages of a read page, at most `maxChars` of text in all (marks and heading lines
 * included): the whole page when it fits (a document page by page); else the windows that
 * best match `query` (by the shared lexical ranker; with none matching, the page from its
 * start), in reading order. The best-matching window is always among them (only its start,
 * cut at a sentence, when the budget is smaller than it).
 */
export async function documentPassages(page: Pick<FetchedPage, 'url' | 'text' | 'pageStarts'>, query: string, maxChars: number): Promise<Passage[]> {
  const budget = Math.max(0, Math.floor(maxChars))
  const pages = documentPages(page)
  if (page.text.trim().length <= budget) {
    if (pages.length > 0) return pages.map(({ page: number, text }) => ({ url: pageUrl(page.url, number), page: number, text }))
    const text = page.text.trim()
    return text ? [{ url: page.url, text }] : []
  }
  // Room for a window and a mark either side of it.
  const windows = pageWindows(page, Math.min(WINDOW_CHARS, budget - 2 * (OMITTED.length + 2)))
  if (windows.length === 0) return []
  const scores = rankTermLists(query, await termsOf(windows))
  const top = scores.reduce((top, score, index) => (score > (scores[top] ?? 0) ? index : top), 0)
  const chosen = chooseWindows(scores, (trial) => shown(render(windows, trial)) <= budget)
  if (chosen.includes(top)) return render(windows, chosen)
  // A budget too small for the best window with its heading and marks: its start, cut at a sentence.
  const best = windows[top] as Placed
  const text = truncateAtSentence(best.text, budget)
  return text ? [{ url: best.url, ...(best.page !== undefined ? { page: best.page } : {}), text }] : []
}

/** A passage's title as a source list shows it: its page's, with the page number for a document's page. */
export function passageTitle(title: string, passage: Pick<Passage, 'page'>): string {
  return passage.page !== undefined ? `${title} (page ${passage.page})` : title
}
