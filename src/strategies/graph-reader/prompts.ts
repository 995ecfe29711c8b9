/**
 * The graph-reader's prompts: small single-turn templates, each asking for JSON that the
 * matching reader in parse.ts accepts in many looser forms. Each puts what stays the same
 * across calls of its role first (question, key elements, the notebook oldest first) and what
 * changes last, so a provider's prompt cache can reuse the prefix.
 */

export const plannerSystem = `You plan web research. Break the question into a rational plan and the first searches to run.
Reply with JSON only, in this form:
{"key_elements": ["<3 to 8 entities, names, dates or concepts to resolve>"], "queries": ["<3 to 5 short web search queries>"], "goal": "<what the answer must establish>", "steps": ["<2 to 4 short steps>"]}`

export function plannerPrompt(args: { question: string; knowledge: string }): string {
  const known = args.knowledge ? `\nAlready known from earlier research:\n${args.knowledge}\n` : ''
  return `Question: ${args.question}
${known}
Write the plan as JSON.`
}

export interface SourceView {
  title: string
  url: string
  snippet: string
  /** Deep-read page text, already cut to the page budget. */
  page?: string
}

export const extractorSystem = `You extract atomic facts for a research question from numbered search results.
An atomic fact is one short, self-contained statement (names, numbers and dates written out, no pronouns) that helps answer the question.
Cite each fact with the number of the result it comes from. Use only what the results say, never your own knowledge.
Reply with JSON only: {"facts": [{"text": "<fact>", "source": <result number>}]}
If nothing helps, reply {"facts": []}.`

/** The notebook as a prompt shows it, oldest first: `hidden` facts left out between `head` and `tail`. */
export interface NotebookView {
  head: readonly string[]
  hidden: number
  tail: readonly string[]
}

export function extractorPrompt(args: {
  question: string
  keyElements: readonly string[]
  /** The notebook's facts: already known, so not worth extracting again. */
  notebook: NotebookView
  query: string
  sources: readonly SourceView[]
}): string {
  const sources = args.sources.map((s, i) => `[${i + 1}] ${s.title}\n${s.url}\n${s.snippet}${s.page ? `\nPage text:\n${s.page}` : ''}`).join('\n\n')
  const elements = args.keyElements.length ? `\nKey elements: ${args.keyElements.join('; ')}` : ''
  const known = shows(args.notebook) ? `\n\nAlready in the notebook (do not extract these again):\n${notebookLines(args.notebook)}` : ''
  return `Question: ${args.question}${elements}${known}

Results for the search "${args.query}":
${sources}

Extract the facts as JSON.`
}

export const neighborSystem = `You steer web research. Given the question and the notebook of facts found so far, decide:
1. answerable: can the question be fully answered from the notebook alone?
2. if not, up to 4 new short web search queries that would find what is still missing (never repeat a past search).
Reply with JSON only: {"answerable": true or false, "queries": ["<query>"], "missing": "<what is still unknown>"}`

/** The searches a node check lists: the newest in full, the `folded` older ones as one line naming the words most searched (`topics`). */
export interface SearchedView {
  folded: number
  topics: readonly string[]
  recent: readonly string[]
}

export function neighborPrompt(args: {
  question: string
  keyElements: readonly string[]
  notebook: NotebookView
  /** The search this check follows. */
  query: string
  searched: SearchedView
  canSearchMore: boolean
}): string {
  const elements = args.keyElements.length ? `\nKey elements: ${args.keyElements.join('; ')}` : ''
  const more = args.canSearchMore ? '' : '\nThe search budget is spent: set "queries" to [].'
  return `Question: ${args.question}${elements}

Notebook:
${shows(args.notebook) ? notebookLines(args.notebook) : '(empty)'}

Searches already run:
${searchedLines(args.searched)}

Last search: ${args.query}
${more}
Reply with the JSON.`
}

function searchedLines(view: SearchedView): string {
  const folded = view.folded ? [`(${view.folded} earlier searches not listed; the words searched most: ${view.topics.join(', ') || 'none'})`] : []
  return [...folded, ...view.recent.map((q) => `- ${q}`)].join('\n')
}

const shows = (view: NotebookView) => view.head.length > 0 || view.tail.length > 0

/** The notebook's facts as a list, oldest first, with a note of how many are left out where they are. */
function notebookLines(view: NotebookView): string {
  const list = (facts: readonly string[]) => facts.map((f) => `- ${f}`)
  return [...list(view.head), ...(view.hidden ? [`(${view.hidden} facts not shown)`] : []), ...list(view.tail)].join('\n')
}

export const condenserSystem = `You condense research notes. Merge facts that say the same thing, drop facts that do not help answer the question, and keep every number, name and date that does.
Each fact lists its sources as numbers in brackets; keep the numbers of every fact you merge.
Reply with JSON only: {"facts": [{"text": "<fact>", "sources": [<numbers>]}]}`

export function condenserPrompt(args: { question: string; facts: readonly { text: string; sources: readonly number[] }[] }): string {
  return `Question: ${args.question}

Facts:
${args.facts.map((f) => `- ${f.text}${f.sources.map((n) => ` [${n}]`).join('')}`).join('\n')}

Condense them as JSON.`
}

export const finalizerSystem = `You answer the user's question from a notebook of facts gathered by web research. Use only the notebook; say plainly what it does not cover.
Cite the sources of your claims with their numbers in brackets, like [1] or [2][3], right after the claim. Be direct and concise.`

export function finalizerPrompt(args: {
  question: string
  facts: readonly { text: string; sources: readonly number[] }[]
  sources: readonly { number: number; url: string; title?: string }[]
  knowledge: string
  bestEffort: boolean
}): string {
  const facts = args.facts.length ? args.facts.map((f) => `- ${f.text}${f.sources.map((n) => ` [${n}]`).join('')}`).join('\n') : '(no facts were gathered)'
  const sources = args.sources.map((s) => `[${s.number}] ${s.title ? `${s.title} — ` : ''}${s.url}`).join('\n')
  const known = args.knowledge ? `\nEarlier findings (uncited):\n${args.knowledge}\n` : ''
  const caveat = args.bestEffort
    ? '\nThe research budget ran out before the notebook was complete: give the best answer it allows and say what is uncertain.\n'
    : ''
  return `Question: ${args.question}
${known}
Notebook:
${facts}
${sources ? `\nSources:\n${sources}\n` : ''}${caveat}
Answer:`
}
