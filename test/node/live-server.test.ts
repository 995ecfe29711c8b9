import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { get, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { localCorpus } from '../../src/adapters/index.js'
import { memoryCheckpoints } from '../../src/index.js'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { createAgent, memorySessions } from '../../src/index.js'
import { createLiveServer } from '../../src/node/index.js'
import { fromSSE } from '../../src/streams/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { world } from '../checkpoints/world.js'

/** What the live server needs of an agent. */
type LiveAgent = Parameters<typeof createLiveServer>[0]['agent']

type LiveServerOptions = NonNullable<Parameters<typeof createLiveServer>[0]>

const RUN_ID = 'run-1'
const TOKEN_HEADER = 'x-laconic-token'
const MAX_QUESTION_CHARS = 2000

function eventsFor(question: string): ResearchEvent[] {
  const stamp = (seq: number) => ({ runId: RUN_ID, seq, time: 1_700_000_000_000 + seq })
  return [
    { ...stamp(0), type: 'run-start', question, strategy: 'fake' },
    { ...stamp(1), type: 'plan', text: `look up: ${question}` },
    { ...stamp(2), type: 'answer-token', text: 'Blue.' },
    { ...stamp(3), type: 'answer', text: 'Blue.', citations: [] },
    { ...stamp(4), type: 'run-end', reason: 'answered', answer: 'Blue.', cost: zeroCost() },
  ]
}

/** An agent that records every question and signal, and replays a fixed run for each. */
function fakeAgent(): LiveAgent & { questions: string[]; signals: AbortSignal[] } {
  const questions: string[] = []
  const signals: AbortSignal[] = []
  return {
    questions,
    signals,
    research(question, { signal }) {
      questions.push(question)
      signals.push(signal)
      return (async function* () {
        yield* eventsFor(question)
      })()
    },
  }
}

/** An agent whose run stays open, after its first event, until its signal aborts. */
function endlessAgent(): LiveAgent & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = []
  return {
    signals,
    research(question, { signal }) {
      signals.push(signal)
      return (async function* () {
        yield eventsFor(question)[0] as ResearchEvent
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
        yield { runId: RUN_ID, seq: 1, time: 0, type: 'run-end', reason: 'aborted', cost: zeroCost() } satisfies ResearchEvent
      })()
    },
  }
}

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function start(options: LiveServerOptions): Promise<{ server: Server; base: string; port: number }> {
  const server = createLiveServer(options)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { server, base: `http://127.0.0.1:${port}`, port }
}

async function collect(response: Response): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of fromSSE(response)) events.push(event)
  return events
}

/** The token the live page was served with, as its script reads it. */
async function tokenOf(base: string): Promise<string> {
  const html = await (await fetch(`${base}/`)).text()
  return /<meta name="laconic-token" content="([^"]+)">/.exec(html)?.[1] ?? ''
}

/** What the page does to start a run: POST the question with the token. */
async function startRun(base: string, question: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [TOKEN_HEADER]: await tokenOf(base), ...headers },
    body: JSON.stringify({ question }),
  })
}

/** Start a run and read all its events. */
async function research(base: string, question: string): Promise<{ run: string; events: ResearchEvent[] }> {
  const started = await startRun(base, question)
  expect(started.status).toBe(201)
  const { runId } = (await started.json()) as { runId: string }
  return { run: runId, events: await collect(await fetch(`${base}/runs/${runId}/events`)) }
}

/** A raw request with headers fetch does not let a caller set (Host), from a chosen loopback address. */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string; localAddress?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers, localAddress: options.localAddress },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** A GET with an explicit `Host` header. */
function getWithHost(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    }).on('error', reject)
  })
}

