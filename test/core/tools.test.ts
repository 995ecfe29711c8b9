import fc from 'fast-check'
import { expect, it } from 'vitest'
import { ollama, openai } from '../../src/adapters/index.js'
import { ProviderError } from '../../src/index.js'
import { parseToolArgs, toolsUnsupported } from '../../src/strategy.js'
import { loopbacks } from '../adapters/http/loopback.js'

const serve = loopbacks()

it('parseToolArgs is total: objects are read, anything else is an error, empty is {}', () => {
  expect(parseToolArgs('{"query":"x"}')).toEqual({ ok: true, value: { query: 'x' } })
  expect(parseToolArgs('  ')).toEqual({ ok: true, value: {} })
  expect(parseToolArgs('[1]')).toMatchObject({ ok: false })
  expect(parseToolArgs('{"query":')).toMatchObject({ ok: false })
  fc.assert(
    fc.property(fc.string(), (text) => {
      expect(typeof parseToolArgs(text).ok).toBe('boolean')
    }),
  )
})

async function failure(make: (url: string) => { stream: (r: { prompt: string }) => AsyncIterable<unknown> }, status: number, body: string): Promise<unknown> {
  const server = await serve((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(body)
  })
  try {
    for await (const _ of make(server.url).stream({ prompt: 'q' }));
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

it("a server's refusal of tools is recognised; other failures are not", async () => {
  const ollamaLLM = (url: string) => ollama({ host: url, model: 'gemma:2b', maxRetries: 0 })
  const openaiLLM = (url: string) => openai({ baseURL: `${url}/v1`, model: 'local', maxRetries: 0 })
  expect(toolsUnsupported(await failure(ollamaLLM, 400, '{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}'))).toBe(true)
  expect(toolsUnsupported(await failure(openaiLLM, 500, '{"error":{"message":"tools param requires --jinja flag","type":"server_error"}}'))).toBe(false)
  expect(toolsUnsupported(await failure(openaiLLM, 400, '{"error":{"message":"tools param requires --jinja flag"}}'))).toBe(true)
  expect(toolsUnsupported(await failure(openaiLLM, 400, '{"error":{"message":"model not found"}}'))).toBe(false)
  expect(toolsUnsupported(new ProviderError('x', { code: 'http', provider: 'p', status: 429, providerMessage: 'tools not supported' }))).toBe(false)
  expect(toolsUnsupported(new Error('does not support tools'))).toBe(false)
})
