import { SpanKind, SpanStatusCode, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { createAgent, type EventOf, type ResearchEvent } from '../../src/index.js'
import { citedAnswer, type Strategy } from '../../src/strategy.js'
import { traceRun } from '../../src/otel/index.js'
import { mockFetch, mockSearch, scriptedLLM, searchFailure } from '../../src/testing/index.js'
import { drain, memoryTracing, ms, only, recorded } from './helpers.js'

const QUESTION = 'Why is the sky blue?'

/** A strategy that touches every traced path: a model call, a good and a failing search, a page, a warning, a streamed answer. */
const probe: Strategy = {
  name: 'probe',
  async *run(_question, ctx) {
    yield* ctx.complete('planner', { prompt: 'plan the research' })
    const found = yield* ctx.runSearch('sky colour')
    yield* ctx.runSearch('broken query')
    yield* ctx.readPage('https://user:secret@a.example/sky', { queryId: found.queryId })
    yield ctx.warning('planner output unparseable', 'parse')
    const text = yield* ctx.streamAnswer('finalizer', { prompt: 'answer' })
    yield { type: 'answer', text, citations: [] }
    return { reason: 'answered' }
  },
}

function probeAgent(strategy: Strategy = probe) {
  const llm = scriptedLLM({ model: 'tiny-1b', replies: ['search the sky', 'Rayleigh scattering.'], cost: 0.001 })
  const search = mockSearch({
    results: { 'sky colour': [{ title: 'Sky', url: 'https://a.example/sky', snippet: 'Rayleigh' }] },
    fail: (query) => (query === 'broken query' ? searchFailure() : undefined),
  })
  const fetch = mockFetch({ pages: { 'https://user:secret@a.example/sky': 'The sky scatters blue light.' } })
  return { agent: createAgent({ llm, search, fetch, strategy }), search }
}

describe('traceRun on a real run', () => {
  it('passes every event through unchanged, in order', async () => {
    const { provider } = memoryTracing()
    const { stream, seen } = recorded(probeAgent().agent.research(QUESTION))
    const out = await drain(traceRun(stream, { tracerProvider: provider }))
    expect(out.length).toBeGreaterThan(5)
    expect(out).toHaveLength(seen.length)
    out.forEach((event, i) => {
      expect(event).toBe(seen[i])
    })
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse(JSON.stringify(seen)))
  })

  it('makes one invoke_agent root with the run attributes and every other span its child', async () => {
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    const end = events.at(-1) as EventOf<'run-end'>
    const start = events[0] as EventOf<'run-start'>

    const root = only(spans(), 'invoke_agent laconic')
    expect(root.kind).toBe(SpanKind.INTERNAL)
    expect(root.parentSpanContext).toBeUndefined()
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'laconic',
      'laconic.run_id': start.runId,
      'laconic.strategy': 'probe',
      'laconic.question.length': QUESTION.length,
      'laconic.reason': 'answered',
      'laconic.cost.usd': end.cost.total,
      'gen_ai.usage.input_tokens': end.cost.inputTokens,
      'gen_ai.usage.output_tokens': end.cost.outputTokens,
      'laconic.llm_calls': 2,
      'laconic.searches': 2,
      'laconic.fetches': 1,
      'laconic.embedding_tokens': 0,
    })
    expect(end.cost.total).toBeGreaterThan(0)
    expect(root.status.code).toBe(SpanStatusCode.UNSET)
    expect(ms(root.startTime)).toBe(start.time)
    expect(ms(root.endTime)).toBe(end.time)

    const children = spans().filter((s) => s !== root)
    expect(children.map((s) => s.name).sort()).toEqual(
      ['chat tiny-1b', 'chat tiny-1b', 'execute_tool fetch', 'execute_tool search', 'execute_tool search'].sort(),
    )
    for (const child of children) {
      expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId)
      expect(child.spanContext().traceId).toBe(root.spanContext().traceId)
      expect(ms(child.startTime)).toBeLessThanOrEqual(ms(child.endTime))
      expect(ms(child.startTime)).toBeGreaterThanOrEqual(ms(root.startTime))
      expect(ms(child.endTime)).toBeLessThanOrEqual(ms(root.endTime))
    }
  })

  it('never records the question or queries unless asked to', async () => {
    const { provider, spans } = memoryTracing()
    await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    const values = spans().flatMap((s) => Object.values(s.attributes))
    expect(values).not.toContain(QUESTION)
    expect(values).not.toContain('sky colour')

    const opted = memoryTracing()
    await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: opted.provider, captureContent: true }))
    expect(only(opted.spans(), 'invoke_agent laconic').attributes['laconic.question']).toBe(QUESTION)
    const queries = opted
      .spans()
      .filter((s) => s.name === 'execute_tool search')
      .map((s) => s.attributes['laconic.query'])
    expect(queries.sort()).toEqual(['broken query', 'sky colour'])
  })

  it('maps each llm-call to a chat span ending at the event and starting latencyMs before it', async () => {
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    const calls = events.filter((e): e is EventOf<'llm-call'> => e.type === 'llm-call')
    const chats = spans()
      .filter((s) => s.name === 'chat tiny-1b')
      .sort((a, b) => ms(a.endTime) - ms(b.endTime))
    expect(chats).toHaveLength(calls.length)
    chats.forEach((chat, i) => {
      const call = calls[i]!
      expect(chat.kind).toBe(SpanKind.CLIENT)
      expect(chat.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'tiny-1b',
        'gen_ai.usage.input_tokens': call.inputTokens,
        'gen_ai.usage.output_tokens': call.outputTokens,
        'laconic.role': call.role,
      })
      expect(ms(chat.endTime)).toBe(call.time)
      expect(ms(chat.startTime)).toBe(call.time - call.latencyMs)
    })
    expect(chats.map((c) => c.attributes['laconic.role'])).toEqual(['planner', 'finalizer'])
  })

  it('spans each search from its query to its result, and marks a failed one as an error', async () => {
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    const queries = events.filter((e): e is EventOf<'query'> => e.type === 'query')
    const result = events.find((e): e is EventOf<'result'> => e.type === 'result')!
    const failure = events.find((e): e is EventOf<'result'> => e.type === 'result' && e.error !== undefined)!
    const searchSpans = spans().filter((s) => s.name === 'execute_tool search')
    const byQuery = (queryId: string) => searchSpans.find((s) => s.attributes['laconic.query_id'] === queryId)!

    const good = byQuery(queries[0]!.queryId)
    expect(good.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'laconic.search.results': 1,
    })
    expect(good.status.code).toBe(SpanStatusCode.UNSET)
    expect(ms(good.startTime)).toBe(queries[0]!.time)
    expect(ms(good.endTime)).toBe(result.time)

    const bad = byQuery(queries[1]!.queryId)
    expect(failure.queryId).toBe(queries[1]!.queryId)
    expect(bad.status).toEqual({ code: SpanStatusCode.ERROR, message: failure.error!.message })
    expect(bad.attributes['error.type']).toBe('http')
    expect(bad.attributes['laconic.search.results']).toBeUndefined()
    expect(ms(bad.startTime)).toBe(queries[1]!.time)
    expect(ms(bad.endTime)).toBe(failure.time)
    expect(good.attributes['laconic.search.sources_filtered']).toBeUndefined()
  })

  it("counts on a search's span the results the run's sources rules removed", async () => {
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent().agent.research(QUESTION, { sources: { deny: ['a.example'] } }), { tracerProvider: provider }))
    const query = events.find((e): e is EventOf<'query'> => e.type === 'query')!
    expect(events.find((e) => e.type === 'result')).toMatchObject({ results: [], sourcesFiltered: 1 })
    const span = spans().find((s) => s.name === 'execute_tool search' && s.attributes['laconic.query_id'] === query.queryId)!
    expect(span.attributes).toMatchObject({ 'laconic.search.results': 0, 'laconic.search.sources_filtered': 1 })
  })

  it('records page reads without URL credentials, and warnings as events on the root', async () => {
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    const page = events.find((e): e is EventOf<'page'> => e.type === 'page')!
    const fetchSpan = only(spans(), 'execute_tool fetch')
    expect(fetchSpan.attributes).toMatchObject({
      'gen_ai.tool.name': 'fetch',
      'url.full': 'https://a.example/sky',
      'laconic.page.chars': 'The sky scatters blue light.'.length,
      'laconic.query_id': page.queryId,
    })
    expect(ms(fetchSpan.startTime)).toBe(page.time)

    const warnings = events.filter((e): e is EventOf<'warning'> => e.type === 'warning')
    const root = only(spans(), 'invoke_agent laconic')
    expect(root.events.map((e) => e.name)).toEqual(warnings.map(() => 'laconic.warning'))
    expect(root.events.map((e) => e.attributes?.['laconic.warning.code'])).toEqual(warnings.map((w) => w.code))
    expect(root.events.map((e) => ms(e.time))).toEqual(warnings.map((w) => w.time))
    expect(warnings.map((w) => w.code)).toContain('parse')
  })

  it('with verify: a laconic.claim event per checked sentence on the root, the counts by verdict and the support rate as its attributes; text only when content is captured', async () => {
    const source = 'Rayleigh scattering makes the sky blue. It was explained in 1871.'
    const cited: Strategy = {
      name: 'cited',
      async *run(_q, ctx) {
        yield* citedAnswer(ctx, { from: { request: { prompt: 'answer' } }, source: () => ({ url: 'https://a.example/sky', text: source }), empty: {} })
      },
    }
    for (const captureContent of [false, true]) {
      const llm = scriptedLLM({ replies: ['Rayleigh scattering makes the sky blue [1]. It was explained in 1899 [1]. Nobody disputes this today at all.'] })
      const { provider, spans } = memoryTracing()
      await drain(traceRun(createAgent({ llm, strategy: cited, verify: true }).research(QUESTION), { tracerProvider: provider, captureContent }))
      const root = only(spans(), 'invoke_agent laconic')
      expect(root.attributes).toMatchObject({
        'laconic.claims': 3,
        'laconic.claims.supported': 1,
        'laconic.claims.unsupported': 1,
        'laconic.claims.uncited': 1,
        'laconic.support_rate': 0.5,
      })
      const claims = root.events.filter((e) => e.name === 'laconic.claim')
      expect(claims.map((e) => e.attributes?.['laconic.claim.verdict'])).toEqual(['supported', 'unsupported', 'uncited'])
      expect(claims.some((e) => e.attributes?.['laconic.claim.text'] !== undefined)).toBe(captureContent)
    }
  })

  it('gives the root span an error status when the strategy fails', async () => {
    const failing: Strategy = {
      name: 'failing',
      async *run(_question, ctx) {
        yield* ctx.runSearch('sky colour')
        throw new Error('strategy bug')
      },
    }
    const { provider, spans } = memoryTracing()
    const events = await drain(traceRun(probeAgent(failing).agent.research(QUESTION), { tracerProvider: provider }))
    const end = events.at(-1) as EventOf<'run-end'>
    expect(end.reason).toBe('error')
    const root = only(spans(), 'invoke_agent laconic')
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'strategy bug' })
    expect(root.attributes['error.type']).toBe(end.error!.code)
    expect(root.attributes['laconic.reason']).toBe('error')
    expect(only(spans(), 'execute_tool search').status.code).toBe(SpanStatusCode.UNSET)
  })
})

