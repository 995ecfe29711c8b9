import { describe, expect, it } from 'vitest'
import { createAgent, strategyNames, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import { languageLine, languageTag, withLanguage } from '../../src/core/run/language.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'

const corpus = [
  { title: 'Lyon', url: 'https://lyon.example/', snippet: 'Lyon is the third city of France.' },
  { title: 'Rhône', url: 'https://rhone.example/', snippet: 'The Rhône flows through Lyon.' },
]

/** Runs `strategy` on a model that says the same to the same prompt, and returns the requests it saw. */
async function requestsOf(strategy: string, language: { agent?: string; run?: string }): Promise<LLMRequest[]> {
  const llm = scriptedLLM({
    // Replies by the strategy's own system prompt (what comes before the language line), so both runs take the same path.
    replies: (req) =>
      /queries|query|plan|outline/i.test((req.system ?? '').split('\n\nLanguage:')[0]!) ? 'Action: Answer' : 'Lyon is the third city of France [1].',
  })
  const agent = createAgent({ llm, search: mockSearch({ corpus }), strategy, ...(language.agent ? { language: language.agent } : {}) })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('How big is Lyon?', language.run ? { language: language.run } : {})) events.push(event)
  assertEventInvariants(events)
  return llm.calls
}

describe('language', () => {
  it.each(strategyNames())('%s: every model call is told the language when set, and its prompts are unchanged when not', async (strategy) => {
    const line = languageLine('de')
    const plain = await requestsOf(strategy, {})
    const german = await requestsOf(strategy, { agent: 'de' })
    expect(plain.length).toBeGreaterThan(0)
    for (const req of plain) expect(req.system ?? '').not.toContain('Language:')
    // The scripted model saw the line after every system prompt.
    for (const req of german) expect(req.system?.endsWith(line)).toBe(true)
    expect(line).toContain('German (de)')
    // Take the line away and the requests are those of the run without a language.
    const strip = (req: LLMRequest) => JSON.stringify({ ...req, system: req.system?.slice(0, -line.length).replace(/\n\n$/, '') || undefined })
    const asPlain = (req: LLMRequest) => JSON.stringify({ ...req, system: req.system || undefined })
    expect(german.map(strip).sort()).toEqual(plain.map(asPlain).sort())
  })

  it("a run's own language wins over the agent's", async () => {
    const calls = await requestsOf('scratchpad', { agent: 'fr', run: 'pt-br' })
    expect(calls[0]?.system).toContain('Brazilian Portuguese (pt-BR)')
    expect(calls[0]?.system).not.toContain('(fr)')
  })

  it('asks for English queries beside the language, but not when the language is English', () => {
    expect(languageLine('de')).toMatch(/add the same query in English too/)
    expect(languageLine('en-GB')).not.toMatch(/English too/)
  })

  it('tells every role but the claim judge', () => {
    expect(withLanguage('You judge.', 'de', 'verifier')).toBe('You judge.')
    expect(withLanguage('You plan.', 'de', 'planner')).toBe(`You plan.\n\n${languageLine('de')}`)
    expect(withLanguage(undefined, 'de', 'finalizer')).toBe(languageLine('de'))
    expect(withLanguage('You plan.', undefined, 'planner')).toBe('You plan.')
  })

  it('takes BCP 47 tags in their canonical form and refuses anything else with a config error', () => {
    expect(languageTag('DE')).toBe('de')
    expect(languageTag('zh-hant-tw')).toBe('zh-Hant-TW')
    expect(() => languageTag('en_US')).toThrow(/BCP 47/)
    expect(() => languageTag('')).toThrow(/BCP 47/)
    expect(() => languageTag(7)).toThrow(/BCP 47/)
    const llm = scriptedLLM({ replies: [] })
    expect(() => createAgent({ llm, language: 'not a tag' })).toThrow(/`language` must be a BCP 47/)
    expect(() => createAgent({ llm }).research('q', { language: 'x!' })).toThrow(/BCP 47/)
  })
})
