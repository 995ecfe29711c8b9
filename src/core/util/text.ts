/**
 * Text utilities shared by the runtime and strategies. All are total: any string in, a string out.
 */

/** A stateful filter over a token stream: `push` each chunk, `flush` at the end. */
export interface TextFilter {
  push(chunk: string): string
  flush(): string
}

const OPEN_TAGS = ['<think>', '<thinking>']
const CLOSE_TAGS = ['</think>', '</thinking>']

/** Earliest occurrence of any tag (case-insensitive) in `text`. */
function findTag(lower: string, tags: readonly string[]): { index: number; length: number } | undefined {
  let best: { index: number; length: number } | undefined
  for (const tag of tags) {
    const index = lower.indexOf(tag)
    if (index >= 0 && (!best || index < best.index)) best = { index, length: tag.length }
  }
  return best
}

/** Length of the longest suffix of `lower` that is a proper prefix of some tag (a tag split across chunks). */
function partialTagSuffix(lower: string, tags: readonly string[]): number {
  const longest = Math.max(...tags.map((t) => t.length)) - 1
  for (let n = Math.min(longest, lower.length); n > 0; n--) {
    const tail = lower.slice(lower.length - n)
    if (tags.some((tag) => tag.startsWith(tail))) return n
  }
  return 0
}

/**
 * Removes `<think>…</think>` reasoning from a token stream, however the tags are split across
 * chunks. An unclosed block is dropped until it closes or the stream ends; a stray closing tag
 * is removed; whitespace before the first visible text is trimmed (models put a blank line
 * after `</think>`). The output is the same for every way of splitting the same input.
 * `onThink` receives the removed reasoning as it arrives (tags excluded), e.g. to show it apart.
 */
export function createThinkFilter(onThink?: (reasoning: string) => void): TextFilter {
  let inside = false
  let held = ''
  let started = false
  const think = (text: string) => {
    if (text && onThink) onThink(text)
  }

  const emit = (text: string): string => {
    if (started) return text
    const trimmed = text.trimStart()
    if (trimmed) started = true
    return trimmed
  }

  return {
    push(chunk) {
      let buffer = held + chunk
      held = ''
      let out = ''
      while (buffer) {
        const lower = buffer.toLowerCase()
        if (inside) {
          const close = findTag(lower, CLOSE_TAGS)
          if (close) {
            think(buffer.slice(0, close.index))
            buffer = buffer.slice(close.index + close.length)
            inside = false
            continue
          }
          const partial = partialTagSuffix(lower, CLOSE_TAGS)
          think(buffer.slice(0, buffer.length - partial))
          held = buffer.slice(buffer.length - partial)
          break
        }
        const open = findTag(lower, OPEN_TAGS)
        const strayClose = findTag(lower, CLOSE_TAGS)
        const next = open && (!strayClose || open.index <= strayClose.index) ? open : strayClose
        if (next) {
          out += buffer.slice(0, next.index)
          buffer = buffer.slice(next.index + next.length)
          inside = next === open
          continue
        }
        const keep = partialTagSuffix(lower, [...OPEN_TAGS, ...CLOSE_TAGS])
        out += buffer.slice(0, buffer.length - keep)
        held = buffer.slice(buffer.length - keep)
        break
      }
      return emit(out)
    },
    flush() {
      if (inside) think(held)
      const rest = inside ? '' : held
      held = ''
      inside = false
      return emit(rest)
    },
  }
}

/** Removes think blocks from a complete text. */
export function stripThink(text: string): string {
  const filter = createThinkFilter()
  return filter.push(text) + filter.flush()
}

/** Chains filters: the output of each feeds the next. */
export function chainFilters(...filters: TextFilter[]): TextFilter {
  return {
    push(chunk) {
      return filters.reduce((text, f) => f.push(text), chunk)
    },
    flush() {
      let text = ''
      for (const f of filters) text = f.push(text) + f.flush()
      return text
    },
  }
}

/**
 * Cuts `text` to at most `maxChars`, at the last sentence end (its closing quotes and brackets
 * with it: `livelihoods.”`) when one falls in the second half of the budget, else at the last
 * whitespace, else hard.
 */
export function truncateAtSentence(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text
  const head = text.slice(0, Math.max(0, maxChars))
  let sentenceEnd = -1
  for (const match of head.matchAll(SENTENCE_END)) sentenceEnd = match.index + match[0].length
  if (sentenceEnd >= maxChars * 0.5) return head.slice(0, sentenceEnd).trimEnd()
  const space = head.search(/\s\S*$/)
  return (space > 0 ? head.slice(0, space) : head).trimEnd()
}

/** A sentence's end: its mark, then any closing quotes or brackets, then a space or the end. */
const SENTENCE_END = /[.!?。！？]["'”’»)\]」』）]*(?=\s|$)/g

/**
 * A comparison key for facts and queries: Unicode NFKC, case-folded, punctuation and symbols
 * removed, whitespace collapsed.
 */
export function normalizeText(text: string): string {
  // ASCII needs no Unicode normalisation, and its punctuation and symbols are one plain class.
  if (ASCII.test(text)) return text.toLowerCase().replace(ASCII_NOT_WORD, ' ').trim()
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\p{P}\p{S}\p{Cc}\s]+/gu, ' ')
    .trim()
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, control characters included
const ASCII = /^[\x00-\x7f]*$/
/** ASCII punctuation, symbols, whitespace and control characters: everything but letters and digits. */
const ASCII_NOT_WORD = /[^a-z0-9]+/g

/** A rough token count (4 characters a token) for backends that report no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}
