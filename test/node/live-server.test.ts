import { get, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { zeroCost, type ResearchEvent } from '../../src/core/index.js'
import { createLiveServer, MAX_QUESTION_CHARS, type LiveAgent, type LiveServerOptions } from '../../src/node/index.js'
import { fromSSE } from '../../src/streams/index.js'

const RUN_ID = 'run-1'

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

/** A GET with an explicit `Host` header, which fetch does not let a caller set. */
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
  test('GET / serves the live page, with the label as an escaped banner', async () => {
    const { base } = await start({ agent: fakeAgent(), label: 'Scripted <b>demo</b> & co' })
    const response = await fetch(`${base}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await response.text()
    expect(html).toContain('<p class="banner" id="label">Scripted &#60;b&#62;demo&#60;/b&#62; &#38; co</p>')
    expect(html).toContain("'/research?q=' + encodeURIComponent(question)")
    // No runs token: the page starts runs with GET /research, not the web node's POST /runs.
    expect(html).not.toContain('name="laconic-runs-token"')
  })

  test('without a label the page has no banner', async () => {
    const { base } = await start({ agent: fakeAgent() })
    const html = await (await fetch(`${base}/`)).text()
    expect(html).not.toContain('id="label"')
    expect(html).not.toContain('<!--label-->')
  })

  test('GET /research streams the run of the trimmed question as Server-Sent Events', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const response = await fetch(`${base}/research?q=${encodeURIComponent('  why blue?  ')}`)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(await collect(response)).toEqual(eventsFor('why blue?'))
    expect(agent.questions).toEqual(['why blue?'])
  })

  test('a reconnection with the same run key and Last-Event-ID resumes after that event, without a second run', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const url = `${base}/research?q=why&run=page-key`
    expect((await collect(await fetch(url))).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4])
    const resumed = await collect(await fetch(url, { headers: { 'last-event-id': '2' } }))
    expect(resumed.map((e) => e.seq)).toEqual([3, 4])
    expect(agent.questions).toEqual(['why'])
  })

  test('different run keys are different runs', async () => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    await collect(await fetch(`${base}/research?q=one&run=a`))
    await collect(await fetch(`${base}/research?q=two&run=b`))
    expect(agent.questions).toEqual(['one', 'two'])
  })

  test.each([
    ['/research', 400, 'pass a question of 1 to'],
    ['/research?q=%20%20', 400, 'pass a question of 1 to'],
    [`/research?q=${'x'.repeat(MAX_QUESTION_CHARS + 1)}`, 400, 'pass a question of 1 to'],
    ['/elsewhere', 404, 'not found: try GET /'],
  ])('GET %s → %i with a usage line, and no run', async (path, status, message) => {
    const agent = fakeAgent()
    const { base } = await start({ agent })
    const response = await fetch(`${base}${path}`)
    expect(response.status).toBe(status)
    expect(await response.text()).toContain(message)
    expect(agent.questions).toEqual([])
  })

  test('with `host`, requests addressed to another name are refused (DNS rebinding) and loopback names are served', async () => {
    const agent = fakeAgent()
    const { port } = await start({ agent, host: '127.0.0.1' })
    const refused = await getWithHost(port, '/research?q=spend', `evil.example:${port}`)
    expect(refused.status).toBe(403)
    expect(refused.body).toContain('addressed to 127.0.0.1 only')
    expect(agent.questions).toEqual([])
    expect((await getWithHost(port, '/', `localhost:${port}`)).status).toBe(200)
  })

  test('closing the server aborts the runs still in flight', async () => {
    const agent = endlessAgent()
    const { server, base } = await start({ agent })
    const response = await fetch(`${base}/research?q=forever`)
    const reader = response.body?.getReader()
    await reader?.read() // the stream is open and the run has started
    expect(agent.signals).toHaveLength(1)
    expect(agent.signals[0]?.aborted).toBe(false)
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    expect(agent.signals[0]?.aborted).toBe(true)
  })
})
