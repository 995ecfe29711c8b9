import type { SearchResult } from '../../core/contracts/providers.js'
import type { NumberedSource } from './sources.js'

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

export const synthesizerSystem = `You maintain the knowledge notes of a research agent. Rewrite the notes so they keep every fact relevant to the question, merge in what the new search results add, drop what is irrelevant or repeated, and keep the number of each fact's source in brackets after it, like [3] (the numbers of the results and of the notes; never a URL). Keep the notes' order and wording where they still hold and add new facts at the end, so what stays the same stays first. Write plain sentences, no preamble.`

/** `numbers`: each result's number, the one its facts are cited by in the notes. */
export function synthesizerPrompt(args: {
  question: string
  knowledge: string
  query: string
  results: readonly SearchResult[]
  numbers: readonly number[]
  budgetChars: number
}): string {
  const results = args.results.map((r, i) => `[${args.numbers[i]}] ${r.title}\n${r.url}\n${r.snippet}`).join('\n\n')
  return `Question: ${args.question}

Current notes:
${args.knowledge || '(empty)'}

New results for "${args.query}":
${results}

Rewrite the notes in at most ${args.budgetChars} characters.`
}

export const finalizerSystem = `You answer the user's question from research notes and the sources they cite. Use only them; say plainly what they do not cover.
Cite the sources of your claims with their numbers in brackets, like [1] or [2][3], right after the claim. Be direct and concise.`

export function finalizerPrompt(args: { question: string; knowledge: string; sources: readonly NumberedSource[]; bestEffort: boolean }): string {
  const sources = args.sources.map((s) => `[${s.n}] ${s.title ? `${s.title} — ` : ''}${s.url}${s.text ? `\n${s.text}` : ''}`).join('\n\n')
  const caveat = args.bestEffort
    ? '\nThe research budget ran out before the notes were complete: give the best answer they allow and say what is uncertain.'
    : ''
  return `Question: ${args.question}

Research notes:
${args.knowledge || '(no notes were gathered)'}
${sources ? `\nSources:\n${sources}\n` : ''}${caveat}
Answer:`
}
