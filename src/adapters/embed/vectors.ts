/**
 * A reply's vectors as `Float32Array`s, checked: one per text, every one of the same length, and
 * that length the one the provider was built with (or first saw).
 */
import { ProviderError } from '../../core/contracts/laconic-error.js'

/**
 * One vector as a server wrote it: a list of finite numbers, or (OpenAI's `encoding_format:
 * "base64"`) the base64 of its little-endian float32 bytes. Anything else is `undefined`.
 */
export function toVector(raw: unknown): Float32Array | undefined {
  if (Array.isArray(raw)) {
    const vector = new Float32Array(raw.length)
    for (let i = 0; i < raw.length; i++) {
      const n = raw[i]
      if (typeof n !== 'number' || !Number.isFinite(n)) return undefined
      vector[i] = n
    }
    return vector
  }
  if (typeof raw === 'string') return fromBase64(raw)
  return undefined
}

function fromBase64(text: string): Float32Array | undefined {
  let binary: string
  try {
    binary = atob(text)
  } catch {
    return undefined
  }
  if (binary.length % 4 !== 0) return undefined
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  const view = new DataView(bytes.buffer)
  const vector = new Float32Array(bytes.length / 4)
  for (let i = 0; i < vector.length; i++) {
    const n = view.getFloat32(4 * i, true)
    if (!Number.isFinite(n)) return undefined
    vector[i] = n
  }
  return vector
}

/** The vectors' length a provider expects: set by its `dimensions` option, or learnt from its first reply. */
export class Dimensions {
  #known: number | undefined
  constructor(
    readonly provider: string,
    readonly model: string,
    expected?: number,
  ) {
    this.#known = expected
  }

  get known(): number | undefined {
    return this.#known
  }

  /** The batch's vectors, once each is a vector of the expected length; else a `bad-response` error. */
  check(vectors: ReadonlyArray<Float32Array | undefined>, texts: number): Float32Array[] {
    if (vectors.length !== texts) throw this.#bad(`returned ${vectors.length} vectors for ${texts} texts`)
    const checked: Float32Array[] = []
    for (const [i, vector] of vectors.entries()) {
      if (vector === undefined) throw this.#bad(`returned no usable vector for text ${i} (not a list of finite numbers)`)
      if (vector.length === 0) throw this.#bad(`returned an empty vector for text ${i} (was the text empty?)`)
      const expected = this.#known ?? vectors[0]?.length
      if (vector.length !== expected)
        throw this.#bad(`returned a ${vector.length}-dimensional vector where ${expected} dimensions were expected`, {
          hint: `vectors of one store must all come from one model at one size: check \`model\`${this.#known !== undefined ? ' and `dimensions`' : ''}`,
        })
      checked.push(vector)
    }
    this.#known ??= checked[0]?.length
    return checked
  }

  #bad(what: string, extra: { hint?: string } = {}): ProviderError {
    return new ProviderError(`${this.provider}: the embedding model ${this.model} ${what}`, {
      code: 'bad-response',
      provider: this.provider,
      ...extra,
    })
  }
}
