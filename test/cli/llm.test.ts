/**
 * `--backend`, `--endpoint`, `--api-key`, `--model` as the command takes them: where its requests
 * go (Ollama's model list through the command's own fetch, the model's calls through a stand-in
 * for the network), what it says on stderr, and its exit code.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { laconic, USAGE } from './laconic.js'

/** A fetch that answers Ollama's /api/tags with `body` and records what was asked. */
function tagsFetch(body: unknown, asked: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    asked.push(String(input))
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
  }) as typeof fetch
}

interface ModelRequest {
  url: string
  model: string | undefined
  authorization: string | null
}

/** No page reads, and a search that finds nothing: the runs here are about the model. */
const OFFLINE = ['--no-fetch', '--search', 'searxng', '--searxng-url', 'http://searx.test']

/**
 * The network the model's calls reach: Ollama's /api/chat answers with one line; any other
 * model server refuses with HTTP 400 (the request itself is what these tests look at).
 */
function modelServers(): ModelRequest[] {
  const requests: ModelRequest[] = []
  vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (new URL(url).host === 'searx.test') return Response.json({ query: 'q', results: [] })
    const body = JSON.parse(String(init?.body ?? '{}')) as { model?: string }
    requests.push({ url, model: body.model, authorization: new Headers(init?.headers).get('authorization') })
    if (new URL(url).pathname === '/api/chat') {
      const line = (content: string, done: boolean) =>
        JSON.stringify({
          model: body.model,
          message: { role: 'assistant', content },
          done,
          ...(done ? { done_reason: 'stop', prompt_eval_count: 10, eval_count: 2 } : {}),
        })
      return new Response(`${line('Action: Answer', false)}\n${line('', true)}\n`, { headers: { 'content-type': 'application/x-ndjson' } })
    }
    return new Response(JSON.stringify({ error: { message: 'not here' } }), { status: 400, headers: { 'content-type': 'application/json' } })
  })
  return requests
}

afterEach(() => {
  vi.unstubAllGlobals()
})

const never = (() => Promise.reject(new Error('must not list'))) as typeof fetch

describe('endpoints', () => {
  it('bare hosts get a scheme (http for local ones); OpenAI-compatible roots get /v1', async () => {
    const asked: string[] = []
    const list = tagsFetch({ models: [] }, asked)
    await laconic(['--endpoint', 'localhost:11434', 'q'], { fetch: list })
    await laconic(['--endpoint', 'ollama.example.com/', 'q'], { fetch: list })
    expect(asked).toEqual(['http://localhost:11434/api/tags', 'https://ollama.example.com/api/tags'])
    const requests = modelServers()
    await laconic(['--backend', 'openai', '--endpoint', '127.0.0.1:8080', '-m', 'm', ...OFFLINE, 'q'])
    await laconic(['--backend', 'openai', '--endpoint', 'https://openrouter.ai/api/v1', '-m', 'm', ...OFFLINE, 'q'])
    const models = requests.filter((request) => request.model === 'm').map((request) => request.url)
    expect(new Set(models)).toEqual(new Set(['http://127.0.0.1:8080/v1/chat/completions', 'https://openrouter.ai/api/v1/chat/completions']))
    const bad = await laconic(['--endpoint', 'http://exa mple', 'q'])
    expect(bad.code).toBe(USAGE)
    expect(bad.stderr).toMatch(/^laconic: --endpoint is not a URL: "http:\/\/exa mple"\n$/)
  })
})

