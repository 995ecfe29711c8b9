/** Every count the CLI prints agrees with its number (issue 35, item 9): `1 chunk`, `1 search`, `2 chunks`. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { indexProgressLine, indexSummary } from '../../src/cli/kb.js'
import { count } from '../../src/cli/plural.js'
import { progressLine } from '../../src/cli/render/pretty.js'
import { usageLine } from '../../src/cli/render/progress-stats.js'
import type { Cost, ResearchEvent } from '../../src/index.js'

const stamp = { runId: 'r', seq: 1, time: 0 }
const cost = (calls: number, tokens: number): Cost =>
  ({ llmCalls: calls, inputTokens: tokens, outputTokens: 0, searches: 0, total: 0, llm: 0, search: 0, unpricedCalls: 0 }) as Cost

describe('counts in the CLI', () => {
  it('one is singular, any other number plural', () => {
    fc.assert(fc.property(fc.nat(), (n) => count(n, 'search', 'searches') === `${n} ${n === 1 ? 'search' : 'searches'}`))
  })

  it('laconic index and kb list', () => {
    const report = { added: 1, updated: 0, unchanged: 0, removed: 0, chunks: 1, skipped: [] }
    expect(indexSummary(report, 1000)).toBe('laconic: indexed 1 added, 0 updated, 0 unchanged, 0 removed; 1 chunk embedded in 1.0 s\n')
    expect(indexProgressLine({ documents: 1, total: 1, unchanged: 0, chunks: 1, url: 'file:///a.md' }, 1000)).toBe(
      'indexing: 1/1 file · 0 unchanged · 1 chunk · 1.0 embeddings/s',
    )
  })

  it('the run summary and the progress lines', () => {
    expect(usageLine(cost(1, 1))).toBe('1 model call · 1 token')
    expect(usageLine(cost(2, 30))).toBe('2 model calls · 30 tokens')
    expect(progressLine({ ...stamp, type: 'page', url: 'https://a.example/', chars: 1 } as ResearchEvent)).toBe('[page] https://a.example/ (1 char)')
    expect(progressLine({ ...stamp, type: 'result', queryId: 'q1', results: [], sourcesFiltered: 3 } as ResearchEvent)).toBe(
      '[result q1] 0 results (3 left out by the sources rules)',
    )
    expect(progressLine({ ...stamp, type: 'result', queryId: 'q1', results: [] } as ResearchEvent)).toBe('[result q1] 0 results')
    expect(progressLine({ ...stamp, type: 'knowledge-update', iteration: 1, knowledge: 'k' } as ResearchEvent)).toBe('[notes] iteration 1: 1 char')
  })
})
