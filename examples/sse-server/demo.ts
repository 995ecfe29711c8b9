/**
 * The scripted demo behind `--demo`: a real agent (the real runtime stamps events, counts cost
 * and streams tokens) driven by a scripted model and an in-memory search corpus, so the live
 * page shows every kind of event with no network and no API key. The replies are canned: every
 * question gets the same research, which is why the page labels it "scripted demo".
 */
import { createAgent, type Agent } from '../../src/index.js'
import type { Citation, LLMRequest, Strategy, StrategyContext, StrategyEvent } from '../../src/core/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

export const DEMO_QUESTION = 'Who won the 2024 Nobel Prize in Chemistry, and for what?'

const NOBEL = 'https://www.nobelprize.org/prizes/chemistry/2024/summary/'
const ALPHAFOLD = 'https://deepmind.google/technologies/alphafold/'
const BAKER = 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/'

const CORPUS = [
  { title: 'The Nobel Prize in Chemistry 2024', url: NOBEL, snippet: 'The 2024 Nobel Prize in Chemistry was awarded to David Baker, Demis Hassabis and John Jumper.' },
  { title: 'AlphaFold – Google DeepMind', url: ALPHAFOLD, snippet: 'AlphaFold predicts protein structures; Hassabis and Jumper shared the 2024 chemistry prize for protein structure prediction.' },
  { title: 'David Baker wins Nobel Prize', url: BAKER, snippet: 'Baker was honoured for computational protein design: building entirely new kinds of proteins.' },
]

// Each step of the demo strategy names itself in the system prompt, so the script answers by step.
const STEP = { plan: 'demo:plan', extract: 'demo:extract', summarize: 'demo:summarize', answer: 'demo:answer' } as const

const REPLIES: Record<string, (req: LLMRequest) => string> = {
  [STEP.plan]: () =>
    'Find the 2024 chemistry laureates, then what each was honoured for.\n- 2024 Nobel Prize Chemistry winners\n- AlphaFold protein structure prediction Nobel\n- David Baker computational protein design',
  [STEP.extract]: (req) => {
    const query = req.prompt.split('\n')[0] ?? ''
    if (query.includes('winners')) return `2024 | ${NOBEL}`
    if (query.includes('AlphaFold'))
      return `Hassabis and Jumper were honoured for protein structure prediction with AlphaFold | ${ALPHAFOLD}\nThe 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper | ${NOBEL}`
    return `Baker was honoured for computational protein design | ${BAKER}`
  },
  [STEP.summarize]: (req) =>
    req.prompt.includes('computational protein design')
      ? 'The 2024 chemistry prize went to David Baker (computational protein design) and to Demis Hassabis and John Jumper (protein structure prediction with AlphaFold).'
      : req.prompt.includes('AlphaFold')
        ? 'The 2024 chemistry prize went to Baker, Hassabis and Jumper; Hassabis and Jumper for AlphaFold. Baker’s part is still open.'
        : 'Something happened in 2024; the laureates are not known yet.',
  [STEP.answer]: () =>
    'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [1]. ' +
    'Baker was honoured for computational protein design [3], and Hassabis and Jumper for predicting protein structures with AlphaFold [2].',
}

interface Noted {
  id: string
  text: string
}

/** Plan → (search → extract facts → rewrite the summary) per query → stream a cited answer. */
function demoStrategy(): Strategy {
  return {
    name: 'scripted-demo',
    async *run(question: string, ctx: StrategyContext): AsyncGenerator<StrategyEvent, { reason: 'answered' }> {
      const plan = yield* ctx.complete('planner', { system: STEP.plan, prompt: question })
      const [goal = '', ...steps] = plan.split('\n')
      const queries = steps.filter((line) => line.startsWith('- ')).map((line) => line.slice(2))
      yield { type: 'plan', text: goal, queries }

      const notebook: Noted[] = []
      const sources: string[] = []
      for (const [iteration, query] of queries.entries()) {
        const { queryId, results } = yield* ctx.runSearch(query)
        const extracted = yield* ctx.complete('extractor', {
          system: STEP.extract,
          prompt: `${query}\n${results.map((r) => `${r.url} ${r.snippet}`).join('\n')}`,
        })
        for (const line of extracted.split('\n')) {
          const [text = '', url = ''] = line.split(' | ')
          if (!text.trim()) continue
          // A longer fact that contains a stored one replaces it, as the graph-reader notebook does.
          const superseded = notebook.filter((fact) => text.includes(fact.text))
          const fact = { id: ctx.newId('f'), text, sources: [url], queryId }
          notebook.splice(0, notebook.length, ...notebook.filter((f) => !superseded.includes(f)), fact)
          if (!sources.includes(url)) sources.push(url)
          yield superseded.length > 0 ? { type: 'fact', fact, supersedes: superseded.map((f) => f.id) } : { type: 'fact', fact }
        }
        const knowledge = yield* ctx.complete('synthesizer', {
          system: STEP.summarize,
          prompt: notebook.map((fact) => fact.text).join('\n'),
        })
        yield { type: 'knowledge-update', knowledge, iteration: iteration + 1 }
      }

      const answer = yield* ctx.streamAnswer('finalizer', { system: STEP.answer, prompt: question })
      const citations: Citation[] = sources.map((url, i) => ({ index: i + 1, url, title: CORPUS.find((doc) => doc.url === url)?.title ?? url }))
      yield { type: 'answer', text: answer, citations }
      return { reason: 'answered' }
    },
  }
}

export interface DemoAgentOptions {
  /**
   * Milliseconds between streamed tokens; model and search latencies scale with it.
   * @defaultValue 40
   */
  tokenDelayMs?: number
}

/** An agent on the scripted test kit that exercises plan, query, result, fact, knowledge and answer events. */
export function demoAgent({ tokenDelayMs = 40 }: DemoAgentOptions = {}): Agent {
  const llm = scriptedLLM({
    model: 'scripted-demo',
    replies: (req) => (REPLIES[req.system ?? ''] ?? (() => ''))(req),
    tokenDelayMs,
    latencyMs: tokenDelayMs * 5,
    cost: 0.0004,
  })
  const search = mockSearch({ corpus: CORPUS, delayMs: tokenDelayMs * 8, searchCost: 0.001 })
  return createAgent({ llm, search, strategy: demoStrategy() })
}
