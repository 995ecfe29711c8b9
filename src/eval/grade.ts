/**
 * Grading by text, SQuAD-style: answers are compared after the same normalization (lower case,
 * no punctuation, no articles, single spaces), by exact match, token F1 and containment; each
 * takes the best over the accepted answers.
 */

const PUNCTUATION = /[\p{P}\p{S}]/gu
const ARTICLES = /(^| )(a|an|the)(?= |$)/g

/** Lower case, Unicode compatibility forms folded, punctuation and the articles a/an/the removed, whitespace collapsed. Idempotent. */
export function normalizeAnswer(text: string): string {
  const folded = text.normalize('NFKC').toLowerCase().normalize('NFKC').replace(PUNCTUATION, ' ')
  const spaced = folded.replace(/\s+/gu, ' ').trim()
  return spaced.replace(ARTICLES, ' ').replace(/\s+/g, ' ').trim()
}

function tokens(text: string): string[] {
  const normalized = normalizeAnswer(text)
  return normalized ? normalized.split(' ') : []
}

/** True when the prediction equals an accepted answer after normalization. */
export function exactMatch(prediction: string, answers: readonly string[]): boolean {
  const predicted = normalizeAnswer(prediction)
  return answers.some((answer) => normalizeAnswer(answer) === predicted)
}

/** Token F1 (SQuAD): the harmonic mean of precision and recall of the normalized tokens, best over the answers; in [0, 1]. */
export function tokenF1(prediction: string, answers: readonly string[]): number {
  const predicted = tokens(prediction)
  let best = 0
  for (const answer of answers) {
    const gold = tokens(answer)
    if (predicted.length === 0 || gold.length === 0) {
      best = Math.max(best, predicted.length === gold.length ? 1 : 0)
      continue
    }
    const counts = new Map<string, number>()
    for (const token of gold) counts.set(token, (counts.get(token) ?? 0) + 1)
    let common = 0
    for (const token of predicted) {
      const left = counts.get(token) ?? 0
      if (left > 0) {
        common++
        counts.set(token, left - 1)
      }
    }
    if (common === 0) continue
    const precision = common / predicted.length
    const recall = common / gold.length
    best = Math.max(best, (2 * precision * recall) / (precision + recall))
  }
  return best
}

/** True when an accepted answer appears, as whole normalized words, in the prediction (a sentence that states it). */
export function containsAnswer(prediction: string, answers: readonly string[]): boolean {
  const predicted = ` ${normalizeAnswer(prediction)} `
  return answers.some((answer) => {
    const gold = normalizeAnswer(answer)
    return gold !== '' && predicted.includes(` ${gold} `)
  })
}
