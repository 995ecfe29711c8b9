import { LaconicError } from '../core/contracts/laconic-error.js'
import type { LLMChunk, LLMProvider, LLMRequest } from '../core/contracts/providers.js'
import { requestText } from '../core/contracts/tool-args.js'
import { estimateTokens } from '../core/util/text.js'
import { InFlight, sleep } from './sleep.js'

/** One scripted reply: its text, and optionally reasoning, usage and tool calls. */
export interface ScriptedReply {
  text: string
  /** Streamed out of band, as `reasoning` chunks. */
  reasoning?: string
  /** Reported usage; estimated from the text when absent. */
  usage?: { inputTokens: number; outputTokens: number }
  /** Dollars the provider reports for this call. */
  cost?: number
  /** Fail this call after streaming `text` (or before, when `text` is empty). */
  error?: Error
  /**
   * Tool calls made after `text`: each streams its arguments as `tool-call-delta` pieces, then
   * a `tool-call`. `args` is sent as JSON when it is not a string (a string goes verbatim, so a
   * test can send arguments that are not JSON). Ids default to `call_<call>_<n>`.
   */
  toolCalls?: readonly { id?: string; name: string; args?: unknown }[]
}

/** What a `scriptedLLM()` replies: a list by call order, or a function of the request and call index. */
export type Script = readonly (string | ScriptedReply)[] | ((req: LLMRequest, callIndex: number) => string | ScriptedReply | Promise<string | ScriptedReply>)

/** Options of `scriptedLLM()`: the replies, the model name, and cost, latency and chunking of the stream. */
export interface ScriptedLLMOptions {
  /** Replies by call order, or a function of the request. */
  replies: Script
  model?: string
  /** Wait before the first token (abortable). */
  latencyMs?: number
  /** Wait between tokens (abortable). */
  tokenDelayMs?: number
  /** Dollars for every call that does not set its own. */
  cost?: number
  /** How replies are cut into chunks: whitespace-led words (default) or fixed-size pieces. */
  chunkSize?: 'word' | number
}

/** An `LLMProvider` replying from a script, that records every request it received. */
export interface ScriptedLLM extends LLMProvider {
  /** Every request received, in order. */
  readonly calls: LLMRequest[]
  /** Calls streaming right now, and the most ever at once. */
  readonly inFlight: InFlight
}

function split(text: string, chunkSize: 'word' | number): string[] {
  if (chunkSize === 'word') return text.match(/\s*\S+|\s+$/g) ?? []
  const pieces: string[] = []
  for (let i = 0; i < text.length; i += Math.max(1, chunkSize)) pieces.push(text.slice(i, i + Math.max(1, chunkSize)))
  return pieces
}

/** A model that replies from a script: for tests and demos, no network. */
export function scriptedLLM(options: ScriptedLLMOptions): ScriptedLLM {
  const calls: LLMRequest[] = []
  const inFlight = new InFlight()
  const { replies, latencyMs = 0, tokenDelayMs = 0, chunkSize = 'word' } = options

  const replyFor = async (req: LLMRequest, index: number): Promise<ScriptedReply> => {
    const raw = typeof replies === 'function' ? await replies(req, index) : replies[index]
    if (raw === undefined) {
      throw new LaconicError(`scriptedLLM ran out of replies at call ${index + 1} (it has ${(replies as readonly unknown[]).length})`, {
        code: 'config',
        hint: 'add replies, or pass a function of the request',
      })
    }
    return typeof raw === 'string' ? { text: raw } : raw
  }

  async function* stream(req: LLMRequest): AsyncGenerator<LLMChunk> {
    const index = calls.length
    calls.push(req)
    const signal = req.signal
    let release!: () => void
    void inFlight.track(() => new Promise<void>((r) => (release = r)))
    try {
      const reply = await replyFor(req, index)
      await sleep(latencyMs, signal)
      if (reply.reasoning) yield { type: 'reasoning', text: reply.reasoning }
      for (const piece of split(reply.text, chunkSize)) {
        signal?.throwIfAborted()
        yield { type: 'text', text: piece }
        await sleep(tokenDelayMs, signal)
      }
      for (const [n, call] of (reply.toolCalls ?? []).entries()) {
        const id = call.id ?? `call_${index + 1}_${n + 1}`
        const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {})
        yield { type: 'tool-call-delta', index: n, id, name: call.name, argsDelta: '' }
        for (const piece of split(args, chunkSize)) {
          signal?.throwIfAborted()
          yield { type: 'tool-call-delta', index: n, id, name: call.name, argsDelta: piece }
        }
        yield { type: 'tool-call', id, name: call.name, args }
      }
      if (reply.error) throw reply.error
      const usage = reply.usage ?? {
        inputTokens: estimateTokens(requestText(req)),
        outputTokens: estimateTokens(reply.text),
      }
      const cost = reply.cost ?? options.cost
      yield { type: 'usage', ...usage, ...(cost !== undefined ? { cost } : {}) }
    } finally {
      release()
    }
  }

  // A scripted model runs in this process: it costs what the script says, else nothing.
  return { ...(options.model !== undefined ? { model: options.model } : {}), local: true, calls, inFlight, stream }
}
