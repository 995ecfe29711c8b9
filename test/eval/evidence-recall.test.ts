import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evidenceRecall, watchPrompts } from '../../src/eval/evidence-recall.js'
import { scriptedLLM } from '../../src/testing/index.js'

const PASSAGE = 'The Eiffel Tower was designed by the engineering firm of Gustave Eiffel and completed in 1889 for the World Fair in Paris.'

describe('evidence recall', () => {
  it('counts a passage that reached a prompt whole, or mostly (a snippet of it), whatever the case and punctuation', () => {
    expect(evidenceRecall([{ text: PASSAGE }], [`Results:\n[1] ${PASSAGE.toUpperCase()}`])).toBe(1)
    const snippet = PASSAGE.split(' ').slice(0, 16).join(' ')
    expect(evidenceRecall([{ text: PASSAGE }], [`…${snippet}…`])).toBe(1)
    expect(evidenceRecall([{ text: PASSAGE }], [PASSAGE.split(' ').slice(0, 6).join(' ')])).toBe(0)
    expect(evidenceRecall([{ text: 'He lives in Los Angeles.' }], ['notes: he lives in los angeles, california'])).toBe(1)
  })

  it('counts a page whose URL reached a prompt, encoded or not', () => {
    const evidence = [{ url: 'https://en.wikipedia.org/wiki/Charlotte_Bront%C3%AB' }, { url: 'https://en.wikipedia.org/wiki/Jane_Eyre' }]
    expect(evidenceRecall(evidence, ['[1] https://en.wikipedia.org/wiki/Charlotte_Brontë'])).toBe(0.5)
  })

  it('is undefined without evidence, and always in [0, 1]', () => {
    expect(evidenceRecall(undefined, ['x'])).toBeUndefined()
    expect(evidenceRecall([], ['x'])).toBeUndefined()
    fc.assert(
      fc.property(fc.array(fc.record({ text: fc.string(), url: fc.webUrl() }), { minLength: 1, maxLength: 4 }), fc.array(fc.string()), (evidence, prompts) => {
        const recall = evidenceRecall(evidence, prompts) as number
        expect(recall).toBeGreaterThanOrEqual(0)
        expect(recall).toBeLessThanOrEqual(1)
      }),
    )
  })

  it('watchPrompts sees the system prompt, the prompt and every turn of each call', async () => {
    const sink: string[] = []
    const llm = watchPrompts(scriptedLLM({ model: 'm', replies: ['ok'] }), sink)
    expect(llm.model).toBe('m')
    for await (const _ of llm.stream({ system: 'sys', prompt: 'p', turns: [{ role: 'tool', callId: 'c', name: 'read', content: 'page text' }] })) {
      // drain
    }
    expect(sink).toEqual(['sys', 'p', 'page text'])
  })
})
