/** A scripted world for resume tests: every reply is a function of the request alone, so separate runs see the same world. */
import { createAgent, type Agent, type AgentOptions, type FetchProvider, type LLMRequest, type SearchResult } from '../../src/index.js'
import { mockSearch, scriptedLLM, type MockSearch, type ScriptedLLM } from '../../src/testing/index.js'
import { roleOf } from '../support/roles.js'

const TOPICS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']

/** FNV-1a: a stable number for a string. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

export type StrategyName = 'scratchpad' | 'graph-reader' | 'reflect' | 'deep'
export const STRATEGIES: readonly StrategyName[] = ['scratchpad', 'graph-reader', 'reflect', 'deep']

export interface World {
  agent: Agent
  llm: ScriptedLLM
  search: MockSearch
  fetched: string[]
  /** Every call, in order: `search:`, `fetch:` and `llm:` with the whole request. */
  calls(): string[]
}

export function world(strategy: StrategyName, seed: number, extra: Partial<AgentOptions> = {}): World {
  const h = (key: string) => hash(`${seed}|${key}`)
  const topic = (key: string) => TOPICS[h(key) % TOPICS.length]!
  const reply = (req: LLMRequest): string => {
    const key = `${req.system}|${req.prompt}`
    const n = h(key)
    switch (roleOf(req.system)) {
      case 'scratchpad planner':
        return n % 4 === 0 ? 'Action: Answer' : `Action: Search\nQuery: ${topic(key)}`
      case 'scratchpad synthesizer':
        return `Notes ${n % 997}.`
      case 'scratchpad finalizer':
        return `Answer ${n % 997} from the notes.`
      case 'reflect queries':
        return JSON.stringify([topic(`${key}1`), topic(`${key}2`)])
      case 'reflect reflection':
        return JSON.stringify({
          slots: { who: 'someone [1]', when: n % 2 ? null : 'then [2]' },
          need_more: n % 2 === 1,
          new_queries: [topic(key), topic(`${key}x`)],
        })
      case 'reflect synthesizer':
        return `Someone did it [1] then [2].`
      case 'deep planner':
        return n % 3 === 0
          ? '{"is_complete": true, "reasoning": "covered"}'
          : JSON.stringify({ is_complete: false, next_question: `what about ${topic(key)}`, reasoning: 'r' })
      case 'deep sub-answer':
        return JSON.stringify({
          answer: `It is ${n % 97} [1].`,
          confidence: 0.7,
          facts: [{ text: `fact ${n % 97}`, sources: [1] }],
          need_more: n % 2 === 0,
          queries: [topic(key)],
        })
      case 'deep summary':
      case 'deep conversational':
        return `Summary ${n % 97} [1].`
      case 'deep report':
        return JSON.stringify({ title: 'T', main_findings: ['m [1]'], conclusions: ['c'], limitations: [], recommendations: [], sources_summary: 's' })
      case 'graph-reader planner':
        return JSON.stringify({ goal: 'g', steps: ['s'], key_elements: ['k'], queries: [topic(`${key}1`), topic(`${key}2`)] })
      case 'graph-reader extractor':
        return JSON.stringify({
          facts: [
            { text: `fact ${n % 31} of ${topic(key)}`, source: 1 },
            { text: `other ${n % 7}`, source: 2 },
          ],
        })
      case 'graph-reader neighbor':
        return JSON.stringify({ answerable: n % 5 === 0, missing: 'm', queries: [topic(key), topic(`${key}y`)] })
      case 'graph-reader condenser':
        return '{"facts": []}'
      case 'graph-reader finalizer':
        return `From the notebook [1] and [2].`
      default:
        throw new Error(`no script for the system prompt: ${req.system?.slice(0, 60)}`)
    }
  }
  const llm = scriptedLLM({ replies: (req) => reply(req), cost: 0.001 })
  const results = (query: string): SearchResult[] =>
    Array.from({ length: h(`n|${query}`) % 3 }, (_, i) => ({
      title: `${query} ${i}`,
      url: `https://site${h(`u|${query}|${i}`) % 5}.example/${encodeURIComponent(query)}/${i}`,
      snippet: `About ${query}, part ${i}.`,
    }))
  const search = mockSearch({ results: (q) => results(q), searchCost: 0.01 })
  const fetched: string[] = []
  const fetch: FetchProvider = {
    async fetch(url) {
      fetched.push(url)
      return { url, title: `Page ${url}`, text: `The page at ${url} says ${h(url) % 13}.` }
    },
  }
  const log: string[] = []
  const logged = {
    llm: {
      ...llm,
      stream: (req: LLMRequest) => {
        log.push(`llm:${req.system}|${req.prompt}`)
        return llm.stream(req)
      },
    },
    search: {
      ...search,
      search: (q: string, o?: Parameters<MockSearch['search']>[1]) => {
        log.push(`search:${q}`)
        return search.search(q, o)
      },
    },
    fetch: {
      fetch: (url: string, o?: Parameters<FetchProvider['fetch']>[1]) => {
        log.push(`fetch:${url}`)
        return fetch.fetch(url, o)
      },
    },
  }
  const agent = createAgent({
    llm: logged.llm,
    search: logged.search,
    fetch: logged.fetch,
    strategy,
    scratchpad: { maxSteps: 4 },
    graphReader: { concurrency: 1, maxSteps: 5, maxPagesPerNode: 1 },
    reflect: { maxSteps: 3 },
    deep: { maxSteps: 3, searchesPerQuestion: 2, readPages: 1 },
    ...extra,
  })
  return { agent, llm, search, fetched, calls: () => [...log] }
}
