import { describe, expect, it } from 'vitest'
import { createAgent, strategyNames, type AgentOptions, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import type { Strategy } from '../../src/strategy.js'
import { assertEventInvariants, mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { roleOf } from '../support/roles.js'

const corpus = [
  { title: 'Lyon', url: 'https://lyon.example/', snippet: 'Lyon is the third city of France.' },
  { title: 'Rhône', url: 'https://rhone.example/', snippet: 'The Rhône flows through Lyon.' },
]

/** Runs `strategy` on a model that says the same to the same prompt, and returns the requests it saw. */
async function requestsOf(
  strategy: AgentOptions['strategy'],
  language: { agent?: string; run?: string },
  options: Pick<AgentOptions, 'verify'> & { answer?: string } = {},
): Promise<LLMRequest[]> {
  const llm = scriptedLLM({
    // Replies by the strategy's own system prompt (what comes before the language line), so both runs take the same path.
    replies: (req) =>
      /queries|query|plan|outline/i.test((req.system ?? '').split('\n\nLanguage:')[0]!)
        ? 'Action: Answer'
        : roleOf(req.system) === 'claim judge'
          ? '{"verdicts": ["supported"]}'
          : (options.answer ?? 'Lyon is the third city of France [1].'),
  })
  const agent = createAgent({
    llm,
    search: mockSearch({ corpus }),
    strategy,
    ...(options.verify !== undefined ? { verify: options.verify } : {}),
    ...(language.agent ? { language: language.agent } : {}),
  })
  const events: ResearchEvent[] = []
  for await (const event of agent.research('How big is Lyon?', language.run ? { language: language.run } : {})) events.push(event)
  assertEventInvariants(events)
  return llm.calls
}

describe('language', () => {
  it.each(strategyNames())('%s: every model call is told the language when set, and its prompts are unchanged when not', async (strategy) => {
    const plain = await requestsOf(strategy, {})
    const german = await requestsOf(strategy, { agent: 'de' })
    expect(plain.length).toBeGreaterThan(0)
    for (const req of plain) expect(req.system ?? '').not.toContain('Language:')
    // The scripted model saw one line, the same for every call, after every system prompt.
    const line = lineOf(german[0]!)
    expect(line).toMatch(/^Language: /)
    for (const req of german) expect(req.system?.endsWith(`\n\n${line}`) || req.system === line).toBe(true)
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

  it('asks for English queries beside the language, but not when the language is English', async () => {
    expect(lineOf((await requestsOf('scratchpad', { agent: 'de' }))[0]!)).toMatch(/add the same query in English too/)
    const english = lineOf((await requestsOf('scratchpad', { agent: 'en-GB' }))[0]!)
    expect(english).toMatch(/^Language: .*British English \(en-GB\)/)
    expect(english).not.toMatch(/English too/)
  })

  it('tells every role but the claim judge', async () => {
    // A paraphrase of its source: the lexical check leaves it to the judge.
    const answer = 'Lyon ranks third among the cities of France by size [1].'
    const plain = await requestsOf('scratchpad', {}, { verify: true, answer })
    const german = await requestsOf('scratchpad', { agent: 'de' }, { verify: true, answer })
    const judged = (calls: LLMRequest[]) => calls.filter((req) => roleOf(req.system) === 'claim judge').map(({ system, prompt }) => ({ system, prompt }))
    expect(judged(german)).toHaveLength(1)
    expect(judged(german)).toEqual(judged(plain))
    expect(judged(german)[0]!.system).not.toContain('Language:')
    const line = lineOf(german[0]!)
    for (const req of german) if (roleOf(req.system) !== 'claim judge') expect(req.system?.endsWith(`\n\n${line}`)).toBe(true)
    expect(german.length).toBeGreaterThan(1)
    // A call without a system prompt gets the line alone; without a language, it stays without one.
    expect((await requestsOf(bare, { agent: 'de' })).map((req) => req.system)).toEqual([line])
    expect((await requestsOf(bare, {})).map((req) => req.system)).toEqual([undefined])
  })

  it('takes BCP 47 tags in their canonical form and refuses anything else with a config error', async () => {
    expect(lineOf((await requestsOf('scratchpad', { agent: 'DE' }))[0]!)).toContain('German (de)')
    expect(lineOf((await requestsOf('scratchpad', { agent: 'zh-hant-tw' }))[0]!)).toContain('(zh-Hant-TW)')
    const llm = scriptedLLM({ replies: [] })
    for (const language of ['en_US', '', 7]) {
      expect(() => createAgent({ llm, language: language as string })).toThrow(
        expect.objectContaining({ code: 'config', message: expect.stringMatching(/BCP 47/) }),
      )
    }
    expect(() => createAgent({ llm, language: 'not a tag' })).toThrow(/`language` must be a BCP 47/)
    expect(() => createAgent({ llm }).research('q', { language: 'x!' })).toThrow(/BCP 47/)
  })
})

/** The language line of a request: the last paragraph of its system prompt. */
function lineOf(req: LLMRequest): string {
  return (req.system ?? '').split('\n\n').at(-1)!
}

/** A strategy that makes one model call with no system prompt and answers with its reply. */
const bare: Strategy = {
  name: 'bare',
  async *run(_question, ctx) {
    const text = yield* ctx.complete('finalizer', { prompt: 'Answer.' })
    yield { type: 'answer-token', text }
    yield { type: 'answer', text, citations: [] }
    return { reason: 'answered' }
  },
}
