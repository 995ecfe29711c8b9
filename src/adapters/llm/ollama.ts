/**
 * `ollama({ host, model })`: Ollama's native chat API, streamed as NDJSON.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { LLMProvider } from '../../core/contracts/providers.js'
import type { HintFor } from '../http/index.js'
import type { LLMAdapterOptions } from './options.js'
import { secretHeaderValues } from '../http/index.js'
import { ollamaBody, parseOllamaLine, type OllamaBodyOptions } from './ollama-wire.js'
import { streamChat } from './stream-chat.js'
import { readLines } from '../../wire/index.js'

/** Options of `ollama()`: the host, the model, and Ollama's own request settings. */
export interface OllamaOptions extends LLMAdapterOptions, OllamaBodyOptions {
  /** @defaultValue `http://localhost:11434` */
  host?: string | undefined
  model: string
}

/** Loading a model into memory happens before the first byte, so wait longer for it. */
const OLLAMA_FIRST_BYTE_MS = 300_000
/** A local model on a CPU can take long over a long answer: a generous whole-call limit. */
const OLLAMA_TOTAL_MS = 1_800_000

/** An `LLMProvider` for a model served by Ollama (by default on `http://localhost:11434`). */
export function ollama(options: OllamaOptions): LLMProvider {
  const { model } = options
  if (!model) throw new LaconicError('ollama: `model` is required', { code: 'config', hint: 'pass it as `ollama({ model: "qwen3:4b" })`' })
  const host = (options.host ?? 'http://localhost:11434').replace(/\/+$/, '')
  const timeouts = { firstByteMs: OLLAMA_FIRST_BYTE_MS, totalMs: OLLAMA_TOTAL_MS, ...options.timeouts }
  const hint: HintFor = (failure) => {
    if (failure.kind === 'network') return `is \`ollama serve\` running at ${host}?`
    if (failure.status === 404) return `pull the model (\`ollama pull ${model}\`) or choose one from \`ollama list\``
    return undefined
  }
  return {
    model,
    // Ollama runs models on the user's own hardware; its hosted service (ollama.com) is paid.
    local: !/(^|\.)ollama\.com$/i.test(hostOf(host)),
    stream: (req) =>
      streamChat(
        {
          provider: 'ollama',
          model,
          url: `${host}/api/chat`,
          headers: { ...options.headers },
          body: ollamaBody(model, req, options),
          secrets: secretHeaderValues(options.headers),
          hint,
          frames: (response) => readLines(response.chunks()),
          parse: parseOllamaLine,
        },
        { ...options, timeouts },
        req,
      ),
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname
  } catch {
    return ''
  }
}
