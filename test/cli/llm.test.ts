import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { parseCliArgs, type CliOptions } from '../../src/cli/args.js'
import { buildLLM, openaiBaseURL, withScheme } from '../../src/cli/llm.js'
import { modelNamesFromTags } from '../../src/cli/ollama-models.js'
import { UsageError } from '../../src/cli/usage-error.js'

const options = (...argv: string[]): CliOptions => {
  const command = parseCliArgs([...argv, 'q'])
  if (command.kind !== 'run') throw new Error('expected a run')
  return command.options
}

/** A fetch that answers Ollama's /api/tags and records what was asked. */
function tagsFetch(body: unknown, asked: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    asked.push(String(input))
    return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
  }) as typeof fetch
}

describe('endpoints', () => {
  it('bare hosts get a scheme (http for local ones); OpenAI-compatible roots get /v1', () => {
    expect(withScheme('localhost:11434')).toBe('http://localhost:11434')
    expect(withScheme('ollama.example.com/')).toBe('https://ollama.example.com')
    expect(openaiBaseURL('127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1')
    expect(openaiBaseURL('https://openrouter.ai/api/v1')).toBe('https://openrouter.ai/api/v1')
    expect(() => withScheme('http://exa mple')).toThrow(UsageError)
  })
})

describe('buildLLM', () => {
  it('ollama without --model picks the first listed model and says so', async () => {
    const asked: string[] = []
    const built = await buildLLM(options('--endpoint', 'gpu-box:11434'), {}, tagsFetch({ models: [{ name: 'qwen3:4b' }, { name: 'llama3:8b' }] }, asked))
    expect(asked).toEqual(['https://gpu-box:11434/api/tags'])
    expect(built.llm.model).toBe('qwen3:4b')
    expect(built.notice).toBe('no --model given: using qwen3:4b, the first of 2 models at https://gpu-box:11434')
  })

  it('OLLAMA_HOST is the default endpoint; an explicit --model skips the listing', async () => {
    const never = (() => Promise.reject(new Error('must not list'))) as typeof fetch
    const built = await buildLLM(options('-m', 'phi4'), { OLLAMA_HOST: 'http://10.0.0.2:11434' }, never)
    expect(built).toMatchObject({ endpoint: 'http://10.0.0.2:11434', llm: { model: 'phi4' } })
  })

  it('an Ollama with no models is an error that says to pull one', async () => {
    await expect(buildLLM(options(), {}, tagsFetch({ models: [] }))).rejects.toThrow('Ollama at http://localhost:11434 has no models (pull one')
  })

  it('keys come from the flag or the environment; without one, a usage error names both', async () => {
    await expect(buildLLM(options('--backend', 'openai', '-m', 'gpt-4o-mini'), {})).rejects.toThrow('pass --api-key or set OPENAI_API_KEY')
    expect((await buildLLM(options('--backend', 'openai', '-m', 'gpt-4o-mini'), { OPENAI_API_KEY: 'sk-x' })).endpoint).toBe('https://api.openai.com/v1')
    // A local OpenAI-compatible server needs no key.
    expect((await buildLLM(options('--backend', 'openai', '--endpoint', 'localhost:1234', '-m', 'm'), {})).endpoint).toBe('http://localhost:1234/v1')
    await expect(buildLLM(options('--backend', 'anthropic'), { ANTHROPIC_API_KEY: 'k' })).rejects.toThrow('--backend anthropic needs --model NAME')
  })

  it('--backend local runs the -m file or hf: URI in-process (loaded on first use), and needs -m', async () => {
    await expect(buildLLM(options('--backend', 'local'), {})).rejects.toThrow('--backend local needs -m PATH.gguf or -m hf:')
    const built = await buildLLM(options('--backend', 'local', '-m', './models/tiny.gguf'), {})
    expect(built).toMatchObject({ endpoint: './models/tiny.gguf', llm: { model: './models/tiny.gguf', local: true } })
  })

  it('the model list parser is total', () => {
    expect(modelNamesFromTags({ models: [{ name: 'a' }, { model: 'b' }, null, 3, { name: '' }] })).toEqual(['a', 'b'])
    fc.assert(fc.property(fc.jsonValue(), (body) => Array.isArray(modelNamesFromTags(body))))
  })
})
