import { describe, expect, it } from 'vitest'
import { ProviderError, type LLMRequest } from '../../../src/index.js'
import { isAbortError } from '../../../src/strategy.js'
import { loopbacks, startLoopback, writePieces, type Handler } from '../http/loopback.js'
import { openai } from '../../../src/adapters/index.js'
import { API_KEY, cases, collect, collectUntilError } from './cases.js'
import { expectedText } from './fixtures.js'

type RetryInfo = Parameters<NonNullable<LLMRequest['onRetry']>>[0]

const serve = loopbacks()

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n'

const expectedNotFoundHint = { openai: 'pull or choose a model', ollama: '`ollama pull qwen3:4b`', anthropic: 'choose a model' }

describe.each(cases)('$name faults', (c) => {
  const ok: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': c.contentType })
    res.end(c.transcript)
  }
  const retries = () => {
    const seen: RetryInfo[] = []
    return { seen, onRetry: (info: RetryInfo) => seen.push(info) }
  }

  it('429 with retry-after-ms: one retry that waits what the server asked', async () => {
    const server = await serve((req, res, attempt) => {
      if (attempt > 1) return ok(req, res, attempt)
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '50', 'retry-after': '1' })
      res.end(c.errorBody('Rate limit reached for requests'))
    })
    const { seen, onRetry } = retries()
    const got = await collect(c.make(server.url), { prompt: 'q', onRetry })
    expect(got.text).toBe(expectedText)
    expect(server.requests).toHaveLength(2)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ attempt: 1, delayMs: 50, status: 429 })
    expect(seen[0]?.reason).toContain('Rate limit reached')
  })

  it('500 twice then 200: two retries with backoff, then the answer', async () => {
    const server = await serve((req, res, attempt) => {
      if (attempt > 2) return ok(req, res, attempt)
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(c.errorBody('internal error'))
    })
    const { seen, onRetry } = retries()
    const got = await collect(c.make(server.url, { backoff: { initialMs: 4, maxMs: 8 } }), { prompt: 'q', onRetry })
    expect(got.text).toBe(expectedText)
    expect(seen.map((r) => [r.attempt, r.status])).toEqual([
      [1, 500],
      [2, 500],
    ])
    expect(seen.every((r) => r.delayMs > 0 && r.delayMs <= 8)).toBe(true)
  })

  it('503 beyond the retry budget: a typed error after 1 + maxRetries attempts', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'x-request-id': 'req_abc' })
      res.end(c.errorBody('The server is overloaded'))
    })
    const { error } = await collectUntilError(c.make(server.url, { maxRetries: 2, backoff: { initialMs: 1, maxMs: 2 } }), { prompt: 'q' })
    expect(server.requests).toHaveLength(3)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ provider: c.name, status: 503, code: 'http', providerMessage: 'The server is overloaded' })
    expect((error as ProviderError).requestId).toBe('req_abc')
  })

  it('an HTML 502 page from a proxy is summarised, with a hint about the proxy', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', server: 'nginx/1.25.3' })
      res.end(NGINX_502)
    })
    const { error } = await collectUntilError(c.make(server.url, { maxRetries: 0 }), { prompt: 'q' })
    expect(error).toMatchObject({ status: 502, providerMessage: 'HTML page "502 Bad Gateway"' })
    expect((error as ProviderError).hint).toMatch(/proxy or gateway/)
    expect((error as Error).message).not.toContain('<html>')
  })

  it('404 for the model says to pull or choose a model', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(c.errorBody('model not found'))
    })
    const { error } = await collectUntilError(c.make(server.url), { prompt: 'q' })
    expect(server.requests).toHaveLength(1)
    expect(error).toMatchObject({ code: 'not-found', status: 404, retryable: false })
    expect((error as ProviderError).hint).toContain(expectedNotFoundHint[c.name])
  })

  it('a malformed JSON chunk is a bad-response error after the text before it', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      const broken = c.name === 'ollama' ? '{"message":{"content":"x"\n' : 'data: {"choices":[{"delta":{"content":"x"}\n\n'
      res.end(c.textFrame('before') + broken + c.textFrame('after'))
    })
    const { got, error } = await collectUntilError(c.make(server.url), { prompt: 'q' })
    expect(got.text).toBe('before')
    expect(error).toMatchObject({ code: 'bad-response', provider: c.name })
    expect(server.requests).toHaveLength(1)
  })

  it('an error reported inside a 200 stream carries the provider message', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      res.end(c.errorFrame('context length exceeded'))
    })
    const { error } = await collectUntilError(c.make(server.url), { prompt: 'q' })
    expect(error).toMatchObject({ provider: c.name, providerMessage: 'context length exceeded', retryable: false })
    expect(server.requests).toHaveLength(1)
  })

  it('connection reset mid-stream: partial text, then a network error, no retry', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.textFrame('partial')])
      res.socket?.destroy()
    })
    const { got, error } = await collectUntilError(c.make(server.url), { prompt: 'q', onRetry: () => expect.fail('no retry after text') })
    expect(got.text).toBe('partial')
    expect(error).toMatchObject({ code: 'network', provider: c.name, retryable: false })
    expect((error as ProviderError).hint).toMatch(/not retried/)
    expect(server.requests).toHaveLength(1)
  })

  it('a reset before any token is retried', async () => {
    const server = await serve(async (req, res, attempt) => {
      if (attempt > 1) return ok(req, res, attempt)
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.name === 'ollama' ? '{"model":' : ': processing\n\n'])
      res.socket?.destroy()
    })
    const { seen, onRetry } = retries()
    const got = await collect(c.make(server.url, { backoff: { initialMs: 1, maxMs: 1 } }), { prompt: 'q', onRetry })
    expect(got.text).toBe(expectedText)
    expect(seen).toHaveLength(1)
  })

  it('a stall past the idle timeout is a timeout error', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.textFrame('slow')])
    })
    const { got, error } = await collectUntilError(c.make(server.url, { timeouts: { idleMs: 100 } }), { prompt: 'q' })
    expect(got.text).toBe('slow')
    expect(error).toMatchObject({ code: 'timeout', provider: c.name })
    expect((error as ProviderError).hint).toContain('timeouts.idleMs')
  })

  it('no response headers within the first-byte timeout is a timeout error', async () => {
    const server = await serve(() => undefined)
    const { error } = await collectUntilError(c.make(server.url, { timeouts: { firstByteMs: 100 }, maxRetries: 0 }), { prompt: 'q' })
    expect(error).toMatchObject({ code: 'timeout', provider: c.name })
    expect((error as ProviderError).hint).toContain('timeouts.firstByteMs')
  })

  it('abort mid-stream closes the connection and ends with an abort error', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.textFrame('one')])
    })
    const controller = new AbortController()
    const seen: string[] = []
    let caught: unknown
    try {
      for await (const chunk of c.make(server.url).stream({ prompt: 'q', signal: controller.signal })) {
        if (chunk.type === 'text') seen.push(chunk.text)
        controller.abort()
      }
    } catch (error) {
      caught = error
    }
    expect(seen).toEqual(['one'])
    expect(isAbortError(caught)).toBe(true)
    await server.closedEarly
  })

  it('breaking out of the loop closes the connection', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': c.contentType })
      await writePieces(res, [c.textFrame('one')])
    })
    for await (const chunk of c.make(server.url).stream({ prompt: 'q' })) {
      expect(chunk).toEqual({ type: 'text', text: 'one' })
      break
    }
    await server.closedEarly
  })

  it('the API key never shows in errors or retry reasons, even when the server echoes it', async () => {
    const server = await serve((_req, res, attempt) => {
      res.writeHead(attempt === 1 ? 500 : 401, { 'content-type': 'application/json', 'x-request-id': `id-${API_KEY}` })
      res.end(c.errorBody(`Incorrect API key provided: ${API_KEY}.`))
    })
    const { seen, onRetry } = retries()
    const { error } = await collectUntilError(c.make(server.url, { backoff: { initialMs: 1, maxMs: 1 } }), { prompt: 'q', onRetry })
    expect(error).toMatchObject({ code: 'auth', status: 401 })
    expect((error as ProviderError).hint).toMatch(/API key|key/)
    const visible = JSON.stringify([seen, { ...(error as ProviderError) }, (error as Error).message, (error as Error).stack])
    expect(visible).toContain('[redacted]')
    expect(visible).not.toContain(API_KEY)
  })
})

