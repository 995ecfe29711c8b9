import type { TextFilter } from '../../core/util/text.js'

/**
 * A token made only of citation markers, perhaps with closing punctuation: `[1]`, `[1][2].`,
 * or the halves of `[1, 2]`. It belongs to the word before it, so it never counts as a word.
 */
function isCitationToken(token: string): boolean {
  return /[[\]]/.test(token) && /^[\d,[\]]+$/.test(token.replace(/[.,;:!?)]+$/, ''))
}

/** A token that counts as a word: it holds a letter or a digit and is not a citation marker. */
function isWord(token: string): boolean {
  return /[\p{L}\p{N}]/u.test(token) && !isCitationToken(token)
}

/**
 * Stops a token stream after `maxWords` words. It cuts only between whitespace-separated tokens,
 * so a word is never cut in half, and the citation markers and punctuation that follow the last
 * word are kept with it. Whitespace is held until the next token, so the output never ends
 * in the space before a cut. Put it after `citationFilter` so it sees the final markers.
 */
export function wordLimitFilter(maxWords: number): TextFilter {
  const limit = Math.max(1, Math.floor(maxWords))
  let words = 0
  let done = false
  // An incomplete token (no whitespace after it yet) and the whitespace before it.
  let held = ''
  let space = ''

  /** Emits one complete token (with the whitespace before it), or ends the stream. */
  const take = (token: string): string => {
    if (done) return ''
    const counts = isWord(token)
    if (counts && words === limit) {
      done = true
      return ''
    }
    if (counts) words++
    const out = space + token
    space = ''
    return out
  }

  const consume = (text: string, final: boolean): string => {
    let out = ''
    const parts = text.match(/\s+|\S+/g) ?? []
    parts.forEach((part, i) => {
      const last = i === parts.length - 1
      if (/^\s/.test(part)) {
        // Leading whitespace of the whole answer is kept; between tokens it waits for the next one.
        if (!done) space += part
      } else if (last && !final) held = part
      else out += take(part)
    })
    return out
  }

  return {
    push(chunk) {
      const text = held + chunk
      held = ''
      return consume(text, false)
    },
    flush() {
      const text = held
      held = ''
      const out = consume(text, true)
      space = ''
      return out
    },
  }
}

/** Words in `text` as `wordLimitFilter` counts them. */
export function countWords(text: string): number {
  return (text.match(/\S+/g) ?? []).filter(isWord).length
}