describe('createLiveServer', () => {
  it('GET / serves the live page with its token, the label as an escaped banner, and the security headers', async () => {
    const { base } = await start({ agent: fakeAgent(), label: 'Scripted <b>demo</b> & co' })
    const response = await fetch(`${base}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const html = await response.text()
    expect(html).toContain('<p class="banner" id="label">Scripted &#60;b&#62;demo&#60;/b&#62; &#38; co</p>')
    expect(html).toMatch(/<meta name="laconic-token" content="[\w-]{43}">/)
    // Only the page's own script and style run (by hash): an injected one would not.
    const csp = response.headers.get('content-security-policy') ?? ''
    const sha = (tag: string) =>
      createHash('sha256')
        .update(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? '')
        .digest('base64')
    expect(csp).toContain(`script-src 'sha256-${sha('script')}'`)
    expect(csp).toContain(`style-src 'sha256-${sha('style')}'`)
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
  })

  it('each server has its own token', async () => {
    const one = await start({ agent: fakeAgent() })
    const two = await start({ agent: fakeAgent() })
    expect(await tokenOf(one.base)).not.toBe(await tokenOf(two.base))
  })

  it('takes the token it is given, as the research handler does (servers behind one balancer share one)', async () => {
    const token = 'one-token-for-every-node-behind-the-balancer'
    const { base } = await start({ agent: fakeAgent(), token })
    expect(await tokenOf(base)).toBe(token)
    const started = await startRun(base, 'why blue?')
    expect(started.status).toBe(201)
  })

  it('without a label the page has no banner', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const html = await (await fetch(`${base}/`)).text()
    expect(html).not.toContain('id="label"')
    expect(html).not.toContain('<!--label-->')
  })

  it('POST /runs with the token starts the run of the trimmed question; GET /runs/:id/events streams it as Server-Sent Events', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const started = await startRun(base, '  why blue?  ')
    expect(started.status).toBe(201)
    const { runId } = (await started.json()) as { runId: string }
    const response = await fetch(`${base}/runs/${runId}/events`)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(await collect(response)).toEqual(eventsFor('why blue?'))
    expect(agent.questions).toEqual(['why blue?'])
  })

  it('a reconnection with Last-Event-ID resumes after that event, without a second run', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const { run, events } = await research(base, 'why')
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4])
    const resumed = await collect(await fetch(`${base}/runs/${run}/events`, { headers: { 'last-event-id': '2' } }))
    expect(resumed.map((e) => e.seq)).toEqual([3, 4])
    expect(agent.questions).toEqual(['why'])
  })

  it('every start is a new run with a new id', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const one = await research(base, 'one')
    const two = await research(base, 'two')
    expect(one.run).not.toBe(two.run)
    expect(agent.questions).toEqual(['one', 'two'])
  })

  it('a GET never starts a run (an <img> or EventSource on another site could send one)', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const response = await fetch(`${base}/runs?question=spend`)
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect(agent.questions).toEqual([])
  })

  it.each([
    ['a cross-site browser request, token and all', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, 'cross-site'],
    ['a same-site sibling on another port', { origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-site' }, 'cross-site'],
    ['a request naming another origin', { origin: 'https://evil.example' }, 'cross-origin'],
    ['a request without the token', { [TOKEN_HEADER]: '' }, TOKEN_HEADER],
  ])('refuses %s with 403 and starts nothing', async (_what, headers, message) => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const response = await startRun(base, 'spend', headers)
    expect(response.status).toBe(403)
    expect(await response.text()).toContain(message)
    expect(agent.questions).toEqual([])
  })

  it.each([
    ['{}', 400, 'send {\\"question\\": QUESTION}'],
    ['{"question": "   "}', 400, 'send {\\"question\\": QUESTION}'],
    [JSON.stringify({ question: 'x'.repeat(MAX_QUESTION_CHARS + 1) }), 400, 'send {\\"question\\": QUESTION}'],
    ['not json', 400, 'send {\\"question\\": QUESTION}'],
    [JSON.stringify({ question: 'x'.repeat(20_000) }), 400, 'send {\\"question\\": QUESTION}'],
    ['["a list"]', 400, 'send {\\"question\\": QUESTION}'],
  ])('POST %s → %i with a JSON error saying what to send, and no run', async (body, status, message) => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const response = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: await tokenOf(base) },
      body,
    })
    expect(response.status).toBe(status)
    expect(await response.text()).toContain(message)
    expect(agent.questions).toEqual([])
  })

  it.each([
    ['/runs/unknown/events', 404, 'no run unknown'],
    ['/runs/unknown', 404, 'no run unknown'],
    ['/elsewhere', 404, 'not found: try GET /'],
  ])('GET %s → %i', async (path, status, message) => {
    const { base } = await start({ agent: fakeAgent() })
    const response = await fetch(`${base}${path}`)
    expect(response.status).toBe(status)
    expect(await response.text()).toContain(message)
  })

  it('with `host`, requests addressed to another name are refused (DNS rebinding) and loopback names are served', async () => {
    const agent = fakeAgent()
    const { port, base } = await start({ agent, host: '127.0.0.1' })
    const token = await tokenOf(base)
    const refused = await rawRequest(port, {
      method: 'POST',
      path: '/runs',
      headers: { host: `evil.example:${port}`, 'content-type': 'application/json', [TOKEN_HEADER]: token },
      body: '{"question":"spend"}',
    })
    expect(refused.status).toBe(403)
    expect(refused.body).toContain('addressed to 127.0.0.1 only')
    expect(agent.questions).toEqual([])
    expect((await getWithHost(port, '/', `localhost:${port}`)).status).toBe(200)
  })

  it('runs in progress are limited per client address and server-wide, with 429 and Retry-After', async () => {
    const agent = endlessAgent()
    // Nobody reads these runs: a grace period longer than any test keeps each holding its slot however slowly the requests come.
    const { base, port } = await start({ agent, graceMs: 600_000, limits: { maxActiveRuns: 3, maxActiveRunsPerClient: 2, retryAfterSeconds: 7 } })
    const token = await tokenOf(base)
    const post = (localAddress: string) =>
      rawRequest(port, {
        method: 'POST',
        path: '/runs',
        localAddress,
        headers: { 'content-type': 'application/json', [TOKEN_HEADER]: token },
        body: '{"question":"again"}',
      })
    expect((await post('127.0.0.1')).status).toBe(201)
    expect((await post('127.0.0.1')).status).toBe(201)
    const perClient = await post('127.0.0.1')
    expect(perClient.status).toBe(429)
    expect(perClient.headers['retry-after']).toBe('7')
    expect(perClient.body).toContain('2 runs in progress')
    // Another address still gets one, up to the server-wide limit.
    expect((await post('127.0.0.2')).status).toBe(201)
    const serverWide = await post('127.0.0.3')
    expect(serverWide.status).toBe(429)
    expect(serverWide.body).toContain('running 3 runs')
    expect(agent.signals).toHaveLength(3)
  })

  it('finished runs are kept within a count: the oldest is dropped first', async () => {
    const { base } = await start({ agent: fakeAgent(), limits: { maxRetainedRuns: 2 } })
    const runs = [await research(base, 'one'), await research(base, 'two'), await research(base, 'three')]
    expect((await fetch(`${base}/runs/${runs[0]?.run}/events`)).status).toBe(404)
    for (const kept of runs.slice(1)) expect(await collect(await fetch(`${base}/runs/${kept.run}/events`))).toHaveLength(5)
  })

  it('finished runs are kept within a byte budget: the oldest are dropped first', async () => {
    const oneRun = eventsFor('one').reduce((sum, event) => sum + JSON.stringify(event).length, 0)
    const { base } = await start({ agent: fakeAgent(), limits: { maxRetainedBytes: oneRun + 10 } })
    const first = await research(base, 'one')
    const second = await research(base, 'two')
    expect((await fetch(`${base}/runs/${first.run}/events`)).status).toBe(404)
    expect(await collect(await fetch(`${base}/runs/${second.run}/events`))).toHaveLength(5)
  })

  it('a started run nobody reads is aborted after the grace period, freeing its slot', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const agent = endlessAgent()
      const { base } = await start({ agent, graceMs: 60_000, limits: { maxActiveRunsPerClient: 1 } })
      expect((await startRun(base, 'unread')).status).toBe(201)
      vi.advanceTimersByTime(59_999)
      expect((await startRun(base, 'too soon')).status).toBe(429)
      // The run was never read, so it never started: its slot comes back once the grace period ends.
      vi.advanceTimersByTime(1)
      expect((await startRun(base, 'next')).status).toBe(201)
    } finally {
      vi.useRealTimers()
    }
  })

  it('closing the server aborts the runs still in flight', async () => {
    const agent = endlessAgent()
    const { server, base } = await start({ agent })
    const { runId } = (await (await startRun(base, 'forever')).json()) as { runId: string }
    const response = await fetch(`${base}/runs/${runId}/events`)
    const reader = response.body?.getReader()
    await reader?.read() // the stream is open and the run has started
    expect(agent.signals).toHaveLength(1)
    expect(agent.signals[0]?.aborted).toBe(false)
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    expect(agent.signals[0]?.aborted).toBe(true)
  })

  it('closing the server sends each open stream its run-end (aborted) before the connection ends', async () => {
    const agent = endlessAgent()
    const { server, base } = await start({ agent })
    const { runId } = (await (await startRun(base, 'forever')).json()) as { runId: string }
    const response = await fetch(`${base}/runs/${runId}/events`)
    const seen: ResearchEvent[] = []
    let started = () => {}
    const firstEvent = new Promise<void>((resolve) => (started = resolve))
    const reading = (async () => {
      for await (const event of fromSSE(response.body as ReadableStream<Uint8Array>)) {
        seen.push(event as ResearchEvent)
        started()
      }
    })()
    await firstEvent
    await new Promise((resolve) => server.close(resolve))
    await reading
    expect(seen.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
  })

  it('GET /runs/:id says how the run is doing, and its result once done', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const { run } = await research(base, 'why')
    const status = await fetch(`${base}/runs/${run}`)
    expect(status.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await status.json()).toMatchObject({ runId: run, state: 'done', question: 'why', cancelled: false, result: { reason: 'answered', answer: 'Blue.' } })
  })

  it('a reconnection at or past the run-end gets the end frame at once, so an EventSource stops', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const { run } = await research(base, 'why')
    for (const last of ['4', '9']) {
      const response = await fetch(`${base}/runs/${run}/events`, { headers: { 'last-event-id': last } })
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
      expect(await response.text()).toBe('retry: 3000\n\nevent: end\ndata: [DONE]\n\n')
    }
  })

  it('DELETE /runs/:id with the token cancels the run: its stream ends with run-end (aborted)', async () => {
    const agent = endlessAgent()
    const { base } = await start({ agent })
    const { runId } = (await (await startRun(base, 'forever')).json()) as { runId: string }
    const response = await fetch(`${base}/runs/${runId}/events`)
    const seen: ResearchEvent[] = []
    let started = () => {}
    const firstEvent = new Promise<void>((resolve) => (started = resolve))
    const reading = (async () => {
      for await (const event of fromSSE(response.body as ReadableStream<Uint8Array>)) {
        seen.push(event as ResearchEvent)
        started()
      }
    })()
    await firstEvent
    const refused = await fetch(`${base}/runs/${runId}`, { method: 'DELETE' })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({ code: 'forbidden' })
    expect(agent.signals[0]?.aborted).toBe(false)
    const cancelled = await fetch(`${base}/runs/${runId}`, { method: 'DELETE', headers: { [TOKEN_HEADER]: await tokenOf(base) } })
    expect(cancelled.status).toBe(202)
    await reading
    expect(seen.at(-1)).toMatchObject({ type: 'run-end', reason: 'aborted' })
    expect(await (await fetch(`${base}/runs/${runId}`)).json()).toMatchObject({ state: 'done', cancelled: true })
  })

  it('a 1 MB query string is answered 431 with a line saying what fits, not a reset connection', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const response = await fetch(`${base}/runs/x/events?pad=${'a'.repeat(1_000_000)}`)
    expect(response.status).toBe(431)
    expect(await response.text()).toContain('must fit in 16 KB')
    // The server goes on serving.
    expect((await fetch(`${base}/`)).status).toBe(200)
  })

  it('errors are JSON with a code', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const unknown = await fetch(`${base}/elsewhere`)
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(await unknown.json()).toMatchObject({ code: 'not-found', message: expect.stringContaining('POST /runs') })
    const wrongType = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { [TOKEN_HEADER]: await tokenOf(base), 'content-type': 'text/plain' },
      body: 'why',
    })
    expect(wrongType.status).toBe(415)
    expect(await wrongType.json()).toMatchObject({ code: 'unsupported-media-type' })
  })

  it('limits must be positive integers', () => {
    expect(() => createLiveServer({ agent: fakeAgent(), limits: { maxActiveRuns: 0 } })).toThrow(/maxActiveRuns/)
  })
})

describe('the source view (GET /runs/:id/source?url=URL)', () => {
  const HOSTILE = '<img src=x onerror="document.title=1"><script>alert(1)</script>'
  let folder = ''
  let corpusDir = ''
  let fileUrl = (_name: string) => ''

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'laconic-sources-'))
    corpusDir = join(folder, 'corpus')
    await mkdir(corpusDir)
    await writeFile(
      join(corpusDir, 'sky.md'),
      `# Why the sky is blue\n\nRayleigh scattering sends blue light everywhere. ${HOSTILE}\n\n## Sunsets\n\nRed at dusk.\n`,
    )
    await writeFile(join(corpusDir, 'bread.md'), '# Baking bread\n\nYeast makes dough rise.\n')
    await writeFile(join(corpusDir, 'long.txt'), `Long document ${'x'.repeat(1_200_000)}`)
    // Beside the corpus, not in it: what a traversal would try to reach.
    await writeFile(join(folder, 'secret.txt'), 'the secret\n')
    fileUrl = (name) => pathToFileURL(join(corpusDir, name)).href
  })
  afterAll(() => rm(folder, { recursive: true, force: true }))

  /**
   * An agent that searches a real local corpus for its question and reports the results (and
   * a page read of the first), as a strategy does; the server reads sources from the same corpus.
   */
  function corpusServer(options: Partial<LiveServerOptions> = {}) {
    const corpus = localCorpus({ dir: corpusDir })
    const reads: string[] = []
    const agent: LiveAgent = {
      research(question) {
        return (async function* () {
          const stamp = (seq: number) => ({ runId: RUN_ID, seq, time: 0 })
          const results = await corpus.search(question, { limit: 3 })
          yield { ...stamp(0), type: 'result', queryId: 'q1', results } satisfies ResearchEvent
          if (question.includes('read')) yield { ...stamp(1), type: 'page', url: fileUrl('long.txt'), chars: 10 } satisfies ResearchEvent
          yield { ...stamp(2), type: 'run-end', reason: 'answered', answer: '', cost: zeroCost() } satisfies ResearchEvent
        })()
      },
    }
    const readSource = (url: string, signal: AbortSignal) => {
      reads.push(url)
      return corpus.fetch(url, { signal })
    }
    return { options: { agent, readSource, ...options }, reads }
  }

  const view = (base: string, run: string, url: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/runs/${encodeURIComponent(run)}/source?url=${encodeURIComponent(url)}`, { headers })

  it("a file: source the run's results named is served as plain text, never as markup", async () => {
    const { options, reads } = corpusServer()
    const { base } = await start(options)
    const { run, events } = await research(base, 'Rayleigh scattering blue')
    const named = events.flatMap((e) => (e.type === 'result' ? e.results.map((r) => r.url) : []))
    // The corpus names its sections with a fragment; the view serves the whole document.
    expect(named.some((url) => url.startsWith(`${fileUrl('sky.md')}#`) || url === fileUrl('sky.md'))).toBe(true)
    const sectionUrl = named.find((url) => url.startsWith(fileUrl('sky.md'))) as string
    const response = await view(base, run, sectionUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox")
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = await response.text()
    expect(body.startsWith(`Why the sky is blue\n${fileUrl('sky.md')}\n\n`)).toBe(true)
    expect(body).toContain(`Rayleigh scattering sends blue light everywhere. ${HOSTILE}`)
    expect(body).toContain('Red at dusk.')
    expect(reads).toEqual([fileUrl('sky.md')])
  })

  it('the page links file: sources to the view only when the server has one', async () => {
    const withView = await start(corpusServer().options)
    expect(await (await fetch(`${withView.base}/`)).text()).toContain('<meta name="laconic-source-view" content="yes">')
    const without = await start({ agent: fakeAgent() })
    expect(await (await fetch(`${without.base}/`)).text()).not.toContain('<meta name="laconic-source-view"')
    expect((await view(without.base, 'any', fileUrl('sky.md'))).status).toBe(404)
  })

  it("a URL the run never named is 404 and never read: another corpus document, another run's source, a traversal", async () => {
    const { options, reads } = corpusServer()
    const { base } = await start(options)
    const sky = await research(base, 'Rayleigh scattering blue')
    const bread = await research(base, 'yeast dough')
    const attempts: [string, string][] = [
      // In the corpus, but this run's results did not name it.
      [sky.run, fileUrl('bread.md')],
      [bread.run, fileUrl('sky.md')],
      // Out of the corpus folder, by a path that starts inside it, or directly.
      [sky.run, `${fileUrl('sky.md')}/../../secret.txt`],
      [sky.run, `${pathToFileURL(corpusDir).href}/%2e%2e/secret.txt`],
      [sky.run, pathToFileURL(join(folder, 'secret.txt')).href],
      [sky.run, 'file:///etc/passwd'],
      // Not a file: URL at all: the view never fetches the web.
      [sky.run, 'http://127.0.0.1:1/'],
      ['no-such-run', fileUrl('sky.md')],
    ]
    for (const [run, url] of attempts) {
      const response = await view(base, run, url)
      expect(response.status, url).toBe(404)
      expect(await response.text()).not.toContain('secret')
    }
    expect((await fetch(`${base}/runs/${sky.run}/source`)).status).toBe(404)
    expect(reads).toEqual([])
  })

  it("a page event's URL is served too, cut at 1,000,000 characters with a note", async () => {
    const { options } = corpusServer()
    const { base } = await start(options)
    const { run } = await research(base, 'read the bread')
    const body = await (await view(base, run, fileUrl('long.txt'))).text()
    expect(body).toContain('Long document xxx')
    expect(body).toContain('[cut at 1,000,000 of 1,200,014 characters]')
    expect(body.length).toBeLessThan(1_000_200)
  })

  it('a read follows the request guard: a cross-site request or another Host is refused with 403, and nothing is read', async () => {
    const { options, reads } = corpusServer({ host: '127.0.0.1' })
    const { base, port } = await start(options)
    const { run, events } = await research(base, 'Rayleigh scattering blue')
    const url = events.flatMap((e) => (e.type === 'result' ? e.results.map((r) => r.url) : [])).find((u) => u.startsWith(fileUrl('sky.md'))) as string
    const crossSite = await view(base, run, url, { 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    const path = `/runs/${run}/source?url=${encodeURIComponent(url)}`
    expect((await getWithHost(port, path, `evil.example:${port}`)).status).toBe(403)
    expect(reads).toEqual([])
    // From the page itself (same-origin), or the address bar, it is served.
    expect((await view(base, run, url, { 'sec-fetch-site': 'same-origin' })).status).toBe(200)
    expect((await view(base, run, url, { 'sec-fetch-site': 'none' })).status).toBe(200)
  })

  it('a source the reader cannot read any more is 404 (not found) or 500 (any other failure), with one line', async () => {
    const { options } = corpusServer()
    const failing = {
      ...options,
      readSource: async (url: string) => Promise.reject(Object.assign(new Error(`gone: ${url}\nsecond line`), { code: 'not-found' })),
    }
    const { base } = await start(failing)
    const { run } = await research(base, 'Rayleigh scattering blue')
    const response = await view(base, run, fileUrl('sky.md'))
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ code: 'not-found', message: `could not read ${fileUrl('sky.md')}: gone: ${fileUrl('sky.md')}` })
    const broken = await start({ ...options, readSource: async () => Promise.reject(new Error('disk on fire')) })
    const second = await research(broken.base, 'Rayleigh scattering blue')
    const failed = await view(broken.base, second.run, fileUrl('sky.md'))
    expect(failed.status).toBe(500)
    expect(await failed.json()).toMatchObject({ code: 'source-unreadable', message: expect.stringContaining('disk on fire') })
  })
})

