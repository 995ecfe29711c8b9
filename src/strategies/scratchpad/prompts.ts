import type { SearchResult } from '../../core/index.js'

/** What the planner sees: the question, the compressed knowledge, and past queries only. */
export interface PlannerView {
  question: string
  knowledge: string
  pastQueries: readonly string[]
  iteration: number
  maxSteps: number
}

export const plannerSystem = `You are the planner of a research agent. You decide the next step: search the web, or answer.
Never answer from your own memory: answer only when the knowledge below covers the question.
Reply with exactly one of these two forms and nothing else:
Action: Search
Query: <a short web search query>
or
Action: Answer`

export function plannerPrompt(view: PlannerView): string {
  const past = view.pastQueries.length ? view.pastQueries.map((q) => `- ${q}`).join('\n') : '(none yet)'
  return `Question: ${view.question}

Knowledge so far:
${view.knowledge || '(empty: nothing has been found yet)'}

Searches already run (do not repeat them):
${past}

Step ${view.iteration + 1} of at most ${view.maxSteps}. Decide: search for what is still missing, or answer.`
}

export const synthesizerSystem = `You maintain the knowledge notes of a research agent. Rewrite the notes so they keep every fact relevant to the question, merge in what the new search results add, drop what is irrelevant or repeated, and keep source URLs in parentheses after the facts they support. Keep the notes' order and wording where they still hold and add new facts at the end, so what stays the same stays first. Write plain sentences, no preamble.`

export function synthesizerPrompt(args: { question: string; knowledge: string; query: string; results: readonly SearchResult[]; budgetChars: number }): string {
  const results = args.results.map((r, i) => `[${i + 1}] ${r.title}\n${r.url}\n${r.snippet}`).join('\n\n')
  return `Question: ${args.question}

Current notes:
${args.knowledge || '(empty)'}

New results for "${args.query}":
${results}

Rewrite the notes in at most ${args.budgetChars} characters.`
}

export const finalizerSystem = `You answer the user's question from research notes. Use only the notes; say plainly what they do not cover. Be direct and concise; keep the source URLs that support key claims.`

export function finalizerPrompt(args: { question: string; knowledge: string; bestEffort: boolean }): string {
  const caveat = args.bestEffort
    ? '\nThe research budget ran out before the notes were complete: give the best answer they allow and say what is uncertain.'
    : ''
  return `Question: ${args.question}

Research notes:
${args.knowledge || '(no notes were gathered)'}
${caveat}
Answer:`
}
