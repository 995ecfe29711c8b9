/**
 * A reply written to a strategy's schema (what a constraining backend returns) parses to the same
 * result as the loose replies the parsers have always read: prose around it, code fences, a
 * trailing comma, single-quoted keys from a small model.
 */
import { describe, expect, it } from 'vitest'
import { parsePlanNext, parseReport, parseSubAnswer } from '../../src/strategies/deep/parse.js'
import { parseExtraction, parseNodeCheck, parsePlan } from '../../src/strategies/graph-reader/parse.js'
import { parseQueries, parseReflection } from '../../src/strategies/reflect/parse.js'

const loosen = (json: string) => [
  `Sure! Here is the JSON:\n${json}\nHope this helps.`,
  `\`\`\`json\n${json}\n\`\`\``,
  json.replace(/\]\}$/, ',]}').replace(/\]$/, ',]'),
]

const cases: Array<[string, (reply: string) => unknown, unknown]> = [
  [
    'graph-reader plan',
    parsePlan,
    { goal: 'why blue', steps: ['find the cause'], key_elements: ['Rayleigh scattering'], queries: ['why is the sky blue', 'rayleigh scattering'] },
  ],
  ['graph-reader extraction', parseExtraction, { facts: [{ text: 'Air scatters blue light most.', source: 1 }] }],
  ['graph-reader node check', parseNodeCheck, { answerable: false, missing: 'the wavelength', queries: ['blue light wavelength'] }],
  ['reflect queries', (r) => parseQueries(r), { queries: ['sky colour physics', 'rayleigh scattering'] }],
  ['reflect reflection', parseReflection, { slots: { cause: 'scattering [1]', wavelength: null }, need_more: true, new_queries: ['blue wavelength nm'] }],
  ['deep next step', parsePlanNext, { is_complete: false, next_question: 'What is Rayleigh scattering?', reasoning: 'the cause' }],
  [
    'deep sub-answer',
    parseSubAnswer,
    { answer: 'Scattering [1].', confidence: 0.8, facts: [{ text: 'Air scatters blue.', sources: [1] }], need_more: false, queries: [] },
  ],
  [
    'deep report',
    parseReport,
    { title: 'Sky', main_findings: ['Blue [1]'], conclusions: ['Scattering'], limitations: ['One source'], recommendations: ['More'], sources_summary: 'One' },
  ],
]

describe.each(cases)('%s', (_name, parse, reply) => {
  it('reads the schema-valid reply as it reads the loose forms', () => {
    const exact = JSON.stringify(reply)
    const parsed = parse(exact)
    expect(parsed).toBeDefined()
    for (const loose of loosen(exact)) expect(parse(loose)).toEqual(parsed)
  })
})
