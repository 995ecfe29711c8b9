// `laconic-research/strategy`: the toolkit for writing a strategy of your own (see docs/adapters.md,
// "Writing a strategy"): the built-in strategies to wrap, merging concurrent steps, the total
// parsers of model output, citations, the notebook, the text helpers the built-ins use, and the
// checks a strategy's `normalize` uses on its options section.
export { scratchpad, parsePlannerDecision, type PlannerDecision } from './strategies/scratchpad/index.js'
export { graphReader, Notebook, type AddOutcome } from './strategies/graph-reader/index.js'
export { reflect } from './strategies/reflect/index.js'
export { deep } from './strategies/deep/index.js'
export { react } from './strategies/react/index.js'
export { report } from './strategies/report/index.js'
export { createMerge, type Merge } from './core/util/merge.js'
export { generate, type Generation } from './core/run/generate.js'
export { isAbortError } from './core/contracts/laconic-error.js'
export { optionsSection, wholeNumberOption } from './core/run/shared-options.js'
export { parseToolArgs, toolsUnsupported, type ToolArgs } from './core/contracts/tool-args.js'
export { normalizeUrl, isAdUrl } from './core/util/urls.js'
export { documentPages, pageOfUrl, pageUrl } from './documents/document-pages.js'
export { documentPassages, type Passage } from './documents/passages.js'
export { createThinkFilter, stripThink, truncateAtSentence, normalizeText, estimateTokens, type TextFilter } from './core/util/text.js'
export { CitationRegistry, citationFilter, rewriteCitations, citationNumbers } from './strategies/shared/citations.js'
export { parseLooseJson, parseBareList, stringField, stringArrayField } from './strategies/shared/json.js'
