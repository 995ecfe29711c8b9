/**
 * What a `react` turn carries from the conversation: the earlier answers its prompt shows
 * (`priorAnswers` and `citations` of the run), and the knowledge it leaves for the next turn
 * (its `knowledge-update`): what its calls found, not the log of its calls.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, type AgentOptions, type ResearchEvent, type ResearchOptions } from '../../../src/index.js'
import { assertEventInvariants, mockFetch, mockSearch, scriptedLLM, searchFailure } from '../../../src/testing/index.js'

type Script = Parameters<typeof scriptedLLM>[0]['replies']

async function run(replies: Script, options: ResearchOptions = {}, agent: Partial<AgentOptions> = {}) {
  const llm = scriptedLLM({ replies })
  const search = mockSearch({
    results: {
      x: [
        { title: 'A', url: 'https://a.example/', snippet: 'snippet of a' },
        { title: 'B', url: 'https://b.example/', snippet: 'snippet of b' },
      ],
    },
    fail: (query) => (query === 'down' ? searchFailure('down') : undefined),
  })
  const fetch = mockFetch({ pages: { 'https://a.example/': { title: 'A', text: 'the page of a' } } })
  const events: ResearchEvent[] = []
  for await (const event of createAgent({ llm, search, fetch, strategy: 'react', ...agent }).research('Who?', options)) events.push(event)
  assertEventInvariants(events)
  return { events, llm }
}

/** The earlier answers the first step's prompt shows ('' when none). */
async function earlierShown(options: ResearchOptions, contextTokens?: number): Promise<string> {
  const { llm } = await run(['Nothing to add.'], options, contextTokens ? { react: { contextTokens } } : {})
  const prompt = llm.calls[0]!.prompt
  const at = prompt.indexOf('Earlier in this conversation:\n')
  if (at < 0) return ''
  const rest = prompt.slice(at + 'Earlier in this conversation:\n'.length)
  const end = rest.search(/\n\n(Known from earlier research|Sources so far|Notes from earlier steps)/)
  return end < 0 ? rest : rest.slice(0, end)
}

describe('the earlier answers a turn is shown', () => {
  it('renumbers each cited source for the run and drops a number that names none', async () => {
    const citations = [
      { index: 5, url: 'https://a.example/', title: 'A' },
      { index: 9, url: 'https://b.example/' },
    ]
    const options = { priorAnswers: [{ query: 'Who?', answer: 'A [5] and B [9], not C [7].' }], citations }
    expect(await earlierShown(options)).toBe('Q: Who?\nA: A [1] and B [2], not C.')
    // The numbers name the run's sources, which the model may cite again.
    const { llm } = await run(['Nothing to add.'], options)
    expect(llm.calls[0]!.prompt).toContain('Sources so far (cite them as [n]):\n[1] A — https://a.example/\n[2] https://b.example/')
  })

  it('keeps the newest answers that fit, shown oldest first', async () => {
    const answer = (n: number) => `Answer number ${n}. ${'It goes on. '.repeat(50).trim()}`
    const priorAnswers = [1, 2, 3].map((n) => ({ query: `Question ${n}?`, answer: answer(n) }))
    const one = `Q: Question 3?\nA: ${answer(3)}`.length
    expect(await earlierShown({ priorAnswers }, one * 2 + 2)).toBe(`Q: Question 2?\nA: ${answer(2)}\n\nQ: Question 3?\nA: ${answer(3)}`)
    expect(await earlierShown({ priorAnswers }, one)).toBe(`Q: Question 3?\nA: ${answer(3)}`)
    expect(await earlierShown({ priorAnswers }, one - 1)).toBe('')
  })

  it('skips what is not an answer', async () => {
    const priorAnswers = [{ query: 'Q?', answer: '  ' }, { query: 7, answer: 'x' } as never, null as never]
    expect(await earlierShown({ priorAnswers })).toBe('')
  })
})

describe('the knowledge a turn leaves', () => {
  it('is what the calls found, pages first, then the knowledge given, each line once and within the limit', async () => {
    const lookup = { name: 'lookup', description: 'looks up', parameters: { type: 'object', properties: { id: { type: 'number' } } }, execute: () => '42' }
    const { events } = await run(
      [
        {
          text: '',
          toolCalls: [
            { name: 'search', args: { query: 'x' } },
            { name: 'search', args: { query: 'down' } },
          ],
        },
        {
          text: '',
          toolCalls: [
            { name: 'read_page', args: { url: 'https://a.example/' } },
            { name: 'lookup', args: { id: 1 } },
          ],
        },
        'A is a [1].',
      ],
      { knowledge: '- B: snippet of b (https://b.example/)\n- given before' },
      { react: { tools: [lookup] } },
    )
    expect(events.filter((e) => e.type === 'tool-result').map((e) => e.type === 'tool-result' && e.ok)).toEqual([true, false, true, true])
    const updates = events.filter((e) => e.type === 'knowledge-update')
    expect(updates.map((e) => e.type === 'knowledge-update' && e.knowledge)).toEqual([
      [
        '- A: the page of a (https://a.example/)',
        '- A: snippet of a (https://a.example/)',
        '- B: snippet of b (https://b.example/)',
        '- lookup {"id":1}: 42',
        '- given before',
      ].join('\n'),
    ])
  })

  it('keeps whole lines, in that order, within its limit', async () => {
    const given = Array.from({ length: 100 }, (_, i) => `- Given line number ${i} of a long list of knowledge.`)
    const { events } = await run([{ text: '', toolCalls: [{ name: 'search', args: { query: 'x' } }] }, 'A is a [1].'], { knowledge: given.join('\n') })
    const update = events.find((e) => e.type === 'knowledge-update')
    const lines = update?.type === 'knowledge-update' ? update.knowledge.split('\n') : []
    const all = ['- A: snippet of a (https://a.example/)', '- B: snippet of b (https://b.example/)', ...given]
    // Cut at a line, before it would pass the limit (3,000 characters).
    expect(lines.length).toBeGreaterThan(10)
    expect(lines.length).toBeLessThan(all.length)
    expect(lines).toEqual(all.slice(0, lines.length))
    expect(lines.join('\n').length).toBeLessThanOrEqual(3000)
    expect(`${lines.join('\n')}\n${all[lines.length]}`.length).toBeGreaterThan(3000)
  })
})
