/**
 * `--backend`, `--endpoint`, `--api-key`, `--model` → an `LLMProvider`, with the defaults and
 * environment variables each backend documents, and one actionable line when something is missing.
 */
import { anthropic, local, ollama, openai } from '../adapters/index.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { LLMProvider } from '../core/contracts/providers.js'
import type { CliOptions } from './args.js'
import { listOllamaModels } from './ollama-models.js'
import { RECOMMENDED_LOCAL_MODEL } from './recommended-model.js'
import { UsageError } from './usage-error.js'
import { count } from './plural.js'

export type Env = Readonly<Record<string, string | undefined>>

const LOCAL_HOST = /^(localhost|127\.|0\.0\.0\.0|\[::1\])/

/** `localhost:11434` → `http://localhost:11434`; `example.com` → `https://example.com`; no trailing slash. */
export function withScheme(endpoint: string, flag = '--endpoint'): string {
  const trimmed = endpoint.trim().replace(/\/+$/, '')
  const scheme = /^([a-z][\w+.-]*):\/\//i.exec(trimmed)?.[1]
  if (scheme !== undefined && !/^https?$/i.test(scheme)) throw new UsageError(`${flag} must be an http or https URL; got "${endpoint}"`)
  const url = scheme ? trimmed : `${LOCAL_HOST.test(trimmed) ? 'http' : 'https'}://${trimmed}`
  if (!URL.canParse(url) || !new URL(url).hostname) throw new UsageError(`${flag} is not a URL: "${endpoint}"`)
  return url
}

/** OpenAI-compatible servers live under `/v1`; a bare host (as the Go CLI took) gets it appended. */
export function openaiBaseURL(endpoint: string): string {
  const url = withScheme(endpoint)
  return new URL(url).pathname.replace(/\/+$/, '') === '' ? `${url}/v1` : url
}

export interface BuiltLLM {
  llm: LLMProvider
  /** Where requests go, for messages. */
  endpoint: string
  /** Said on stderr before the run, e.g. which model was picked. */
  notice?: string
}

export async function buildLLM(options: CliOptions, env: Env, fetchFn?: typeof globalThis.fetch): Promise<BuiltLLM> {
  const { backend, model } = options
  switch (backend) {
    case 'ollama': {
      const host = withScheme(options.endpoint ?? env.OLLAMA_HOST ?? 'http://localhost:11434')
      if (model) return { llm: ollama({ host, model }), endpoint: host }
      const names = await listOllamaModels(host, fetchFn)
      const first = names[0]
      if (first === undefined) {
        throw new LaconicError(`Ollama at ${host} has no models`, { code: 'not-found', hint: 'pull one (ollama pull qwen3:4b) or pass --model NAME' })
      }
      return {
        llm: ollama({ host, model: first }),
        endpoint: host,
        notice: `no --model given: using ${first}, the first of ${count(names.length, 'model')} at ${host}`,
      }
    }
    case 'openai': {
      const baseURL = openaiBaseURL(options.endpoint ?? 'https://api.openai.com/v1')
      const apiKey = options.apiKey ?? env.OPENAI_API_KEY
      if (!apiKey && new URL(baseURL).hostname === 'api.openai.com') {
        throw new UsageError('missing API key for api.openai.com: pass --api-key or set OPENAI_API_KEY (or --endpoint for a local server)')
      }
      if (!model) throw new UsageError('--backend openai needs --model NAME (e.g. --model gpt-4o-mini)')
      return { llm: openai({ baseURL, model, ...(apiKey ? { apiKey } : {}) }), endpoint: baseURL }
    }
    case 'anthropic': {
      const baseURL = withScheme(options.endpoint ?? 'https://api.anthropic.com')
      const apiKey = options.apiKey ?? env.ANTHROPIC_API_KEY
      if (!apiKey) throw new UsageError('missing API key for Anthropic: pass --api-key or set ANTHROPIC_API_KEY')
      if (!model) throw new UsageError('--backend anthropic needs --model NAME (e.g. --model claude-haiku-4-5)')
      return { llm: anthropic({ baseURL, apiKey, model }), endpoint: baseURL }
    }
    case 'local': {
      if (!model) throw new UsageError(`--backend local needs -m PATH.gguf or -m hf:owner/repo/file.gguf (e.g. -m ${RECOMMENDED_LOCAL_MODEL})`)
      return { llm: local({ model }), endpoint: model }
    }
  }
}
