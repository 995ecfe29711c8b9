/**
 * `text` cut into pieces at the given points, as a stream might deliver it: each cut is taken
 * modulo `text.length + 1`, repeats merge, so any array of naturals from fast-check is a split.
 */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let from = 0
  for (const p of points) {
    pieces.push(text.slice(from, p))
    from = p
  }
  pieces.push(text.slice(from))
  return pieces
}

/** `bytes` cut at the given points, as `splitAt` cuts text (a cut may fall inside a character). */
export function splitBytesAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const pieces: Uint8Array[] = []
  let from = 0
  for (const p of points) {
    pieces.push(bytes.subarray(from, p))
    from = p
  }
  pieces.push(bytes.subarray(from))
  return pieces
}
