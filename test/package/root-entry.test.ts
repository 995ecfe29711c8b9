/** The root entry is a promise to users: it holds what an agent's user needs and nothing else. */
import { expect, expectTypeOf, test } from 'vitest'
import * as root from '../../src/index.js'
import type { EventOf, ResearchEvent, ResearchRun } from '../../src/index.js'
import * as kit from '../../src/strategy.js'

test('the root entry exports only the agent, its registry, fromGenerate and the error classes', () => {
  expect(Object.keys(root).sort()).toEqual(
    ['LaconicError', 'ProviderError', 'createAgent', 'fromGenerate', 'registerStrategy', 'strategyNames'].sort(),
  )
})

test('strategy authors find their toolkit on laconic-research/strategy', () => {
  for (const name of ['createMerge', 'generate', 'parseLooseJson', 'CitationRegistry', 'Notebook', 'graphReader', 'stripThink'])
    expect(typeof (kit as Record<string, unknown>)[name]).toBe('function')
})

test('the types stay reachable from the root entry', () => {
  expectTypeOf<EventOf<'run-end'>>().toMatchTypeOf<ResearchEvent>()
  expectTypeOf(root.createAgent).returns.toHaveProperty('research')
  expectTypeOf<ReturnType<ReturnType<typeof root.createAgent>['research']>>().toEqualTypeOf<ResearchRun>()
})