describe('a paused run answered from the page (POST /runs/:id/decision)', () => {
  /** A scratchpad run on a scripted world that pauses after its plan (seed 7 plans a search first). */
  const pausing = (extra: Partial<LiveServerOptions> = {}) =>
    start({ agent: world('scratchpad', 7).agent, checkpoints: memoryCheckpoints(), review: { plan: true }, ...extra })

  const decide = async (base: string, run: string, decision: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/runs/${run}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: await tokenOf(base), ...headers },
      body: JSON.stringify(decision),
    })

  it('the run ends paused with its plan as the request; approving it goes on as a new run whose events follow on', async () => {
    const { base } = await pausing()
    expect(await (await fetch(`${base}/`)).text()).toContain('<meta name="laconic-decisions" content="yes">')
    const { run, events } = await research(base, 'Why is the sky blue?')
    const end = events.at(-1)
    expect(end).toMatchObject({ type: 'run-end', reason: 'paused', request: { kind: 'plan' } })
    expect(await (await fetch(`${base}/runs/${run}`)).json()).toMatchObject({ state: 'done', result: { reason: 'paused' } })

    const approved = await decide(base, run, { action: 'approve' })
    expect(approved.status).toBe(201)
    const { runId } = (await approved.json()) as { runId: string }
    expect(runId).not.toBe(run)
    const rest = await collect(await fetch(`${base}/runs/${runId}/events`))
    // The agent's run goes on: the same id, its seq after the paused run's last.
    expect(rest[0]).toMatchObject({ type: 'run-start', runId: end?.runId, seq: (end?.seq ?? 0) + 1 })
    expect(rest.some((e) => e.type === 'query')).toBe(true)
    expect(rest.at(-1)).toMatchObject({ type: 'run-end' })
    expect(rest.at(-1)).not.toMatchObject({ reason: 'paused' })

    // Answered once: a second decision, or one for a run that is not paused, is a conflict.
    const again = await decide(base, run, { action: 'approve' })
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining(`follow run ${runId}`) })
    const notPaused = await decide(base, runId, { action: 'approve' })
    expect(notPaused.status).toBe(409)
    expect(await notPaused.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining('not paused') })
  })

  it("review.tools: each react tool call waits for the page's decision; the switch goes on with the resumed run", async () => {
    const llm = scriptedLLM({
      replies: (req) => {
        const results = req.turns?.filter((t) => t.role === 'tool').length ?? 0
        if (results === 0) return { text: '', toolCalls: [{ id: 'c1', name: 'search', args: { query: 'sky colour' } }] }
        if (results === 1) return { text: '', toolCalls: [{ id: 'c2', name: 'search', args: { query: 'blue light' } }] }
        return 'Air scatters blue light [1].'
      },
    })
    const search = mockSearch({ corpus: [{ title: 'Sky', url: 'https://sky.example/', snippet: 'Air scatters blue light.' }] })
    const agent = createAgent({ llm, search, strategy: 'react', react: { finalAnswer: () => true } })
    const { base } = await start({ agent, checkpoints: memoryCheckpoints(), review: { tools: true } })
    const first = await research(base, 'Why is the sky blue?')
    expect(first.events.at(-1)).toMatchObject({ reason: 'paused', request: { kind: 'tool-call', callId: 'c1', args: { query: 'sky colour' } } })
    expect(search.calls).toEqual([])

    const approved = await decide(base, first.run, { action: 'approve' })
    const { runId: second } = (await approved.json()) as { runId: string }
    const secondEvents = await collect(await fetch(`${base}/runs/${second}/events`))
    // The approved call ran; the next one waits in turn: the resumed run kept the switch.
    expect(search.calls).toEqual(['sky colour'])
    expect(secondEvents.at(-1)).toMatchObject({ reason: 'paused', request: { kind: 'tool-call', callId: 'c2' } })

    const edited = await decide(base, second, { action: 'edit', args: { query: 'rayleigh' } })
    const { runId: third } = (await edited.json()) as { runId: string }
    const thirdEvents = await collect(await fetch(`${base}/runs/${third}/events`))
    expect(search.calls).toEqual(['sky colour', 'rayleigh'])
    expect(thirdEvents.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  })

  it('rejecting the plan ends the run with nothing searched, the reason in a warning', async () => {
    const { base } = await pausing()
    const { run } = await research(base, 'Why is the sky blue?')
    const rejected = await decide(base, run, { action: 'reject', reason: 'wrong queries' })
    expect(rejected.status).toBe(201)
    const { runId } = (await rejected.json()) as { runId: string }
    const rest = await collect(await fetch(`${base}/runs/${runId}/events`))
    expect(rest.some((e) => e.type === 'query')).toBe(false)
    expect(rest.find((e) => e.type === 'warning')).toMatchObject({ message: expect.stringContaining('wrong queries') })
    expect(rest.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
  })

  it('a decision needs the token and a known action; a server without checkpoints takes none', async () => {
    const { base } = await pausing()
    const { run } = await research(base, 'Why is the sky blue?')
    const noToken = await decide(base, run, { action: 'approve' }, { [TOKEN_HEADER]: '' })
    expect(noToken.status).toBe(403)
    const crossSite = await decide(base, run, { action: 'approve' }, { 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    const unknown = await decide(base, run, { action: 'maybe' })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ code: 'bad-request' })
    // Still paused: the refused attempts changed nothing.
    expect((await decide(base, run, { action: 'approve' })).status).toBe(201)

    const plain = await start({ agent: fakeAgent() })
    expect(await (await fetch(`${plain.base}/`)).text()).not.toContain('<meta name="laconic-decisions"')
    const off = await decide(plain.base, (await research(plain.base, 'why')).run, { action: 'approve' })
    expect(off.status).toBe(404)
    expect(await off.json()).toMatchObject({ code: 'not-found', message: expect.stringContaining('takes no decisions') })
  })

  it('review without checkpoints is refused at once; the old pauseAfterPlan names review', () => {
    expect(() => createLiveServer({ agent: fakeAgent(), review: { plan: true } })).toThrow(/needs `checkpoints`/)
    expect(() => createLiveServer({ agent: fakeAgent(), checkpoints: memoryCheckpoints(), pauseAfterPlan: true } as never)).toThrow(
      expect.objectContaining({ code: 'config', message: '`pauseAfterPlan` was replaced: use `review: { plan: true }`' }),
    )
  })
})