describe('traceRun options and edges', () => {
  it('uses a given tracer and agent name, under a given parent context', async () => {
    const { provider, spans } = memoryTracing()
    const tracer = provider.getTracer('host-app')
    const request = tracer.startSpan('GET /research')
    const parent = trace.setSpan(ROOT_CONTEXT, request)
    await drain(traceRun(probeAgent().agent.research(QUESTION), { tracer, agentName: 'sky-researcher', context: parent }))
    request.end()
    const root = only(spans(), 'invoke_agent sky-researcher')
    expect(root.attributes['gen_ai.agent.name']).toBe('sky-researcher')
    expect(root.instrumentationScope.name).toBe('host-app')
    expect(root.parentSpanContext?.spanId).toBe(request.spanContext().spanId)
    expect(root.spanContext().traceId).toBe(request.spanContext().traceId)
  })

  it('takes its tracer from the provider under the scope "laconic"', async () => {
    const { provider, spans } = memoryTracing()
    await drain(traceRun(probeAgent().agent.research(QUESTION), { tracerProvider: provider }))
    expect(new Set(spans().map((s) => s.instrumentationScope.name))).toEqual(new Set(['laconic']))
  })

  it('ends every open span, marked incomplete, when the consumer stops early, and stops the run', async () => {
    const { provider, spans } = memoryTracing()
    const { agent, search } = probeAgent()
    for await (const event of traceRun(agent.research(QUESTION), { tracerProvider: provider })) {
      if (event.type === 'query') break
    }
    const root = only(spans(), 'invoke_agent laconic')
    expect(root.attributes['laconic.incomplete']).toBe(true)
    expect(root.attributes['laconic.reason']).toBeUndefined()
    const open = only(spans(), 'execute_tool search')
    expect(ms(open.endTime)).toBe(ms(root.endTime))
    expect(search.signals[0]?.aborted).toBe(true)
  })

  it('records a source that throws as an exception on the root, and rethrows', async () => {
    const { provider, spans } = memoryTracing()
    const start: ResearchEvent = { type: 'run-start', runId: 'r1', seq: 0, time: 1_700_000_000_000, question: 'q', strategy: 's' }
    async function* broken(): AsyncGenerator<ResearchEvent> {
      yield start
      throw new Error('connection reset')
    }
    await expect(drain(traceRun(broken(), { tracerProvider: provider }))).rejects.toThrow('connection reset')
    const root = only(spans(), 'invoke_agent laconic')
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'connection reset' })
    expect(root.events.map((e) => e.name)).toEqual(['exception'])
    expect(ms(root.endTime)).toBe(start.time)
  })

  it('traces each run of a stream that carries several, in its own trace', async () => {
    const { provider, spans } = memoryTracing()
    async function* twoRuns(): AsyncGenerator<ResearchEvent> {
      yield* probeAgent().agent.research(QUESTION)
      yield* probeAgent().agent.research('And at sunset?')
    }
    await drain(traceRun(twoRuns(), { tracerProvider: provider }))
    const roots = spans().filter((s) => s.name === 'invoke_agent laconic')
    expect(roots.map((r) => r.attributes['laconic.question.length'])).toEqual([QUESTION.length, 'And at sunset?'.length])
    expect(roots[0]!.spanContext().traceId).not.toBe(roots[1]!.spanContext().traceId)
    for (const root of roots) {
      const children = spans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId)
      expect(children).toHaveLength(5)
    }
  })

  it('ignores events of a run whose run-start it never saw', async () => {
    const { provider, spans } = memoryTracing()
    const call: ResearchEvent = {
      type: 'llm-call',
      runId: 'r9',
      seq: 4,
      time: 1_700_000_000_000,
      role: 'planner',
      latencyMs: 3,
      inputTokens: 1,
      outputTokens: 1,
    }
    expect(
      await drain(
        traceRun(
          (async function* () {
            yield call
          })(),
          { tracerProvider: provider },
        ),
      ),
    ).toEqual([call])
    expect(spans()).toEqual([])
  })
})
