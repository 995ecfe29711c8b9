import { expect, it } from 'vitest'
import type { ResearchResult } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { prettyRenderer } from '../../src/cli/render/index.js'
import { resultMarkdown } from '../../src/cli/render/result-markdown.js'

const report = {
  title: 'Why the sky is blue',
  executiveSummary: 'Air scatters blue light most [1].',
  mainFindings: ['Rayleigh scattering favours short wavelengths [1].'],
  conclusions: ['The sky is blue because of scattering.'],
  limitations: ['One source only.'],
  recommendations: [],
  sourcesSummary: 'A physics primer.',
}
const result: ResearchResult = {
  answer: 'Air scatters blue light most [1].',
  citations: [{ index: 1, url: 'https://physics.example/rayleigh', title: 'Rayleigh' }],
  facts: [],
  knowledge: '',
  cost: zeroCost(),
  reason: 'answered',
  report,
}

const sink = () => {
  let text = ''
  return {
    write: (t: string) => (text += t),
    get text() {
      return text
    },
  }
}

it("pretty mode prints deep's report after the streamed summary, then the sources", () => {
  const stdout = sink()
  const renderer = prettyRenderer({ stdout, stderr: sink(), now: () => 0 })
  renderer.event({ runId: 'r', seq: 0, time: 0, type: 'answer-token', text: result.answer })
  renderer.event({ runId: 'r', seq: 1, time: 0, type: 'answer', text: result.answer, citations: result.citations, report })
  renderer.end(result, { interrupted: false })
  expect(stdout.text).toBe(
    'Air scatters blue light most [1].\n' +
      '\n## Main findings\n\n- Rayleigh scattering favours short wavelengths [1].\n' +
      '\n## Conclusions\n\n- The sky is blue because of scattering.\n' +
      '\n## Limitations\n\n- One source only.\n' +
      '\n## About the sources\n\nA physics primer.\n' +
      '\nSources:\n[1] Rayleigh — https://physics.example/rayleigh\n',
  )
})

it('--output markdown: the report under its title, the question, and numbered sources', () => {
  const markdown = resultMarkdown('Why is the sky blue?', result)
  expect(markdown.startsWith('# Why the sky is blue\n\n_Question: Why is the sky blue?_\n\nAir scatters blue light most [1].\n')).toBe(true)
  expect(markdown).toContain('\n## Limitations\n\n- One source only.\n')
  expect(markdown.endsWith('\n## Sources\n\n1. Rayleigh — <https://physics.example/rayleigh>\n')).toBe(true)
})
