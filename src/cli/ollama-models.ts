/**
 * Ollama can list its models (`GET /api/tags`), so `--model` is optional with it: the CLI
 * picks the first one and says so.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import { RECOMMENDED_LOCAL_MODEL } from './recommended-model.js'

const LIST_TIMEOUT_MS = 10_000

/**
 * What to do when no Ollama answers: on a first run that is the usual case, so every way to a
 * model is named (another Ollama, an OpenAI-compatible server, a GGUF in-process), and how to
 * search without the web.
 */
export const OLLAMA_UNREACHABLE_HINT =
  'is `ollama serve` running? Start it, or pass --endpoint HOST for an Ollama elsewhere; ' +
  'for an OpenAI-compatible server (llama.cpp, LM Studio, vLLM): --backend openai --endpoint URL -m MODEL; ' +
  `for a GGUF model in-process: --backend local -m ${RECOMMENDED_LOCAL_MODEL}; ` +
  'and --corpus DIR searches a folder of your files instead of the web'

/** Names of the models an Ollama server has pulled, in its own order. Total over odd bodies. */
export function modelNamesFromTags(body: unknown): string[] {
  const models = (body as { models?: unknown } | null)?.models
  if (!Array.isArray(models)) return []
  return models
    .map((m) => (m as { name?: unknown; model?: unknown } | null) ?? {})
    .map((m) => (typeof m.name === 'string' ? m.name : typeof m.model === 'string' ? m.model : ''))
    .filter((name) => name.length > 0)
}

export async function listOllamaModels(host: string, fetchFn: typeof globalThis.fetch = fetch): Promise<string[]> {
  const url = `${host}/api/tags`
  const hint = OLLAMA_UNREACHABLE_HINT
  let response: Response
  try {
    response = await fetchFn(url, { signal: AbortSignal.timeout(LIST_TIMEOUT_MS) })
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    const why = cause?.code ?? cause?.message ?? (error as Error).message
    throw new LaconicError(`cannot reach Ollama at ${url} (${why})`, { code: 'network', hint, cause: error })
  }
  if (!response.ok) {
    throw new LaconicError(`Ollama at ${url} answered HTTP ${response.status}`, { code: 'http', hint })
  }
  const body: unknown = await response.json().catch(() => null)
  return modelNamesFromTags(body)
}
