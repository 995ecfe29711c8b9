/**
 * Writes a tiny GGUF model for tests: a one-block llama with random weights (a fixed seed) and a
 * byte-level vocabulary (`<0x00>`…`<0xFF>` plus unk/bos/eos), about 115 KB. It knows nothing and
 * writes garbage, but llama.cpp loads, tokenizes and samples it like any real model.
 */
import { writeFile } from 'node:fs/promises'

enum Kind {
  U32 = 4,
  I32 = 5,
  F32 = 6,
  String = 8,
  Array = 9,
}
type Value =
  | { kind: Kind.U32 | Kind.I32 | Kind.F32; value: number }
  | { kind: Kind.String; value: string }
  | { kind: Kind.Array; of: Kind; values: Array<number | string> }

export interface TinyModelShape {
  embedding?: number
  feedForward?: number
  heads?: number
  blocks?: number
  contextLength?: number
  seed?: number
  /**
   * A preferred logit per byte (unset bytes get 0). Every token's embedding carries a large
   * constant in dimension 0 that the single block barely moves, so the output layer's column 0
   * works as a per-token bias: the model still writes garbage, but garbage of a chosen shape.
   */
  preference?: (byte: number) => number
}

export async function writeTinyGguf(path: string, shape: TinyModelShape = {}): Promise<void> {
  await writeFile(path, tinyGguf(shape))
}

export function tinyGguf({ embedding = 32, feedForward = 64, heads = 2, blocks = 1, contextLength = 2048, seed = 7, preference }: TinyModelShape = {}): Buffer {
  const tokens = ['<unk>', '<s>', '</s>']
  const tokenTypes = [2, 3, 3] // unknown, control, control
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`)
    tokenTypes.push(6) // byte
  }
  const u32 = (value: number): Value => ({ kind: Kind.U32, value })
  const metadata: Array<[string, Value]> = [
    ['general.architecture', { kind: Kind.String, value: 'llama' }],
    ['general.name', { kind: Kind.String, value: 'laconic-tiny-random' }],
    ['llama.context_length', u32(contextLength)],
    ['llama.embedding_length', u32(embedding)],
    ['llama.block_count', u32(blocks)],
    ['llama.feed_forward_length', u32(feedForward)],
    ['llama.attention.head_count', u32(heads)],
    ['llama.attention.head_count_kv', u32(heads)],
    ['llama.rope.dimension_count', u32(embedding / heads)],
    ['llama.attention.layer_norm_rms_epsilon', { kind: Kind.F32, value: 1e-5 }],
    ['tokenizer.ggml.model', { kind: Kind.String, value: 'llama' }],
    ['tokenizer.ggml.tokens', { kind: Kind.Array, of: Kind.String, values: tokens }],
    ['tokenizer.ggml.scores', { kind: Kind.Array, of: Kind.F32, values: tokens.map(() => 0) }],
    ['tokenizer.ggml.token_type', { kind: Kind.Array, of: Kind.I32, values: tokenTypes }],
    ['tokenizer.ggml.bos_token_id', u32(1)],
    ['tokenizer.ggml.eos_token_id', u32(2)],
    ['tokenizer.ggml.unknown_token_id', u32(0)],
  ]
  const vocab = tokens.length
  const tensors: Array<[string, number[]]> = [
    ['token_embd.weight', [embedding, vocab]],
    ['output_norm.weight', [embedding]],
    ['output.weight', [embedding, vocab]],
  ]
  for (let b = 0; b < blocks; b++)
    tensors.push(
      [`blk.${b}.attn_norm.weight`, [embedding]],
      [`blk.${b}.attn_q.weight`, [embedding, embedding]],
      [`blk.${b}.attn_k.weight`, [embedding, embedding]],
      [`blk.${b}.attn_v.weight`, [embedding, embedding]],
      [`blk.${b}.attn_output.weight`, [embedding, embedding]],
      [`blk.${b}.ffn_norm.weight`, [embedding]],
      [`blk.${b}.ffn_gate.weight`, [embedding, feedForward]],
      [`blk.${b}.ffn_up.weight`, [embedding, feedForward]],
      [`blk.${b}.ffn_down.weight`, [feedForward, embedding]],
    )

  const out = new Writer()
  out.raw(Buffer.from('GGUF'))
  out.u32(3) // format version
  out.u64(tensors.length)
  out.u64(metadata.length)
  for (const [key, value] of metadata) {
    out.string(key)
    out.u32(value.kind)
    out.value(value)
  }
  let offset = 0
  for (const [name, dims] of tensors) {
    out.string(name)
    out.u32(dims.length)
    for (const dim of dims) out.u64(dim)
    out.u32(0) // F32
    out.u64(offset)
    offset = align(offset + 4 * count(dims))
  }
  out.pad()
  const data = Buffer.alloc(offset)
  const random = lcg(seed)
  let at = 0
  const BYTE0 = 3 // the first byte token
  for (const [name, dims] of tensors) {
    const n = count(dims)
    const [width = 1] = dims
    for (let i = 0; i < n; i++) {
      let value = name.includes('norm') ? 1 : (random() - 0.5) * 0.5
      if (preference && i % width === 0) {
        const token = Math.floor(i / width)
        // The constant that dimension 0 carries through the block, and the bias read off it.
        if (name === 'token_embd.weight') value = 16
        if (name === 'output.weight') value = token >= BYTE0 ? (preference(token - BYTE0) ?? 0) / 5 : -10
      } else if (preference && name === 'output.weight') value *= 0.1
      data.writeFloatLE(value, at + 4 * i)
    }
    at = align(at + 4 * n)
  }
  out.raw(data)
  return out.buffer()
}

const ALIGNMENT = 32
const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT
const count = (dims: number[]) => dims.reduce((a, b) => a * b, 1)

function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

class Writer {
  readonly #parts: Buffer[] = []
  #length = 0
  raw(part: Buffer): void {
    this.#parts.push(part)
    this.#length += part.length
  }
  u32(n: number): void {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(n)
    this.raw(b)
  }
  u64(n: number): void {
    const b = Buffer.alloc(8)
    b.writeBigUInt64LE(BigInt(n))
    this.raw(b)
  }
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8')
    this.u64(bytes.length)
    this.raw(bytes)
  }
  scalar(kind: Kind, v: number | string): void {
    if (kind === Kind.String) {
      this.string(String(v))
      return
    }
    const b = Buffer.alloc(4)
    if (kind === Kind.U32) b.writeUInt32LE(Number(v))
    else if (kind === Kind.I32) b.writeInt32LE(Number(v))
    else b.writeFloatLE(Number(v))
    this.raw(b)
  }
  value(v: Value): void {
    if (v.kind !== Kind.Array) {
      this.scalar(v.kind, v.value)
      return
    }
    this.u32(v.of)
    this.u64(v.values.length)
    for (const item of v.values) this.scalar(v.of, item)
  }
  pad(): void {
    this.raw(Buffer.alloc(align(this.#length) - this.#length))
  }
  buffer(): Buffer {
    return Buffer.concat(this.#parts)
  }
}
