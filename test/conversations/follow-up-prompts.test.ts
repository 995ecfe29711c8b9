/**
 * The "done when": a session's second turn plans with what its first turn found, for
 * every built-in strategy (each reads the conversation in its own way: scratchpad and
 * graph-reader through the knowledge, reflect through the prior answers, deep through both).
 */
import { describe, expect, it } from 'vitest'
import { createAgent, memorySessions } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { STRATEGIES, world, type StrategyName } from '../checkpoints/world.js'
import { type Role, roleOf } from '../support/roles.js'

/** The roles of each strategy's planning calls. */
const PLANNERS: Record<StrategyName, readonly Role[]> = {
  scratchpad: ['scratchpad planner'],
  'graph-reader': ['graph-reader planner'],
  reflect: ['reflect queries', 'reflect reflection'],
  deep: ['deep planner'],
}

describe('a follow-up turn of a session', () => {
  it.each(STRATEGIES)('%s: the second turn plans with the first turn’s findings, carried through the store', async (strategy) => {
    const store = memorySessions()
    const first = world(strategy, 3)
    await first.agent.session('chat', { store }).answer('What happened to alpha?')
    const state = await store.load('chat')
    // What the first turn found: its facts, its knowledge's lines, its answers (citation marks aside).
    const findings = [
      ...(state?.facts.map((f) => f.text) ?? []),
      ...(state?.knowledge.split('\n') ?? []),
      ...(state?.priorAnswers.map((p) => p.answer.replace(/\s*\[\d+\]/g, '')) ?? []),
    ].filter((text) => text.trim().length >= 6)
    expect(findings.length).toBeGreaterThan(0)

    // A new agent, as another process would have: only the store links the two turns.
    const second = world(strategy, 3)
    await second.agent.session('chat', { store }).answer('And what came after that?')
    const plans = second.llm.calls.filter((req) => PLANNERS[strategy].some((role) => roleOf(req.system) === role)).map((req) => req.prompt)
    expect(plans.length).toBeGreaterThan(0)
    expect(findings.filter((finding) => plans.some((prompt) => prompt.includes(finding.trim())))).not.toEqual([])
  })
})

describe('a follow-up turn of a react session', () => {
  it('starts with the first turn’s answer and what its search found, and may cite the first turn’s source', async () => {
    const search = mockSearch({
      results: {
        'Maurice Koechlin birthplace': [
          { title: 'Maurice Koechlin', url: 'https://example.org/koechlin', snippet: 'Koechlin was born in Buhl, Haut-Rhin, in 1856.' },
        ],
      },
    })
    const store = memorySessions()
    const first = scriptedLLM({
      replies: [{ text: '', toolCalls: [{ name: 'search', args: { query: 'Maurice Koechlin birthplace' } }] }, 'He was born in Buhl [1].'],
    })
    await createAgent({ llm: first, search, strategy: 'react' }).session('chat', { store }).answer('Where was Maurice Koechlin born?')

    // Another agent, as another process would have: only the store links the two turns.
    const second = scriptedLLM({ replies: ['Buhl is in Alsace [1].'] })
    const result = await createAgent({ llm: second, search, strategy: 'react' }).session('chat', { store }).answer('Which region is that in?')
    const prompt = second.calls[0]?.prompt ?? ''
    // The first turn's answer, its source numbered for this run...
    expect(prompt).toContain('Q: Where was Maurice Koechlin born?\nA: He was born in Buhl [1].')
    expect(prompt).toContain('[1] Maurice Koechlin — https://example.org/koechlin')
    // ...and what its search found, which the answer did not say.
    expect(prompt).toContain('Koechlin was born in Buhl, Haut-Rhin, in 1856. (https://example.org/koechlin)')
    expect(prompt).not.toContain('search "Maurice Koechlin birthplace"')
    // The follow-up cites the earlier source with the conversation's number.
    expect(result.answer).toBe('Buhl is in Alsace [1].')
    expect(result.citations).toEqual([{ index: 1, url: 'https://example.org/koechlin', title: 'Maurice Koechlin' }])
  })
})
