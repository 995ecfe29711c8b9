/**
 * The examples' shared agent and the chat example's page, without a browser: an OpenAI-compatible
 * endpoint from the command line, and a page that says when it is the scripted demo and what to do
 * when the model server does not answer (issue 35, item 7).
 */
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatServer, DEMO_BANNER } from '../../examples/chat/server.js'
import { exampleAgent } from '../../examples/shared/agent.js'
import { generate } from '../../src/strategy.js'
import { type FakeBackend, startFakeBackend } from '../cli/fake-backend.js'

describe('exampleAgent', () => {
  let backend: FakeBackend
  beforeAll(async () => {
    backend = await startFakeBackend({ reply: () => 'from the OpenAI-compatible server' })
  })
  afterAll(() => backend.close())

  it('--backend openai --endpoint URL --model NAME runs on that server, and the other words are the question', async () => {
    const example = exampleAgent(['--backend', 'openai', '--endpoint', backend.url, '--model', 'fake-model', '--port', '9000', 'What', 'is', 'RAG?'], {
      env: {},
    })
    expect(example.question).toBe('What is RAG?')
    expect(example.port).toBe(9000)
    expect(example.model).toBe(`fake-model at ${backend.url}/v1`)
    const reply = await generate(example.llm!, { prompt: 'hello' })
    expect(reply.text).toBe('from the OpenAI-compatible server')
    expect(backend.turns.at(-1)?.prompt).toBe('hello')
  })

  it('names the server and what to do when it does not answer', () => {
    const ollama = exampleAgent([], { env: { OLLAMA_HOST: 'http://127.0.0.1:1', OLLAMA_MODEL: 'tiny' } })
    expect(ollama.model).toBe('Ollama tiny at http://127.0.0.1:1')
    expect(ollama.fix).toContain('ollama serve')
    expect(ollama.fix).toContain('--backend openai --endpoint URL --model NAME')
    expect(ollama.fix).toContain('--demo')
    expect(() => exampleAgent(['--backend', 'openai'], { env: {} })).toThrow('--backend openai needs --model NAME')
    expect(() => exampleAgent(['--backend', 'openai', '-m', 'gpt-4o-mini'], { env: {} })).toThrow('OPENAI_API_KEY')
    expect(exampleAgent(['--demo']).demo).toBe(true)
  })
})

describe('the chat page', () => {
  let folder: string
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'laconic-chat-page-'))
    await mkdir(join(folder, 'app'))
    // The page as written: the server fills it in (no build needed for what it adds).
    await copyFile(new URL('../../examples/chat/index.html', import.meta.url), join(folder, 'app', 'index.html'))
  })
  afterAll(() => rm(folder, { recursive: true, force: true }))

  async function page(options: { demo?: boolean; unreachable?: string }): Promise<string> {
    const { agent } = exampleAgent(['--demo'])
    const server: Server = await createChatServer({ agent, appDir: join(folder, 'app'), dataDir: join(folder, 'data'), ...options })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const response = await fetch(`http://localhost:${(server.address() as AddressInfo).port}/`)
      expect(response.status).toBe(200)
      return await response.text()
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }

  it('says it is the scripted demo, above the chat, only when it is', async () => {
    const demo = await page({ demo: true })
    expect(demo).toContain('<p class="demo-banner" role="note">Scripted demo: no model and no web.')
    expect(DEMO_BANNER).toContain('canned')
    expect(await page({})).not.toContain('demo-banner')
  })

  it('carries what to do when the model server is down, as text', async () => {
    const html = await page({ unreachable: 'The model server (Ollama at "x") <b>down</b>' })
    expect(html).toContain('<meta name="laconic-unreachable" content="The model server (Ollama at &#34;x&#34;) &#60;b&#62;down&#60;/b&#62;">')
  })
})
