/**
 * A reply written to a strategy's schema (what a constraining backend returns) is read as the
 * loose replies the strategies have always read: prose around it, code fences, a trailing comma.
 * Each is said by the model for its role in a run of its strategy; the runs must do the same.
 */
import { describe, expect, it } from 'vitest'
import type { AgentOptions } from '../../src/index.js'
import type { Role } from '../support/roles.js'
import { runReplying, warningCodes, whatItDid } from './replying.js'

const loosen = (json: string) => [
  `Sure! Here is the JSON:\n${json}\nHope this helps.`,
  `\`\`\`json\n${json}\n\`\`\``,
  json.replace(/\]\}$/, ',]}').replace(/\]$/, ',]'),
]

/** A case: the strategy, the role that says the reply, the reply, and what of it the run must show. */
const cases: Array<[string, AgentOptions['strategy'], Role, unknown, string]> = [
  [
    'graph-reader plan',
    'graph-reader',
    'graph-reader planner',
    { goal: 'why blue', steps: ['find the cause'], key_elements: ['Rayleigh scattering'], queries: ['why is the sky blue', 'rayleigh scattering'] },
    '"query":"rayleigh scattering"',
  ],
  [
    'graph-reader extraction',
    'graph-reader',
    'graph-reader extractor',
    { facts: [{ text: 'Air scatters blue light most.', source: 1 }] },
    'Air scatters blue light most.',
  ],
  [
    'graph-reader node check',
    'graph-reader',
    'graph-reader neighbor',
    { answerable: false, missing: 'the wavelength', queries: ['blue light wavelength'] },
    '"query":"blue light wavelength"',
  ],
  ['reflect queries', 'reflect', 'reflect queries', { queries: ['sky colour physics', 'rayleigh scattering'] }, '"query":"sky colour physics"'],
  [
    'reflect reflection',
    'reflect',
    'reflect reflection',
    { slots: { cause: 'scattering [1]', wavelength: null }, need_more: true, new_queries: ['blue wavelength nm'] },
    '"query":"blue wavelength nm"',
  ],
  [
    'deep next step',
    'deep',
    'deep planner',
    { is_complete: false, next_question: 'What is Rayleigh scattering?', reasoning: 'the cause' },
    'What is Rayleigh scattering?',
  ],
  [
    'deep sub-answer',
    'deep',
    'deep sub-answer',
    { answer: 'Scattering [1].', confidence: 0.8, facts: [{ text: 'Air scatters blue.', sources: [1] }], need_more: false, queries: [] },
    'Air scatters blue.',
  ],
  [
    'deep report',
    'deep',
    'deep report',
    { title: 'Sky', main_findings: ['Blue [1]'], conclusions: ['Scattering'], limitations: ['One source'], recommendations: ['More'], sources_summary: 'One' },
    '"sourcesSummary":"One"',
  ],
]

describe.each(cases)('%s', (_name, strategy, role, reply, shown) => {
  it('reads the schema-valid reply as it reads the loose forms', async () => {
    const exact = JSON.stringify(reply)
    const { events } = await runReplying(strategy, { [role]: exact })
    expect(warningCodes(events)).not.toContain('unparseable-output')
    const did = whatItDid(events)
    expect(did.join('\n')).toContain(shown)
    for (const loose of loosen(exact)) expect(whatItDid((await runReplying(strategy, { [role]: loose })).events)).toEqual(did)
  })
})