describe('the model of a run', () => {
  it('ollama without --model picks the first listed model and says so', async () => {
    const asked: string[] = []
    const requests = modelServers()
    const { code, stderr } = await laconic(['--endpoint', 'gpu-box:11434', ...OFFLINE, 'q'], {
      fetch: tagsFetch({ models: [{ name: 'qwen3:4b' }, { name: 'llama3:8b' }] }, asked),
    })
    expect(asked).toEqual(['https://gpu-box:11434/api/tags'])
    expect(stderr).toContain('laconic: no --model given: using qwen3:4b, the first of 2 models at https://gpu-box:11434\n')
    expect(code).toBe(0)
    const chats = requests.filter((request) => request.url.endsWith('/api/chat'))
    expect(chats.length).toBeGreaterThan(0)
    for (const chat of chats) expect(chat).toMatchObject({ url: 'https://gpu-box:11434/api/chat', model: 'qwen3:4b' })
  })

  it('OLLAMA_HOST is the default endpoint; an explicit --model skips the listing', async () => {
    const requests = modelServers()
    const { code } = await laconic(['-m', 'phi4', ...OFFLINE, 'q'], { env: { OLLAMA_HOST: 'http://10.0.0.2:11434' }, fetch: never })
    expect(code).toBe(0)
    expect(requests.find((request) => request.url.endsWith('/api/chat'))).toMatchObject({ url: 'http://10.0.0.2:11434/api/chat', model: 'phi4' })
  })

  it('an Ollama with no models is an error that says to pull one', async () => {
    const { code, stderr } = await laconic(['q'], { fetch: tagsFetch({ models: [] }) })
    expect(code).toBe(1)
    expect(stderr).toContain('Ollama at http://localhost:11434 has no models (pull one')
  })

  it('keys come from the flag or the environment; without one, a usage error names both', async () => {
    const missing = await laconic(['--backend', 'openai', '-m', 'gpt-4o-mini', 'q'])
    expect(missing.code).toBe(USAGE)
    expect(missing.stderr).toContain('pass --api-key or set OPENAI_API_KEY')
    const requests = modelServers()
    await laconic(['--backend', 'openai', '-m', 'gpt-4o-mini', ...OFFLINE, 'q'], { env: { OPENAI_API_KEY: 'sk-x' } })
    expect(requests.find((request) => request.model === 'gpt-4o-mini')).toMatchObject({
      url: 'https://api.openai.com/v1/chat/completions',
      authorization: 'Bearer sk-x',
    })
    // A local OpenAI-compatible server needs no key.
    await laconic(['--backend', 'openai', '--endpoint', 'localhost:1234', '-m', 'm', ...OFFLINE, 'q'])
    expect(requests.find((request) => request.model === 'm')).toMatchObject({ url: 'http://localhost:1234/v1/chat/completions', authorization: null })
    const anthropic = await laconic(['--backend', 'anthropic', 'q'], { env: { ANTHROPIC_API_KEY: 'k' } })
    expect(anthropic.code).toBe(USAGE)
    expect(anthropic.stderr).toContain('--backend anthropic needs --model NAME')
  })

  it('--backend local runs the -m file or hf: URI in-process (loaded on first use), and needs -m', async () => {
    const without = await laconic(['--backend', 'local', 'q'])
    expect(without.code).toBe(USAGE)
    expect(without.stderr).toContain('--backend local needs -m PATH.gguf or -m hf:')
    const requests = modelServers()
    const { code, stdout, stderr } = await laconic(['--backend', 'local', '-m', './models/tiny.gguf', ...OFFLINE, '-f', 'ndjson', 'q'])
    // The run started before the model was loaded; loading the missing file is what failed it, and no request left.
    expect(JSON.parse(stdout.split('\n')[0] as string)).toMatchObject({ type: 'run-start', question: 'q' })
    expect(code).toBe(1)
    expect(stderr).toContain('tiny.gguf')
    expect(requests.filter((request) => request.model !== undefined)).toEqual([])
  })

  it('the model list is read totally: any body of /api/tags picks a listed name or says there is none', async () => {
    modelServers()
    // Bodies shaped like a model list, some of them, and anything else.
    const entry = fc.oneof(fc.jsonValue(), fc.record({ name: fc.jsonValue() }), fc.record({ model: fc.string() }), fc.record({ name: fc.string() }))
    const tagsBody = fc.oneof(fc.jsonValue(), fc.record({ models: fc.array(entry, { maxLength: 4 }) }))
    let named = 0
    const odd = await laconic(['q'], {
      fetch: tagsFetch({ models: [{ name: 'a' }, { model: 'b' }, null, 3, { name: '' }] }),
      env: { OLLAMA_HOST: 'http://10.0.0.3:1' },
    })
    expect(odd.stderr).toContain('laconic: no --model given: using a, the first of 2 models at http://10.0.0.3:1\n')
    await fc.assert(
      fc.asyncProperty(tagsBody, async (body) => {
        const { code, stderr } = await laconic([...OFFLINE, 'q'], { fetch: tagsFetch(body), env: { OLLAMA_HOST: 'http://10.0.0.3:1' } })
        expect(stderr).not.toContain('TypeError')
        if (/has no models/.test(stderr)) expect(code).toBe(1)
        else {
          expect(stderr).toMatch(/^laconic: no --model given: using .+, the first of \d+ models? at http:\/\/10\.0\.0\.3:1\n/)
          named += 1
          expect(code).toBe(0)
        }
      }),
      { numRuns: 40 },
    )
    // Both ways were taken.
    expect(named).toBeGreaterThan(0)
  })
})
