/**
 * The parsers of model output and the adversarial shapes they must read in linear time: shared
 * by test/strategies/shared/adversarial.test.ts (a generous bound) and bench/parsers.ts (the figure).
 */
import { parsePlanNext, parseReport, parseSubAnswer } from '../src/strategies/deep/parse.js'
import { parseExtraction, parseNodeCheck, parsePlan } from '../src/strategies/graph-reader/parse.js'
import { parseQueries, parseReflection } from '../src/strategies/reflect/parse.js'
import { parsePlannerDecision } from '../src/strategies/scratchpad/parse.js'
import { citationNumbers, rewriteCitations } from '../src/strategies/shared/citations.js'
import { parseBareList, parseLooseJson } from '../src/strategies/shared/json.js'
import { stripThink } from '../src/core/util/text.js'

export const modelOutputParsers: Readonly<Record<string, (text: string) => unknown>> = {
  parseLooseJson: (text) => parseLooseJson(text),
  'parseLooseJson (array)': (text) => parseLooseJson(text, 'array'),
  parseBareList,
  stripThink,
  citationNumbers,
  rewriteCitations: (text) => rewriteCitations(text, (n) => n + 1),
  'scratchpad parsePlannerDecision': parsePlannerDecision,
  'graph-reader parsePlan': parsePlan,
  'graph-reader parseExtraction': parseExtraction,
  'graph-reader parseNodeCheck': parseNodeCheck,
  'reflect parseQueries': parseQueries,
  'reflect parseReflection': parseReflection,
  'deep parsePlanNext': parsePlanNext,
  'deep parseSubAnswer': parseSubAnswer,
  'deep parseReport': parseReport,
}

const repeat = (unit: string, size: number) => unit.repeat(Math.max(1, Math.floor(size / unit.length)))

/** Inputs of about `size` characters that defeat rescanning parsers and backtracking regexes. */
export function adversarialInputs(size: number): Record<string, string> {
  return {
    'open brackets': repeat('[', size),
    'open braces': repeat('{', size),
    'open keys': repeat('{"a":', size),
    'unterminated string': `{"a": "${repeat('x', size)}`,
    'deep nesting': repeat('[', size / 2) + repeat(']', size / 2),
    commas: `[${repeat(',', size)}`,
    'quoted keys': `{${repeat('"a",', size)}`,
    'bare words': `{${repeat('a ', size)}`,
    'quotes then text': `${repeat('"', size)}x`,
    'spaces then text': `{"a":1${repeat(' ', size)}x`,
    newlines: `${repeat('\n', size)}x`,
    'blank labels': repeat('- \n', size),
    'think tags': repeat('<think>', size),
    'list lines': repeat('- a\n', size),
    'one long list item': `- ${repeat(',', size)}x`,
    'quoted list item': `- ${repeat('"', size)}x`,
    citations: repeat('[1]', size),
    'labelled lines': repeat('Action: Search\nQuery: ', size),
  }
}
