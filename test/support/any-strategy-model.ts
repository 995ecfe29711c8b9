/**
 * A loopback "model" that plays every role of every built-in strategy, for tests and benches of
 * what does not depend on answers being right (the cassette's recorded order, replays): each
 * reply is a function of the request alone, so separate runs see the same world, and it varies
 * with the prompt, so strategies branch, search several queries at once and stop at different
 * points.
 */
import type { LLMRequest, SearchResult } from '../../src/index.js'

const TOPICS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta']
/** FNV-1a: a stable number for a string. */
export function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

const topic = (key: string) => TOPICS[hash(key) % TOPICS.length] as string

/**
 * One reply for every role of every built-in strategy, a function of the request alone: a
 * structured request gets one object holding every field the strategies' schemas read (each
 * parser takes its own), a request with tools calls search twice or answers, a planner asked for
 * an action searches or answers, anything else is a cited sentence.
 */
export function anyStrategyReply(
  req: Pick<LLMRequest, 'system' | 'prompt' | 'json' | 'tools' | 'turns'>,
): string | { text: string; toolCalls: { name: string; args: unknown }[] } {
  const key = `${req.system}|${req.prompt}|${JSON.stringify(req.turns ?? [])}`
  const n = hash(key)
  if (req.tools?.length) {
    const search = req.tools.find((tool) => /search/i.test(tool.name))?.name
    if (!search || n % 3 === 0 || (req.turns?.length ?? 0) > 6) return `It is ${n % 97} [1].`
    return { text: '', toolCalls: [search, search].map((name, i) => ({ name, args: { query: topic(`${key}${i}`) } })) }
  }
  if (req.json) {
    const queries = [topic(`${key}1`), topic(`${key}2`)]
    const fact = { text: `fact ${n % 31} of ${topic(key)}`, source: 1, sources: [1] }
    return JSON.stringify({
      goal: 'g',
      steps: ['s'],
      key_elements: ['k'],
      queries,
      facts: [fact, { text: `other ${n % 7}`, source: 2, sources: [2] }],
      answerable: n % 4 === 0,
      missing: 'm',
      is_complete: n % 3 === 0,
      next_question: `what about ${topic(key)}`,
      reasoning: 'r',
      answer: `It is ${n % 97} [1].`,
      confidence: 0.7,
      need_more: n % 2 === 0,
      slots: { who: 'someone [1]', when: n % 2 ? null : 'then [2]' },
      new_queries: queries,
      title: 'T',
      sections: [
        { title: `On ${queries[0]}`, goal: 'g', questions: [queries[0]] },
        { title: `On ${queries[1]}`, goal: 'g', questions: [queries[1]] },
      ],
      main_findings: ['m [1]'],
      conclusions: ['c'],
      limitations: [],
      recommendations: [],
      sources_summary: 's',
    })
  }
  if (/Action: Search/.test(req.system ?? '')) return n % 3 === 0 ? 'Action: Answer' : `Action: Search\nQuery: ${topic(key)}`
  return `Finding ${n % 97} about ${topic(key)} [1].`
}

/** One to three results for a query, a function of the query alone. */
export const searchResults = (query: string): SearchResult[] =>
  Array.from({ length: 1 + (hash(`n|${query}`) % 3) }, (_, i) => ({
    title: `${query} ${i}`,
    url: `https://site${hash(`u|${query}|${i}`) % 5}.example/${encodeURIComponent(query)}/${i}`,
    snippet: `About ${query}, part ${i}: ${hash(`s|${query}|${i}`) % 1000}.`,
  }))
