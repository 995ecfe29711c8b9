/**
 * A follow-up that finds a fact again lists it once in its knowledge (issue 35, item 9: the live
 * page's Knowledge panel showed every fact of the first turn twice).
 */
import { describe, expect, it } from 'vitest'
import { DEMO_QUESTION, demoAgent } from '../../../examples/sse-server/demo.js'
import type { ResearchRun } from '../../../src/index.js'

async function shownKnowledge(run: ResearchRun): Promise<string[]> {
  let shown = ''
  for await (const event of run) if (event.type === 'knowledge-update') shown = event.knowledge
  return shown.split('\n').filter(Boolean)
}

const BAKER = '- Baker was honoured for computational protein design (https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/)'

describe('graph-reader knowledge', () => {
  it('a follow-up in a conversation lists a fact found again once', async () => {
    const session = demoAgent({ tokenDelayMs: 0 }).session('c')
    await session.answer(DEMO_QUESTION)
    const lines = await shownKnowledge(session.research('What did Baker do?'))
    expect(lines).toContain(BAKER)
    expect(new Set(lines).size).toBe(lines.length)
  })

  it('keeps the given knowledge that states no fact found again', async () => {
    const given = '- Baker was honoured for computational protein design\nThe committee met in Stockholm.'
    const lines = await shownKnowledge(demoAgent({ tokenDelayMs: 0 }).research(DEMO_QUESTION, { knowledge: given }))
    expect(lines.filter((line) => line.includes('computational protein design'))).toEqual([BAKER])
    expect(lines).toContain('The committee met in Stockholm.')
  })
})
