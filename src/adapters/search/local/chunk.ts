/**
 * Splitting a document into passages small enough for a small-context model: one chunk
 * per run of paragraphs under the same heading, at most `maxChars` long. Markdown `#`
 * headings start sections (not inside ``` fences); an over-long paragraph is cut at
 * sentence, then word, boundaries. Each chunk knows its heading path (the `#`, `##`... above
 * it). Total: any string gives a (possibly empty) list.
 */

export interface Chunk {
  /** The nearest heading above the chunk, without its `#` marks. */
  heading?: string
  /** Every heading the chunk is under, outermost first (a `##` under a `#`...): empty before the first. */
  headings: string[]
  /** A stable in-document anchor for that heading (GitHub style, de-duplicated). */
  anchor?: string
  text: string
}

export function slugify(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-')
}

/** Cut `text` into pieces of at most `maxChars`, preferring sentence ends, then spaces. */
function splitLong(text: string, maxChars: number): string[] {
  const pieces: string[] = []
  let rest = text
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars)
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '))
    const space = window.lastIndexOf(' ')
    const cut = sentence > maxChars / 2 ? sentence + 1 : space > maxChars / 2 ? space : maxChars
    pieces.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut).trim()
  }
  if (rest) pieces.push(rest)
  return pieces
}

export function chunkText(text: string, maxChars = 1000): Chunk[] {
  const limit = Math.max(50, Math.floor(maxChars) || 1000)
  const chunks: Chunk[] = []
  const slugCounts = new Map<string, number>()
  let heading: string | undefined
  let anchor: string | undefined
  // The open headings by level: a heading closes every one of its level or deeper.
  let path: { level: number; title: string }[] = []
  let paragraphs: string[] = []
  let paragraph: string[] = []
  let inFence = false

  const section = (): Pick<Chunk, 'heading' | 'anchor' | 'headings'> => ({
    ...(heading === undefined ? {} : { heading, ...(anchor ? { anchor } : {}) }),
    headings: path.map((open) => open.title),
  })
  const endParagraph = () => {
    const joined = paragraph.join('\n').trim()
    paragraph = []
    if (!joined) return
    for (const piece of joined.length > limit ? splitLong(joined, limit) : [joined]) {
      const pending = paragraphs.join('\n\n')
      if (pending && pending.length + 2 + piece.length > limit) endChunk()
      paragraphs.push(piece)
    }
  }
  const endChunk = () => {
    const joined = paragraphs.join('\n\n')
    paragraphs = []
    if (joined) chunks.push({ ...section(), text: joined })
  }

  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
    const match = inFence ? null : /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line)
    if (match) {
      endParagraph()
      endChunk()
      heading = (match[2] ?? '').trim() || undefined
      const level = (match[1] ?? '#').length
      path = [...path.filter((open) => open.level < level), ...(heading ? [{ level, title: heading }] : [])]
      const slug = heading ? slugify(heading) : ''
      const seen = slugCounts.get(slug) ?? 0
      slugCounts.set(slug, seen + 1)
      anchor = slug ? (seen === 0 ? slug : `${slug}-${seen}`) : undefined
    } else if (line.trim() === '' && !inFence) {
      endParagraph()
    } else {
      paragraph.push(line)
    }
  }
  endParagraph()
  endChunk()
  return chunks
}
