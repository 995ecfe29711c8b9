/**
 * The "done when": a session's second turn plans with what its first turn found, for
 * every built-in strategy (each reads the conversation in its own way: scratchpad and
 * graph-reader through the knowledge, reflect through the prior answers, deep through both).
 */
import { describe, expect, it } from 'vitest'
import { memorySessions } from '../../src/index.js'
import * as deepPrompts from '../../src/strategies/deep/prompts.js'
import * as graphPrompts from '../../src/strategies/graph-reader/prompts.js'
import * as reflectPrompts from '../../src/strategies/reflect/prompts.js'
import * as scratchpadPrompts from '../../src/strategies/scratchpad/prompts.js'
import { STRATEGIES, world, type StrategyName } from '../checkpoints/world.js'

/** The system prompts of each strategy's planning calls. */
const PLANNERS: Record<StrategyName, readonly string[]> = {
  scratchpad: [scratchpadPrompts.plannerSystem],
  'graph-reader': [graphPrompts.plannerSystem],
  reflect: [reflectPrompts.queriesSystem, reflectPrompts.reflectSystem],
  deep: [deepPrompts.planSystem],
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
    const plans = second.llm.calls.filter((req) => PLANNERS[strategy].includes(req.system ?? '')).map((req) => req.prompt)
    expect(plans.length).toBeGreaterThan(0)
    expect(findings.filter((finding) => plans.some((prompt) => prompt.includes(finding.trim())))).not.toEqual([])
  })
})
