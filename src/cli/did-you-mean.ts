/**
 * ` (did you mean graph-reader?)` for a mistyped name: one helper for unknown flags, enum
 * values (`--strategy`, `--backend`, `--format`, ...) and subcommands, so every usage error
 * suggests the same way.
 */

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}

/** Case, `-` and `_` do not make a different name: `GraphReader` and `graph_reader` are `graph-reader`. */
const normalized = (name: string) => name.toLowerCase().replace(/[-_\s]/g, '')

/**
 * The candidate closest to `value`, when it is close enough to be a typo (at most two edits,
 * and fewer than the value has letters), else undefined.
 */
export function closestName(value: string, candidates: readonly string[]): string | undefined {
  const typed = normalized(value)
  if (!typed) return undefined
  let best: { candidate: string; d: number } | undefined
  for (const candidate of candidates) {
    const d = editDistance(typed, normalized(candidate))
    if (!best || d < best.d) best = { candidate, d }
  }
  return best && best.d <= 2 && best.d < typed.length ? best.candidate : undefined
}

/** ` (did you mean PREFIX+NAME?)`, or '' when no candidate is close. */
export function didYouMean(value: string, candidates: readonly string[], prefix = ''): string {
  const best = closestName(value, candidates)
  return best === undefined ? '' : ` (did you mean ${prefix}${best}?)`
}
