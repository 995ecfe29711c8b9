/**
 * A scripted report: an outline of `sections` sections, section k searching `topic k`, whose
 * results are a source of its own and one every section shares. Each call's reply is written by
 * role; `writerGate(k)` may hold section k's text until the test lets it go.
 */
import { createAgent, type AgentOptions, type LLMRequest, type SearchResult } from '../../../src/index.js'
import { mockSearch, scriptedLLM } from '../../../src/testing/index.js'

export const sectionTitle = (k: number) => `Section ${k}`
export const shared: SearchResult = { title: 'Shared', url: 'https://shared.example/', snippet: 'Every topic has a shared fact.' }
export const own = (k: number): SearchResult => ({ title: `Own ${k}`, url: `https://own${k}.example/`, snippet: `Topic ${k} has its own fact.` })

export const outlineReply = (sections: number) =>
  JSON.stringify({
    title: 'The whole report',
    sections: Array.from({ length: sections }, (_, k) => ({ title: sectionTitle(k), goal: `explain topic ${k}`, questions: [`topic ${k}`] })),
  })

/** The section a writer or extractor prompt is for. */
export const sectionOf = (req: LLMRequest) => Number(/^Section: Section (\d+)$/m.exec(req.prompt ?? '')?.[1] ?? -1)

export interface RigOptions {
  sections: number
  /** Held until it settles: section k's text. */
  writerGate?: (k: number) => Promise<void>
  /** Section k's writer fails. */
  failWriter?: (k: number) => boolean
  /** Called as section k's writer is asked (before its gate): e.g. to abort the run there. */
  onWriter?: (k: number) => void
  outline?: string
}

export function reportRig(options: RigOptions) {
  const written: number[] = []
  let open = 0
  let peak = 0
  const started = new Set<number>()
  const search = mockSearch({
    results: (query) => {
      const k = Number(/topic (\d+)/.exec(query)?.[1] ?? -1)
      if (k >= 0 && !started.has(k)) {
        started.add(k)
        peak = Math.max(peak, ++open)
      }
      return k >= 0 ? [shared, own(k)] : [shared]
    },
  })
  const planner = scriptedLLM({ replies: () => options.outline ?? outlineReply(options.sections) })
  const extractor = scriptedLLM({
    replies: (req) => JSON.stringify({ facts: [{ text: `Topic ${sectionOf(req)} has its own fact.`, sources: [2] }] }),
  })
  const finalizer = scriptedLLM({
    replies: async (req) => {
      const k = sectionOf(req)
      if (k < 0) return req.system?.includes('introduction') ? 'This report covers every topic.' : 'All topics matter.'
      options.onWriter?.(k)
      await options.writerGate?.(k)
      if (options.failWriter?.(k)) return { text: '', error: new Error(`writer ${k} crashed`) }
      written.push(k)
      open--
      return `Topic ${k} has its own fact [2]. Every topic has a shared fact [1].`
    },
  })
  const agent = (extra: AgentOptions = {}) =>
    createAgent({
      models: { planner, extractor, finalizer },
      search,
      strategy: 'report',
      ...extra,
      report: { sections: options.sections, concurrency: 4, ...extra.report },
    })
  return { agent, search, planner, extractor, finalizer, written, peak: () => peak }
}
