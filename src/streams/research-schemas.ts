/**
 * Runtime schemas of the data parts and metadata a research run puts in a `UIMessage`, as
 * Standard Schemas the AI SDK takes as they are:
 *
 *   validateUIMessages<ResearchUIMessage>({ messages, dataSchemas: researchDataSchemas, metadataSchema: researchMetadataSchema })
 *   useChat<ResearchUIMessage>({ dataPartSchemas: researchDataSchemas })
 *
 * The chat handler checks the parts a client sends back with the same schemas.
 */
import { arrayOf, boolean, type Check, number, object, oneOf, type ResearchSchema, schemaOf, string } from './standard-schema.js'
import type { ResearchDataParts, ResearchMessageMetadata } from './ui-message-chunks.js'

const strings = arrayOf(string)
const errorInfo = object({ message: string, code: string }, { cause: string })
const resultMeta = object({}, { authors: strings, year: number, venue: string, doi: string, arxivId: string, pdfUrl: string })
const searchResult = object({ title: string, url: string, snippet: string }, { score: number, cached: boolean, meta: resultMeta })
const fact = object({ id: string, text: string, sources: strings }, { queryId: string })
const cost = object(
  {
    llm: number,
    search: number,
    total: number,
    inputTokens: number,
    outputTokens: number,
    llmCalls: number,
    unpricedCalls: number,
    searches: number,
    fetches: number,
  },
  // Optional: messages saved before embeddings were counted have none.
  { embedding: number, embeddingTokens: number },
)
const report = object({
  title: string,
  executiveSummary: string,
  mainFindings: strings,
  conclusions: strings,
  limitations: strings,
  recommendations: strings,
  sourcesSummary: string,
})

const dataChecks: { readonly [Name in keyof ResearchDataParts]: Check } = {
  plan: object({ text: string }, { keyElements: strings, queries: strings }),
  query: object({ queryId: string, query: string }, { parentId: string, depth: number, results: arrayOf(searchResult), cached: boolean, error: errorInfo }),
  fact: object({ fact }, { supersedes: strings, supersededBy: string }),
  cost: object({ total: cost }),
  warning: object({ message: string, code: string }, { queryId: string, cause: string }),
  recall: object({ findings: arrayOf(object({ text: string, url: string, question: string }, { title: string })) }),
  report: object({ report }),
  outline: object({ outline: object({ title: string, sections: arrayOf(object({ title: string, goal: string, questions: strings })) }) }),
  section: object({ index: number, title: string, start: number }, { end: number }),
  claim: object(
    {
      index: number,
      text: string,
      citations: arrayOf(number),
      verdict: oneOf(['supported', 'partial', 'unsupported', 'uncited', 'unverifiable']),
      score: number,
    },
    { evidence: string },
  ),
  revision: object({ text: string }),
  page: object({ url: string, chars: number }, { queryId: string, title: string }),
  knowledge: object({ knowledge: string, iteration: number }),
  'llm-call': object({ role: string, latencyMs: number, inputTokens: number, outputTokens: number }, { model: string }),
}

/** The schemas of every research data part, by name (`fact` checks a `data-fact` part's `data`), the transient ones too. */
export type ResearchDataSchemas = { readonly [Name in keyof ResearchDataParts]: ResearchSchema<ResearchDataParts[Name]> }

/**
 * A Standard Schema for each research data part's `data`, by part name: the AI SDK's
 * `validateUIMessages({ dataSchemas })` and `useChat({ dataPartSchemas })` take it as it is.
 */
export const researchDataSchemas: ResearchDataSchemas = Object.freeze(
  Object.fromEntries(Object.entries(dataChecks).map(([name, check]) => [name, schemaOf(check)])) as unknown as ResearchDataSchemas,
)

const RUN_END_REASONS = ['answered', 'max-iterations', 'paused', 'aborted', 'error'] as const

/**
 * The Standard Schema of a research message's `metadata`. A message without metadata (a user's)
 * passes: `validateUIMessages` checks every message's metadata with it.
 */
export const researchMetadataSchema: ResearchSchema<ResearchMessageMetadata | undefined> = schemaOf((value, path, issues) => {
  if (value === undefined) return
  object({ runId: string }, { strategy: string, reason: oneOf(RUN_END_REASONS), confidence: number, supportRate: number, error: errorInfo })(
    value,
    path,
    issues,
  )
})
