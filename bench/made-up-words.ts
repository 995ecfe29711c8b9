/** Reproducible made-up text for the corpus benchmarks: a seeded generator and a vocabulary. */

/** mulberry32: every run indexes and queries the same corpus. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = <T>(list: readonly T[], rand: () => number): T => list[Math.floor(rand() * list.length)] as T

const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'na', 'si', 'po', 'da', 've', 'zu', 'ri', 'mo', 'la', 'ne', 'qui']

/** `size` distinct made-up words, e.g. `kalomi`. */
export function vocabulary(size: number, rand: () => number): string[] {
  const words = new Set<string>()
  while (words.size < size) words.add(Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(SYLLABLES, rand)).join(''))
  return [...words]
}

/** A word of rank r drawn with probability ~1/r (log-uniform rank). */
export const zipf = (words: readonly string[], rand: () => number): string =>
  words[Math.floor(Math.exp(rand() * Math.log(words.length)))] ?? (words[0] as string)
