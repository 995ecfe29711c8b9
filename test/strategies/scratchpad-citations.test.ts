import { expect, it } from 'vitest'
import { createAgent } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

const results = [
  { title: 'Rayleigh', url: 'https://physics.example/rayleigh', snippet: 'Short wavelengths scatter more.' },
  { title: 'Sunsets', url: 'https://physics.example/sunset', snippet: 'Longer paths redden the light.' },
]

it('scratchpad lists the sources its knowledge came from, numbered after the conversation so far', async () => {
  const llm = scriptedLLM({
    replies: (req, n) =>
      req.system?.startsWith('You are the planner')
        ? n === 0
          ? 'Action: Search\nQuery: sky'
          : 'Action: Answer'
        : n === 1
          ? 'Blue light scatters most.'
          : 'Blue.',
  })
  const agent = createAgent({ llm, search: mockSearch({ results: () => results }) })
  const previous = [{ index: 1, url: 'https://earlier.example/' }]
  const result = await agent.research('Why is the sky blue?', { citations: previous }).result
  expect(result.citations).toEqual([
    { index: 2, url: 'https://physics.example/rayleigh', title: 'Rayleigh' },
    { index: 3, url: 'https://physics.example/sunset', title: 'Sunsets' },
  ])
})

it('a search that taught nothing adds no source', async () => {
  const llm = scriptedLLM({
    replies: (req, n) => (req.system?.startsWith('You are the planner') ? (n === 0 ? 'Action: Search\nQuery: sky' : 'Action: Answer') : ''),
  })
  const result = await createAgent({ llm, search: mockSearch({ results: () => results }) }).research('Why is the sky blue?').result
  expect(result.citations).toEqual([])
})