it('ollama unreachable: the hint asks whether `ollama serve` runs at the host', async () => {
  const gone = await startLoopback(() => undefined)
  await gone.close()
  const llm = cases.find((c) => c.name === 'ollama')!.make(gone.url, { maxRetries: 0 })
  const { error } = await collectUntilError(llm, { prompt: 'q' })
  expect(error).toMatchObject({ code: 'network', provider: 'ollama' })
  expect((error as ProviderError).hint).toBe(`is \`ollama serve\` running at ${gone.url}?`)
})

it('anthropic: an overloaded error event before any text is retried', async () => {
  const c = cases.find((x) => x.name === 'anthropic')!
  const server = await serve((_req, res, attempt) => {
    res.writeHead(200, { 'content-type': c.contentType })
    res.end(attempt === 1 ? 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n' : c.transcript)
  })
  const seen: RetryInfo[] = []
  const got = await collect(c.make(server.url, { backoff: { initialMs: 1, maxMs: 1 } }), { prompt: 'q', onRetry: (i) => seen.push(i) })
  expect(got.text).toBe(expectedText)
  expect(seen[0]?.reason).toContain('Overloaded')
})

describe('refusals', () => {
  it('openai: a streamed delta.refusal ends the call with a typed refusal error carrying the words', async () => {
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(
        'data: {"choices":[{"delta":{"role":"assistant","content":null,"refusal":""}}]}\n\n' +
          'data: {"choices":[{"delta":{"refusal":"I\'m sorry, "}}]}\n\n' +
          'data: {"choices":[{"delta":{"refusal":"I can\'t help with that."}}]}\n\n' +
          'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      )
    })
    const { error } = await collectUntilError(openai({ baseURL: `${server.url}/v1`, model: 'gpt-4o', maxRetries: 0 }), { prompt: 'q' })
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: 'refusal', retryable: false })
    expect((error as Error).message).toContain("I'm sorry, I can't help with that.")
  })
})
