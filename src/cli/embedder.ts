/**
 * `--embed-backend`, `--embed-model`, `--embed-endpoint`, `--embed-api-key` → an
 * `EmbeddingProvider`, with the defaults and environment variables of the model flags
 * (`OLLAMA_HOST`, `OPENAI_API_KEY`); with no endpoint of its own, an embedder of the model's
 * backend uses the model's `--endpoint`. A knowledge base remembers the embedder it was indexed with
 * (`laconic-kb.json` in its folder, no key), so asking it a question needs no embed flags; a
 * `--memory` folder remembers its embedder the same way.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { localEmbeddings, ollamaEmbeddings, openAIEmbeddings } from '../adapters/index.js'
import type { EmbeddingProvider } from '../core/contracts/embeddings.js'
import type { Env } from './llm.js'
import { openaiBaseURL, withScheme } from './llm.js'
import { EMBED_BACKENDS, type EmbedBackend, type EmbedFlags } from './kb-flags.js'
import { UsageError } from './usage-error.js'

/** What a knowledge base's folder records about its embedder (never a key). */
interface EmbedRecord {
  backend: EmbedBackend
  model: string
  endpoint?: string
}

const RECORD_FILE = 'laconic-kb.json'

async function readRecord(kbPath: string): Promise<EmbedRecord | undefined> {
  const text = await readFile(join(kbPath, RECORD_FILE), 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  try {
    const parsed = JSON.parse(text) as { embed?: Partial<EmbedRecord> }
    const embed = parsed.embed
    if (!embed || typeof embed.model !== 'string' || !(EMBED_BACKENDS as readonly string[]).includes(embed.backend ?? '')) return undefined
    return { backend: embed.backend as EmbedBackend, model: embed.model, ...(typeof embed.endpoint === 'string' ? { endpoint: embed.endpoint } : {}) }
  } catch {
    return undefined
  }
}

/** Records the embedder a knowledge base was indexed with, for the questions asked of it later. */
export async function recordEmbedder(kbPath: string, record: EmbedRecord): Promise<void> {
  await mkdir(kbPath, { recursive: true })
  await writeFile(join(kbPath, RECORD_FILE), `${JSON.stringify({ embed: record }, null, 2)}\n`)
}

/** The embedder of the flags, else of the knowledge base's record; a usage error when neither names a model. */
export async function resolveEmbedder(
  kbPath: string,
  flags: EmbedFlags,
  env: Env,
  flag: '--kb' | '--memory' = '--kb',
): Promise<{ embed: EmbeddingProvider; record: EmbedRecord }> {
  const recorded = await readRecord(kbPath)
  const backend = flags.backend ?? recorded?.backend ?? 'ollama'
  const sameBackend = recorded?.backend === backend
  const model = flags.model ?? (sameBackend ? recorded?.model : undefined)
  if (!model) {
    throw new UsageError(
      `${flag} ${kbPath} has no embedding model yet: pass --embed-model NAME (e.g. --embed-model nomic-embed-text for Ollama, or --embed-backend openai --embed-model text-embedding-3-small)`,
    )
  }
  const own = flags.endpoint ?? (sameBackend ? recorded?.endpoint : undefined)
  // Only an endpoint given for the embedder is recorded: the model's may change from run to run.
  const record: EmbedRecord = { backend, model, ...(own !== undefined ? { endpoint: own } : {}) }
  const endpoint = own ?? (flags.modelEndpoint?.backend === backend ? flags.modelEndpoint.endpoint : undefined)
  switch (backend) {
    case 'ollama': {
      const host = withScheme(endpoint ?? env.OLLAMA_HOST ?? 'http://localhost:11434', '--embed-endpoint')
      return { embed: ollamaEmbeddings({ host, model }), record }
    }
    case 'openai': {
      const baseURL = openaiBaseURL(endpoint ?? 'https://api.openai.com/v1')
      const apiKey = flags.apiKey ?? env.OPENAI_API_KEY
      if (!apiKey && new URL(baseURL).hostname === 'api.openai.com') {
        throw new UsageError(
          'missing API key for api.openai.com embeddings: pass --embed-api-key or set OPENAI_API_KEY (or --embed-endpoint for a local server)',
        )
      }
      return { embed: openAIEmbeddings({ baseURL, model, ...(apiKey ? { apiKey } : {}) }), record }
    }
    case 'local':
      return { embed: localEmbeddings({ model }), record }
  }
}
