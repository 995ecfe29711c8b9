/**
 * A short excerpt of a chunk around the first place one of the matched terms occurs,
 * cut at word boundaries, with `…` where text was left out. A run of dots (a PDF's dot leaders,
 * an ellipsis typed as `...`) reads as one `…`, and an excerpt that starts or ends at one takes
 * the excerpt's own `…` instead, never `…...`.
 */

/** Two or more dots or ellipsis characters in a row (a space between them or not): one `…`. */
const DOT_RUN = /[.…](?: ?[.…])+/g

const escapeRegExp = (term: string) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export function snippetAround(text: string, terms: readonly string[], maxChars = 240): string {
  const flat = text.replace(/\s+/g, ' ').replace(DOT_RUN, '…').trim()
  if (flat.length <= maxChars) return flat
  const usable = terms.filter((term) => term.length > 0)
  const pattern = usable.length > 0 ? new RegExp(usable.map(escapeRegExp).join('|'), 'iu') : undefined
  const hit = pattern ? flat.search(pattern) : -1
  // Start a little before the match so the reader sees what leads up to it.
  let start = Math.max(0, Math.min(hit < 0 ? 0 : hit - Math.floor(maxChars / 4), flat.length - maxChars))
  if (start > 0) {
    const space = flat.indexOf(' ', start)
    if (space !== -1 && space < start + 20) start = space + 1
  }
  let end = Math.min(flat.length, start + maxChars)
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end)
    if (space > start + maxChars / 2) end = space
  }
  let excerpt = flat.slice(start, end).trim()
  if (start > 0) excerpt = excerpt.replace(/^[….\s]+/, '')
  if (end < flat.length) excerpt = excerpt.replace(/[….\s]+$/, '')
  return `${start > 0 ? '…' : ''}${excerpt}${end < flat.length ? '…' : ''}`
}
