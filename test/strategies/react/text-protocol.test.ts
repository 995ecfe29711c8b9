import fc from 'fast-check'
import { expect, it } from 'vitest'
import { coerceTextArgs, hasProtocolLabel, parseTextStep, untilObservation } from '../../../src/strategies/react/text-protocol.js'

it('an action with a JSON input; an invented observation after it is cut off', () => {
  expect(parseTextStep('Thought: I need data.\nAction: search\nAction Input: {"query": "Zürich"}\nObservation: made up')).toEqual({
    kind: 'action',
    thought: 'I need data.',
    name: 'search',
    args: '{"query": "Zürich"}',
  })
})

it('markdown labels, a fenced input, and prose around the JSON', () => {
  expect(parseTextStep('**Thought:** go\n**Action:** `read_page`\n**Action Input:** ```json\nsure: {"url":"https://a.example"}\n```')).toMatchObject({
    kind: 'action',
    name: 'read_page',
    args: '{"url":"https://a.example"}',
  })
})

it('a final answer runs to the end, even over lines that look like labels', () => {
  expect(parseTextStep('Thought: done\nFinal Answer: Bern [1].\nAction: none')).toEqual({ kind: 'answer', thought: 'done', answer: 'Bern [1].\nAction: none' })
})

it('whichever of Action and Final Answer comes first wins', () => {
  expect(parseTextStep('Action: search\nAction Input: x\nFinal Answer: y')).toMatchObject({ kind: 'action', name: 'search' })
})

it('prose without labels is unreadable, never an exception', () => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      const step = parseTextStep(text)
      expect(['action', 'answer', 'unreadable']).toContain(step.kind)
    }),
  )
  expect(parseTextStep('I think the answer is Bern.')).toEqual({ kind: 'unreadable', text: 'I think the answer is Bern.' })
})

it('a bare input becomes the single string property of the tool', () => {
  const search = { name: 'search', description: 'd', parameters: { type: 'object', properties: { query: { type: 'string' } } } }
  expect(JSON.parse(coerceTextArgs('"battery makers"', search))).toEqual({ query: 'battery makers' })
  expect(coerceTextArgs('{"query":"x"}', search)).toBe('{"query":"x"}')
})

it("the model's turn is cut before an Observation it invents, and only there", () => {
  expect(untilObservation('Thought: go\nAction: search\nAction Input: {"query":"x"}\n**Observation:** made up\nThought: more')).toBe(
    'Thought: go\nAction: search\nAction Input: {"query":"x"}',
  )
  expect(untilObservation('Thought: nothing to cut\nAction: search\nAction Input: the observation: of birds')).toBe(
    'Thought: nothing to cut\nAction: search\nAction Input: the observation: of birds',
  )
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('Thought: a', 'Action: search', 'Action Input: {}', 'Observation: b', 'observation: c', 'text', ''), { maxLength: 8 }),
      (lines) => {
        const text = lines.join('\n')
        const cut = untilObservation(text)
        expect(text.startsWith(cut)).toBe(true)
        const step = parseTextStep(text)
        if (step.kind !== 'action') return
        // The action reads the same from the cut turn, and nothing after its input is an Observation.
        expect(parseTextStep(cut)).toMatchObject({ kind: 'action', name: step.name, args: step.args })
        expect(cut.slice(Math.max(cut.search(/^Action:/m), cut.lastIndexOf('Action Input:')))).not.toMatch(/^observation:/im)
      },
    ),
  )
})

it('protocol labels anywhere at a line start mark protocol text; prose that only mentions them does not', () => {
  expect(hasProtocolLabel('Thought: not sure yet.')).toBe(true)
  expect(hasProtocolLabel('Some words.\n  **Action**: search')).toBe(true)
  expect(hasProtocolLabel('The tower was designed by the firm of Gustave Eiffel [1].')).toBe(false)
  expect(hasProtocolLabel('His first thought: build it tall.')).toBe(false)
  // The shared pattern keeps no state between calls.
  expect([hasProtocolLabel('Thought: a'), hasProtocolLabel('Thought: a')]).toEqual([true, true])
})