describe('follow-up questions (POST /runs with a conversation)', () => {
  /** A scratchpad agent on scripted models: the first question searches, the follow-up answers from what it learned. */
  function conversingAgent() {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris.', 'About 2.1 million people, from what is known.'] })
    const search = mockSearch({ corpus: [{ title: 'France', url: 'https://fr.example/', snippet: 'The capital of France is Paris.' }] })
    return { agent: createAgent({ models: { planner, synthesizer }, search }), planner }
  }

  const startTurn = async (base: string, body: Record<string, unknown>) =>
    fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TOKEN_HEADER]: await tokenOf(base) },
      body: JSON.stringify(body),
    })

  const turn = async (base: string, question: string, conversation: string): Promise<ResearchEvent[]> => {
    const started = await startTurn(base, { question, conversation })
    expect(started.status).toBe(201)
    const { runId } = (await started.json()) as { runId: string }
    return collect(await fetch(`${base}/runs/${runId}/events`))
  }

  it('a follow-up in the same conversation plans with what the first run learned, and the store keeps the conversation', async () => {
    const { agent, planner } = conversingAgent()
    const sessions = memorySessions()
    const { base } = await start({ agent, sessions })
    expect(await (await fetch(`${base}/`)).text()).toContain('<meta name="laconic-follow-ups" content="yes">')

    const first = await turn(base, 'What is the capital of France?', 'chat-1')
    expect(first.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered', answer: 'Paris.' })
    expect(planner.calls[1]?.prompt).not.toContain('How many people')

    const second = await turn(base, 'How many people live there?', 'chat-1')
    expect(second.at(-1)).toMatchObject({ type: 'run-end', reason: 'answered' })
    // The follow-up's planner was told what the first run found.
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France.')
    const state = await sessions.load('chat-1')
    expect(state?.priorAnswers.map((prior) => prior.query)).toEqual(['What is the capital of France?', 'How many people live there?'])
  })

  it('another conversation starts from nothing', async () => {
    const { agent, planner } = conversingAgent()
    const { base } = await start({ agent })
    await turn(base, 'What is the capital of France?', 'chat-1')
    await turn(base, 'How many people live there?', 'chat-2')
    expect(planner.calls[2]?.prompt).not.toContain('Paris is the capital of France.')
  })

  it('a conversation must be a chat id, and an agent without sessions takes none (and its page offers no follow-up)', async () => {
    const { base } = await start({ agent: conversingAgent().agent })
    for (const conversation of ['', 'a/b', '-a', 'x'.repeat(129), 42]) {
      const refused = await startTurn(base, { question: 'why', conversation })
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({ code: 'bad-request', message: expect.stringContaining('chat id') })
    }

    const plain = await start({ agent: fakeAgent() })
    expect(await (await fetch(`${plain.base}/`)).text()).not.toContain('<meta name="laconic-follow-ups"')
    const refused = await startTurn(plain.base, { question: 'why', conversation: 'chat-1' })
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ code: 'bad-request', message: expect.stringContaining('keeps no conversations') })
  })
})
