/**
 * Ollama can list its models (`GET /api/tags`), so `--model` is optional with it: the CLI
 * picks the first one and says so.
 */
import { LaconicError } from '../core/index.js'
import { RECOMMENDED_LOCAL_MODEL } from './recommended-model.js'

const LIST_TIMEOUT_MS = 10_000

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
  const hint = `is \`ollama serve\` running? Pass --endpoint HOST for another server, or --model NAME, or run a model in-process: --backend local -m ${RECOMMENDED_LOCAL_MODEL}`
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
