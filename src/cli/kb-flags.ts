/** The flags that name a knowledge base and its embedder, shared by `--kb` on a question and by `laconic index` and `laconic kb`. */
import { didYouMean } from './did-you-mean.js'
import { UsageError } from './usage-error.js'

export const EMBED_BACKENDS = ['ollama', 'openai', 'local'] as const
export type EmbedBackend = (typeof EMBED_BACKENDS)[number]

/** The embedder as flags give it; what is missing comes from the knowledge base's own record. */
export interface EmbedFlags {
  backend?: EmbedBackend | undefined
  model?: string | undefined
  endpoint?: string | undefined
  apiKey?: string | undefined
  /**
   * Not a flag: the question's `--backend` and `--endpoint`. An embedder of the same backend
   * with no endpoint of its own (no `--embed-endpoint`, none recorded) uses this one.
   */
  modelEndpoint?: { backend: string; endpoint: string } | undefined
}

/** The flags every knowledge-base command and `--kb` take. */
export const KB_FLAGS = {
  kb: { type: 'string' },
  'embed-backend': { type: 'string' },
  'embed-model': { type: 'string' },
  'embed-endpoint': { type: 'string' },
  'embed-api-key': { type: 'string' },
} as const

export function embedFlags(values: Record<string, string | boolean | (string | boolean)[] | undefined>): EmbedFlags {
  const text = (name: string) => {
    const value = values[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} needs a value`)
    return value
  }
  const backend = text('embed-backend')
  if (backend !== undefined && !(EMBED_BACKENDS as readonly string[]).includes(backend)) {
    throw new UsageError(`--embed-backend must be one of ${EMBED_BACKENDS.join(', ')}; got "${backend}"${didYouMean(backend, EMBED_BACKENDS)}`)
  }
  return { backend: backend as EmbedBackend | undefined, model: text('embed-model'), endpoint: text('embed-endpoint'), apiKey: text('embed-api-key') }
}
