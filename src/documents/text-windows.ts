/**
 * Splitting a text along its structure into windows small enough for a small-context model:
 * one window per run of paragraphs under the same heading, at most `maxChars` long. Markdown
 * `#` headings start sections (not inside ``` fences; HTML's h1–h6 are read as such lines); an
 * over-long paragraph is cut at sentence, then word, boundaries. Each window knows its heading
 * path and where it lies in the text (`start`/`end`), so what is shown of it is the text's own
 * characters. The knowledge base's and the local corpus's chunks (`chunkText`) and the passages
 * a strategy shows of a read page (`selectPassages`) are both cut here. Total: any string gives
 * a (possibly empty) list.
 */

/** A stretch of the text: `text.slice(start, end)`. */
export interface TextSpan {
  start: number
  end: number
}

export interface TextWindow extends TextSpan {
  /** The nearest heading above the window, without its `#` marks. */
  heading?: string
  /** Every heading the window is under, outermost first (a `##` under a `#`...): empty before the first. */
  headings: string[]
  /** A stable in-document anchor for that heading (GitHub style, de-duplicated). */
  anchor?: string
  /** How many headings come before it: windows of one section share it. */
  section: number
  /** Where its section's heading line is in the text (none before the first heading). */
  headingLine?: TextSpan
  /** Its paragraphs (or pieces of an over-long one), in order, each trimmed. */
  pieces: TextSpan[]
}

/** A heading's anchor as GitHub (and most Markdown renderers) make it. */
export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-')
}

const isSpace = (char: string | undefined) => char !== undefined && /\s/.test(char)

/** `span` without the whitespace at either end (an empty span when it is all whitespace). */
function trimSpan(text: string, start: number, end: number): TextSpan {
  while (start < end && isSpace(text[start])) start++
  while (end > start && isSpace(text[end - 1])) end--
  return { start, end }
}

/** Cut the span into pieces of at most `maxChars`, preferring sentence ends, then spaces. */
function splitLong(text: string, span: TextSpan, maxChars: number): TextSpan[] {
  const pieces: TextSpan[] = []
  let rest = span
  while (rest.end - rest.start > maxChars) {
    const window = text.slice(rest.start, rest.start + maxChars)
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '))
    const space = window.lastIndexOf(' ')
    const cut = sentence > maxChars / 2 ? sentence + 1 : space > maxChars / 2 ? space : maxChars
    const piece = trimSpan(text, rest.start, rest.start + cut)
    if (piece.end > piece.start) pieces.push(piece)
    rest = trimSpan(text, rest.start + cut, rest.end)
  }
  if (rest.end > rest.start) pieces.push(rest)
  return pieces
}

/** Characters of the pieces joined by blank lines (as `chunkText` gives them). */
const joinedLength = (pieces: readonly TextSpan[]) => pieces.reduce((sum, p) => sum + p.end - p.start, 0) + 2 * Math.max(0, pieces.length - 1)

/**
 * The windows of `text`, each at most `maxChars` (at least 50) long both as the text's own
 * stretch (`start` to `end`) and as its pieces joined by blank lines.
 */
export function textWindows(text: string, maxChars = 1000): TextWindow[] {
  const limit = Math.max(50, Math.floor(maxChars) || 1000)
  const windows: TextWindow[] = []
  const slugCounts = new Map<string, number>()
  let heading: string | undefined
  let anchor: string | undefined
  // The open headings by level: a heading closes every one of its level or deeper.
  let path: { level: number; title: string }[] = []
  let pieces: TextSpan[] = []
  let paragraph: TextSpan | undefined
  let inFence = false
  let section = 0
  let headingLine: TextSpan | undefined

  const endWindow = () => {
    if (pieces.length === 0) return
    const first = pieces[0] as TextSpan
    const last = pieces[pieces.length - 1] as TextSpan
    windows.push({
      ...(heading === undefined ? {} : { heading, ...(anchor ? { anchor } : {}) }),
      headings: path.map((open) => open.title),
      section,
      ...(headingLine ? { headingLine } : {}),
      start: first.start,
      end: last.end,
      pieces,
    })
    pieces = []
  }
  const endParagraph = () => {
    if (!paragraph) return
    const span = trimSpan(text, paragraph.start, paragraph.end)
    paragraph = undefined
    if (span.end === span.start) return
    for (const piece of span.end - span.start > limit ? splitLong(text, span, limit) : [span]) {
      const first = pieces[0]
      if (first && (piece.end - first.start > limit || joinedLength([...pieces, piece]) > limit)) endWindow()
      pieces.push(piece)
    }
  }

  const lineBreak = /\r\n?|\n/g
  let lineStart = 0
  for (;;) {
    const found = lineBreak.exec(text)
    const lineEnd = found ? found.index : text.length
    const line = text.slice(lineStart, lineEnd)
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
    const match = inFence ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (match) {
      endParagraph()
      endWindow()
      section++
      heading = (match[2] ?? '').trim() || undefined
      headingLine = heading ? trimSpan(text, lineStart, lineEnd) : undefined
      const level = (match[1] ?? '#').length
      path = [...path.filter((open) => open.level < level), ...(heading ? [{ level, title: heading }] : [])]
      const slug = heading ? slugify(heading) : ''
      const seen = slugCounts.get(slug) ?? 0
      slugCounts.set(slug, seen + 1)
      anchor = slug ? (seen === 0 ? slug : `${slug}-${seen}`) : undefined
    } else if (line.trim() === '' && !inFence) {
      endParagraph()
    } else if (paragraph) {
      paragraph.end = lineEnd
    } else {
      paragraph = { start: lineStart, end: lineEnd }
    }
    if (!found) break
    lineStart = found.index + found[0].length
  }
  endParagraph()
  endWindow()
  return windows
}
