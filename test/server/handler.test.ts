/**
 * The research handler on its own, over a fake run host, called with Web Requests: what it
 * decides itself (limits, errors, the end of a finished stream) whatever host it serves.
 */
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { createResearchHandler, type RunHost } from '../../src/server/index.js'

const TOKEN = 'a-token-of-enough-length'
const BASE = 'http://127.0.0.1:8787'

/** A host whose runs stay in progress until the test ends them; `fail` makes every call reject. */
function fakeHost(options: { fail?: boolean } = {}) {
  const endings = new Map<string, () => void>()
  const questions: string[] = []
  let release: (() => void) | undefined
  const host: RunHost = {
    async start(question) {
      if (options.fail) throw new Error('Redis did not answer for 30 s')
      questions.push(question)
      const runId = `run-${questions.length}`
      let end = () => {}
      const ended = new Promise<void>((resolve) => (end = resolve))
      endings.set(runId, end)
      // A start may take a while (a round trip to Redis): the test releases it.
      if (release === undefined) await new Promise<void>((resolve) => (release = resolve))
      return { runId, ended } satisfies Awaited<ReturnType<RunHost['start']>>
    },
    async status(runId) {
      if (options.fail) throw new Error('Redis did not answer for 30 s')
      return endings.has(runId) ? { runId, state: 'running', question: 'q', cancelled: false } : undefined
    },
    async events(runId) {
      if (!endings.has(runId)) return undefined
      const end: ResearchEvent = { runId, seq: 0, time: 0, type: 'run-end', reason: 'answered', answer: '', cost: zeroCost() }
      return (async function* () {
        yield end
      })()
    },
    async cancel(runId) {
      return endings.has(runId)
    },
  }
  return {
    host,
    questions,
    /** Lets every start (held or to come) answer. */
    releaseStarts: () => {
      release ??= () => {}
      release()
    },
    end: (runId: string) => endings.get(runId)?.(),
  }
}

const start = (question: string) =>
  new Request(`${BASE}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-laconic-token': TOKEN },
    body: JSON.stringify({ question }),
  })

describe('createResearchHandler', () => {
  it('takes a run slot before asking the host, so two starts at once cannot both pass the limit', async () => {
    const fake = fakeHost()
    const handle = createResearchHandler({ runs: fake.host, token: TOKEN, limits: { maxActiveRuns: 1 } })
    const first = handle(start('one'))
    const second = await handle(start('two'))
    expect(second.status).toBe(429)
    expect(second.headers.get('retry-after')).toBe('5')
    expect(await second.json()).toMatchObject({ code: 'busy', message: expect.stringContaining('running 1 runs') })
    fake.releaseStarts()
    expect((await first).status).toBe(201)
    expect(fake.questions).toEqual(['one'])
  })

  it('frees the slot when the host says the run ended', async () => {
    const fake = fakeHost()
    fake.releaseStarts()
    const handle = createResearchHandler({ runs: fake.host, token: TOKEN, limits: { maxActiveRuns: 1 } })
    expect((await handle(start('one'))).status).toBe(201)
    expect((await handle(start('two'))).status).toBe(429)
    fake.end('run-1')
    await Promise.resolve()
    expect((await handle(start('three'))).status).toBe(201)
  })

  it('counts per client by the address the adapter passes; without one only the server-wide limit applies', async () => {
    const fake = fakeHost()
    fake.releaseStarts()
    const handle = createResearchHandler({ runs: fake.host, token: TOKEN, limits: { maxActiveRuns: 3, maxActiveRunsPerClient: 1 } })
    expect((await handle(start('a'), { address: '10.0.0.1' })).status).toBe(201)
    const again = await handle(start('b'), { address: '10.0.0.1' })
    expect(again.status).toBe(429)
    expect(await again.json()).toMatchObject({ code: 'busy', message: expect.stringContaining('1 runs in progress') })
    expect((await handle(start('c'))).status).toBe(201)
    expect((await handle(start('d'))).status).toBe(201)
    expect((await handle(start('e'))).status).toBe(429)
  })

  it('a host that fails is a JSON 503 saying why, and the slot is given back', async () => {
    const handle = createResearchHandler({ runs: fakeHost({ fail: true }).host, token: TOKEN, limits: { maxActiveRuns: 1 } })
    for (const attempt of [1, 2]) {
      const response = await handle(start(`try ${attempt}`))
      expect(response.status).toBe(503)
      expect(await response.json()).toEqual({ code: 'unavailable', message: 'could not start the run: Redis did not answer for 30 s' })
    }
    const status = await handle(new Request(`${BASE}/runs/run-1`))
    expect(status.status).toBe(503)
    expect(await status.json()).toMatchObject({ code: 'unavailable' })
  })

  it('GET /runs never starts a run: 405 with Allow: POST', async () => {
    const fake = fakeHost()
    const response = await createResearchHandler({ runs: fake.host, token: TOKEN })(new Request(`${BASE}/runs?question=spend`))
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect(await response.json()).toMatchObject({ code: 'method-not-allowed' })
    expect(fake.questions).toEqual([])
  })

  it('streams what the host gives and ends with the end frame; no source view without readSource', async () => {
    const fake = fakeHost()
    fake.releaseStarts()
    const handle = createResearchHandler({ runs: fake.host, token: TOKEN })
    await handle(start('one'))
    const body = await (await handle(new Request(`${BASE}/runs/run-1/events`))).text()
    expect(body).toMatch(/^retry: 3000\n\nid: 0\nevent: run-end\ndata: .*\n\nevent: end\ndata: \[DONE\]\n\n$/)
    expect(await (await handle(new Request(`${BASE}/`))).text()).not.toContain('<meta name="laconic-source-view"')
    const source = await handle(new Request(`${BASE}/runs/run-1/source?url=${encodeURIComponent('file:///etc/passwd')}`))
    expect(source.status).toBe(404)
  })

  it('every answer, the page and errors alike, is nosniff', async () => {
    const handle = createResearchHandler({ runs: fakeHost().host, token: TOKEN })
    for (const path of ['/', '/nowhere', '/runs/unknown', '/runs/unknown/events']) {
      expect((await handle(new Request(`${BASE}${path}`))).headers.get('x-content-type-options'), path).toBe('nosniff')
    }
  })
})
