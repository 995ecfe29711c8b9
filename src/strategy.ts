// `laconic-research/strategy`: the toolkit for writing a strategy of your own (see docs/adapters.md,
// "Writing a strategy"): the built-in strategies to wrap, merging concurrent steps, the total
// parsers of model output, citations and the cited, checked answer, the notebook, the text helpers the built-ins use, and the
// checks a strategy's `normalize` uses on its options section. The types a strategy is written
// against: `StrategyContext['options']` and the like name their parts.
export type { Strategy, StrategyDefinition, StrategyContext, StrategyOutcome, Step } from './core/contracts/strategy-types.js'
export type { StrategyEvent } from './core/contracts/events.js'
export { defineStrategy } from './core/run/registry.js'
export { scratchpad } from './strategies/scratchpad/index.js'
export { graphReader, Notebook } from './strategies/graph-reader/index.js'
export { reflect } from './strategies/reflect/index.js'
export { deep } from './strategies/deep/index.js'
export { react } from './strategies/react/index.js'
export { report } from './strategies/report/index.js'
export { createMerge } from './core/util/merge.js'
export { generate } from './core/run/generate.js'
export { isAbortError } from './core/contracts/laconic-error.js'
export { optionsSection, wholeNumberOption } from './core/run/shared-options.js'
export { parseToolArgs, toolsUnsupported } from './core/contracts/tool-args.js'
export { normalizeUrl, isAdUrl } from './core/util/urls.js'
export { documentPages } from './documents/document-pages.js'
export { documentPassages } from './documents/passages.js'
export { createThinkFilter, stripThink, truncateAtSentence, normalizeText, estimateTokens } from './core/util/text.js'
export { CitationRegistry, citationFilter } from './strategies/shared/citations.js'
export { citedAnswer, type CitedAnswerArgs, type CitedSource } from './strategies/shared/cited-answer.js'
export { parseLooseJson, parseBareList, stringField } from './strategies/shared/json.js'
