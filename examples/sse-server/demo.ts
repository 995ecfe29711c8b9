/**
 * The scripted demo behind `--demo`: the real `graph-reader` strategy and the real runtime
 * (events, cost, concurrency, the notebook, citations) driven by a scripted model and an
 * in-memory search corpus, so the live page shows every kind of event with no network and no
 * API key. The replies are canned: every question gets the same research, which is why the
 * page labels it "scripted demo".
 */
import { createAgent, type Agent, type AgentOptions } from '../../src/index.js'
import type { LLMRequest } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

type VerifyMode = NonNullable<AgentOptions['verify']>

export const DEMO_QUESTION = 'Who won the 2024 Nobel Prize in Chemistry, and for what?'

const NOBEL = 'https://www.nobelprize.org/prizes/chemistry/2024/summary/'
const ALPHAFOLD = 'https://deepmind.google/technologies/alphafold/'
const BAKER = 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/'

const CORPUS = [
  {
    title: 'The Nobel Prize in Chemistry 2024',
    url: NOBEL,
    snippet: 'The 2024 Nobel Prize in Chemistry was awarded to David Baker, Demis Hassabis and John Jumper.',
  },
  {
    title: 'AlphaFold – Google DeepMind',
    url: ALPHAFOLD,
    snippet: 'AlphaFold predicts protein structures; Hassabis and Jumper shared the 2024 chemistry prize for protein structure prediction.',
  },
  {
    title: 'David Baker wins Nobel Prize',
    url: BAKER,
    snippet: 'Baker was honoured for computational protein design: building entirely new kinds of proteins.',
  },
]

/** The number a prompt gives a URL (`[2] Title\nurl` or `[2] Title — url`), as a model would read it. */
function numberOf(prompt: string, url: string): number {
  const line = prompt.split('\n').findIndex((l) => l.endsWith(url))
  for (let i = line; i >= 0; i--) {
    const match = /^\[(\d+)\]/.exec(prompt.split('\n')[i] ?? '')
    if (match) return Number(match[1])
  }
  return 1
}

/**
 * Which graph-reader step a request is, told by what its system prompt asks (its opening words),
 * as a model reads it: the demo answers what each step asks for.
 */
const STEPS = {
  planner: 'You plan web research.',
  extractor: 'You extract atomic facts',
  neighbor: 'You steer web research.',
  finalizer: "You answer the user's question from a notebook of facts",
} as const
type Step = keyof typeof STEPS
const stepOf = (system = '') => (Object.keys(STEPS) as Step[]).find((step) => system.startsWith(STEPS[step]))

/** One reply per graph-reader step. */
const REPLIES: Record<Step, (req: LLMRequest) => string> = {
  planner: () =>
    JSON.stringify({
      goal: 'Find the 2024 chemistry laureates, then what each was honoured for.',
      steps: ['find the laureates', 'find what each was honoured for'],
      key_elements: ['laureates', 'AlphaFold', 'protein design'],
      queries: ['2024 Nobel Prize Chemistry winners', 'AlphaFold protein structure prediction Nobel'],
    }),
  extractor: (req) => {
    const facts: { text: string; source: number }[] = []
    if (req.prompt.includes('"2024 Nobel Prize Chemistry winners"')) facts.push({ text: '2024', source: numberOf(req.prompt, NOBEL) })
    if (req.prompt.includes('"AlphaFold')) {
      facts.push({ text: 'Hassabis and Jumper were honoured for protein structure prediction with AlphaFold', source: numberOf(req.prompt, ALPHAFOLD) })
      facts.push({ text: 'The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper', source: numberOf(req.prompt, NOBEL) })
    }
    if (req.prompt.includes('"David Baker')) facts.push({ text: 'Baker was honoured for computational protein design', source: numberOf(req.prompt, BAKER) })
    return JSON.stringify({ facts })
  },
  neighbor: (req) => {
    const notebook = req.prompt.split('Searches already run:')[0] ?? ''
    // Answerable only once every laureate's part is known, whichever node finished first.
    const known = ['computational protein design', 'with AlphaFold', 'went to David Baker'].every((fact) => notebook.includes(fact))
    if (known) return '{"answerable": true, "missing": "", "queries": []}'
    return JSON.stringify({ answerable: false, missing: "Baker's part", queries: ['David Baker computational protein design'] })
  },
  finalizer: (req) =>
    `The 2024 Nobel Prize in Chemistry went to David Baker, Demis Hassabis and John Jumper [${numberOf(req.prompt, NOBEL)}]. ` +
    `Baker was honoured for computational protein design [${numberOf(req.prompt, BAKER)}], and Hassabis and Jumper for predicting protein structures with AlphaFold [${numberOf(req.prompt, ALPHAFOLD)}].`,
}

export interface DemoAgentOptions {
  /**
   * Milliseconds between streamed tokens; model and search latencies scale with it.
   * @defaultValue 40
   */
  tokenDelayMs?: number
  /** Claim verification of the answer (the agent's `verify`). @defaultValue false */
  verify?: VerifyMode
}

/** The graph-reader on the scripted test kit: plan, queries in parallel, facts (one superseding another), knowledge, a cited answer. */
export function demoAgent({ tokenDelayMs = 40, verify = false }: DemoAgentOptions = {}): Agent {
  const llm = scriptedLLM({
    model: 'scripted-demo',
    replies: (req) => {
      const step = stepOf(req.system)
      return step ? REPLIES[step](req) : ''
    },
    tokenDelayMs,
    latencyMs: tokenDelayMs * 5,
    cost: 0.0004,
  })
  const search = mockSearch({ corpus: CORPUS, delayMs: tokenDelayMs * 8, searchCost: 0.001 })
  return createAgent({ llm, search, strategy: 'graph-reader', graphReader: { concurrency: 2, maxSteps: 4 }, verify })
}
