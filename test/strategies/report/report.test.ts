import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCheckpoints, type InterruptRequest, type ResearchEvent } from '../../../src/index.js'
import { assertEventInvariants } from '../../../src/testing/index.js'
import { collect, ofType } from '../reflect/helpers.js'
import { outlineReply, reportRig, sectionTitle } from './rig.js'

/** Each section's streamed text, from its answer-tokens, by index. */
function sectionTexts(events: readonly ResearchEvent[]): Map<number, string> {
  const texts = new Map<number, string>()
  for (const e of ofType(events, 'answer-token')) if (e.section !== undefined) texts.set(e.section, (texts.get(e.section) ?? '') + e.text)
  return texts
}

describe('report', () => {
  it('writes ten sections side by side, streams them in outline order, and numbers each source once across the report', async () => {
    // Section 0 is written last of the first four: it waits until sections 1-3 have their text.
    let release!: () => void
    const othersWritten = new Promise<void>((resolve) => (release = resolve))
    const rig = reportRig({
      sections: 10,
      writerGate: async (k) => {
        if (k === 0) await othersWritten
      },
    })
    const seen = new Set<number>()
    const originalPush = rig.written.push.bind(rig.written)
    rig.written.push = (...ks: number[]) => {
      for (const k of ks) seen.add(k)
      if ([1, 2, 3].every((k) => seen.has(k))) release()
      return originalPush(...ks)
    }
    const { events, result } = await collect(rig.agent(), 'Tell me about ten topics')

    expect(result.reason).toBe('answered')
    // Written out of order, streamed in order.
    expect(rig.written.slice(0, 4)).toEqual([1, 2, 3, 0])
    expect(ofType(events, 'section-start').map((e) => e.index)).toEqual([...Array(10).keys()])
    expect(ofType(events, 'section-start').map((e) => e.title)).toEqual([...Array(10).keys()].map(sectionTitle))
    expect(rig.peak()).toBe(4)
    // The shared source is one reference, [1] everywhere; each section's own source comes next, in outline order.
    // The first cited first: section 0's own source, the shared one, then each section's own.
    const own = (k: number) => `https://own${k}.example/`
    expect(result.citations.map((c) => c.url)).toEqual([own(0), 'https://shared.example/', ...[...Array(9).keys()].map((k) => own(k + 1))])
    const texts = sectionTexts(events)
    for (let k = 0; k < 10; k++)
      expect(texts.get(k)).toBe(`## Section ${k}\n\nTopic ${k} has its own fact [${k === 0 ? 1 : k + 2}]. Every topic has a shared fact [2].\n\n`)
    expect(result.report?.sections?.map((s) => s.title)).toEqual([...Array(10).keys()].map(sectionTitle))
    expect(result.report?.sections?.[3]?.text).toBe('Topic 3 has its own fact [5]. Every topic has a shared fact [2].')
    expect(result.report?.executiveSummary).toBe('This report covers every topic.')
    expect(result.report?.conclusions).toEqual(['All topics matter.'])
    expect(result.answer.startsWith('# The whole report\n\n## Section 0\n\n')).toBe(true)
    expect(result.answer).toContain('## References\n\n[1] Own 0. https://own0.example/\n[2] Shared. https://shared.example/\n[3] Own 1.')
    expect(result.facts).toHaveLength(10)
    expect(ofType(events, 'outline')).toHaveLength(1)
  })

  it('keeps every prompt within contextTokens, with the reply it asks for', async () => {
    const rig = reportRig({ sections: 10 })
    await collect(rig.agent({ report: { contextTokens: 2000, sectionWords: 400 } }), 'Tell me about ten topics')
    const requests = [...rig.planner.calls, ...rig.extractor.calls, ...rig.finalizer.calls]
    expect(requests.length).toBe(1 + 10 + 10 + 2)
    for (const req of requests) {
      const tokens = Math.ceil(((req.system ?? '').length + (req.prompt ?? '').length) / 4) + (req.maxTokens ?? 0)
      expect(tokens).toBeLessThanOrEqual(2000 + 1)
    }
  })

  it('streams in outline order whatever order the sections finish in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.nat({ max: 30 }), { minLength: 8, maxLength: 8 }), async (sections, ticks) => {
        const rig = reportRig({
          sections,
          writerGate: async (k) => {
            for (let i = 0; i < ticks[k]!; i++) await Promise.resolve()
          },
        })
        const { events, result } = await collect(rig.agent(), 'Tell me about the topics')
        expect(ofType(events, 'section-start').map((e) => e.index)).toEqual([...Array(sections).keys()])
        expect(new Set(result.citations.map((c) => c.url)).size).toBe(result.citations.length)
        expect(result.citations.map((c) => c.url).slice(0, 2)).toEqual(['https://own0.example/', 'https://shared.example/'])
        expect(result.citations).toHaveLength(sections + 1)
        expect(rig.peak()).toBeLessThanOrEqual(4)
      }),
      { numRuns: 20 },
    )
  })

  it('pauses at the outline, and goes on with the outline the caller edited', async () => {
    const checkpoints = memoryCheckpoints()
    const rig = reportRig({ sections: 3 })
    const agent = rig.agent()
    const paused = await collect(agent, 'Tell me about three topics', { checkpoints, review: { plan: true } })
    expect(paused.result.reason).toBe('paused')
    expect(paused.result.request).toMatchObject({ kind: 'outline', outline: { title: 'The whole report' } })
    expect(rig.finalizer.calls).toHaveLength(0)
    const runId = paused.events[0]!.runId

    const outline = {
      title: 'Two topics',
      sections: [
        { title: 'Section 2', goal: 'topic 2 only', questions: ['topic 2'] },
        { title: 'Section 0', goal: 'then 0', questions: ['topic 0'] },
      ],
    }
    const resumed = agent.resume(runId, { checkpoints, decision: { action: 'edit', outline } })
    const events: ResearchEvent[] = []
    for await (const e of resumed) events.push(e)
    assertEventInvariants(events)
    const result = await resumed.result
    expect(ofType(events, 'outline')[0]?.outline.title).toBe('Two topics')
    expect(ofType(events, 'section-start').map((e) => e.title)).toEqual(['Section 2', 'Section 0'])
    expect(result.report?.sections?.map((s) => s.title)).toEqual(['Section 2', 'Section 0'])
    expect(result.answer.startsWith('# Two topics\n\n')).toBe(true)
  })

  it('rejecting the outline writes nothing; an edit without a section is refused', async () => {
    const checkpoints = memoryCheckpoints()
    const rig = reportRig({ sections: 2 })
    const agent = rig.agent()
    const paused = await collect(agent, 'Tell me about two topics', { checkpoints, review: { plan: true } })
    const runId = paused.events[0]!.runId
    await expect(agent.resume(runId, { checkpoints, decision: { action: 'edit', queries: ['x'] } }).result).rejects.toThrow(/edited with `outline`/)
    const rejected = agent.resume(runId, { checkpoints, decision: { action: 'reject', reason: 'too broad' } })
    const events: ResearchEvent[] = []
    for await (const e of rejected) events.push(e)
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('plan-rejected')
    expect(rig.finalizer.calls).toHaveLength(0)
  })

  it('decide answers the outline in process: edit writes the edited outline, reject writes nothing, pause pauses (resumable)', async () => {
    const asked: InterruptRequest[] = []
    const rig = reportRig({ sections: 3 })
    const outline = { title: 'One topic', sections: [{ title: 'Section 1', goal: 'topic 1 only', questions: ['topic 1'] }] }
    const { result } = await collect(rig.agent(), 'Tell me about three topics', {
      review: { plan: true },
      decide: (request) => {
        asked.push(request)
        return { action: 'edit', outline }
      },
    })
    expect(asked).toEqual([expect.objectContaining({ kind: 'outline', outline: expect.objectContaining({ title: 'The whole report' }) })])
    expect(result.report?.sections?.map((s) => s.title)).toEqual(['Section 1'])

    const rejecting = reportRig({ sections: 2 })
    const rejected = await collect(rejecting.agent(), 'Tell me about two topics', {
      review: { plan: true },
      decide: () => ({ action: 'reject', reason: 'too broad' }),
    })
    expect(rejected.result.reason).toBe('answered')
    expect(ofType(rejected.events, 'warning')).toEqual([expect.objectContaining({ code: 'plan-rejected', message: expect.stringContaining('too broad') })])
    expect(rejecting.finalizer.calls).toHaveLength(0)

    const checkpoints = memoryCheckpoints()
    const pausing = reportRig({ sections: 2 })
    const paused = await collect(pausing.agent(), 'Tell me about two topics', { checkpoints, review: { plan: true }, decide: () => ({ action: 'pause' }) })
    expect(paused.result).toMatchObject({ reason: 'paused', request: { kind: 'outline' } })
    expect(pausing.finalizer.calls).toHaveLength(0)
    const resumed = await pausing.agent().resume(paused.events[0]!.runId, { checkpoints, decision: { action: 'approve' } }).result
    expect(resumed.report?.sections).toHaveLength(2)
  })

  it('a report resumed after a crash does not write its finished sections again', async () => {
    const checkpoints = memoryCheckpoints()
    // The run stops as section 4's writer is asked (a process killed there): a new run resumes it.
    const controller = new AbortController()
    const first = reportRig({
      sections: 6,
      onWriter: (k) => k === 4 && controller.abort(),
      writerGate: (k) => (k === 4 ? new Promise(() => {}) : Promise.resolve()),
    })
    const run = first.agent({ report: { concurrency: 2 } }).research('Tell me about six topics', { checkpoints, signal: controller.signal })
    const events: ResearchEvent[] = []
    for await (const e of run) events.push(e)
    const crashedResult = await run.result
    expect(crashedResult.reason).toBe('aborted')
    const before = [...first.written]
    expect(before.length).toBeGreaterThan(0)
    expect(before).not.toContain(4)

    const second = reportRig({ sections: 6 })
    const resumed = second.agent({ report: { concurrency: 2 } }).resume(events[0]!.runId, { checkpoints })
    const after: ResearchEvent[] = []
    for await (const e of resumed) after.push(e)
    assertEventInvariants(after)
    const result = await resumed.result
    expect(result.reason).toBe('answered')
    expect(second.written.filter((k) => before.includes(k))).toEqual([])
    expect([...before, ...second.written].sort()).toEqual([0, 1, 2, 3, 4, 5])
    // The finished sections are streamed again from the checkpoint, numbered as before.
    expect(result.report?.sections?.map((s) => s.text)).toEqual(
      [...Array(6).keys()].map((k) => `Topic ${k} has its own fact [${k === 0 ? 1 : k + 2}]. Every topic has a shared fact [2].`),
    )
    expect(second.planner.calls).toHaveLength(0)
  })

  it("checks each section's claims as it ends (verify)", async () => {
    const rig = reportRig({ sections: 2 })
    const { events, result } = await collect(rig.agent({ verify: true }), 'Tell me about two topics')
    const claims = ofType(events, 'claim')
    expect(claims.length).toBe(4)
    expect(claims.every((c) => c.verdict === 'supported')).toBe(true)
    // Section 0's claims come before section 1 starts.
    const firstEnd = events.findIndex((e) => e.type === 'section-end')
    expect(events.findIndex((e) => e.type === 'claim' && e.index === 1)).toBeLessThan(firstEnd)
    expect(result.supportRate).toBe(1)
  })

  it('an outline the planner did not write is the question as one section', async () => {
    const rig = reportRig({ sections: 3, outline: 'no idea' })
    const { events, result } = await collect(rig.agent(), 'topic 1')
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('unparseable-output')
    expect(result.report?.sections?.map((s) => s.title)).toEqual(['topic 1'])
    expect(outlineReply(1)).toContain('Section 0')
  })
})
