import fc from 'fast-check'
import { expect, it } from 'vitest'
import { shownText } from '../../support/shown-text.js'
import { estimateTokens } from '../../../src/strategy.js'
import { ToolNotes } from '../../../src/strategies/react/tool-notes.js'

const system = 'You are a research agent.'

function addStep(notes: ToolNotes, i: number, chars: number): void {
  const source = notes.source(`https://example.org/${i}`, `Page ${i}`, true)
  const content = `[${source.n}] Page ${i}\n${'x'.repeat(chars)}`
  notes.steps.push({
    text: `step ${i}`,
    outcomes: [
      { call: { id: `c${i}`, name: 'read_page', args: `{"url":"https://example.org/${i}"}` }, ok: true, content, note: `- read [${source.n}]: page ${i}` },
    ],
  })
}

it('past the budget, old steps fold into notes: the request stays within budget plus the last step', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 100, max: 4000 }), fc.integer({ min: 600, max: 8000 }), (steps, chars, budget) => {
      const notes = new ToolNotes()
      for (let i = 0; i < steps; i++) addStep(notes, i, chars)
      const request = notes.request({ system, question: 'q', knowledge: '', textProtocol: false, budget })
      const tokens = estimateTokens(shownText({ system, ...request }))
      const lastStep = estimateTokens(notes.steps.at(-1)!.outcomes[0]!.content) + 200
      expect(tokens).toBeLessThanOrEqual(Math.max(budget, 0) + lastStep + estimateTokens(request.prompt))
      // The last step is always whole; every compacted step left its note (while the notes fit).
      expect(request.turns.some((t) => t.role === 'tool' && t.callId === `c${steps - 1}`)).toBe(true)
      const compacted = notes.steps.filter((s) => s.compacted).length
      if (compacted > 0) expect(request.prompt).toContain(`- read [${compacted}]`)
      // Sources keep their numbers whatever was folded.
      expect(request.prompt).toContain(`[${steps}] Page ${steps - 1}`)
    }),
  )
})

it('20 steps of 3,000-character pages fit an 8k model with the default budget', () => {
  const notes = new ToolNotes()
  const sizes: number[] = []
  for (let i = 0; i < 20; i++) {
    addStep(notes, i, 3000)
    const request = notes.request({ system, question: 'q', knowledge: '', textProtocol: false, budget: 6000 })
    sizes.push(estimateTokens(shownText({ system, ...request })))
  }
  expect(Math.max(...sizes)).toBeLessThanOrEqual(8192 - 1024)
  // Without compaction the same steps would need far more.
  expect(estimateTokens('x'.repeat(3000)) * 20).toBeGreaterThan(8192)
})
