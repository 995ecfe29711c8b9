/**
 * `--debug`: every prompt and reply on stderr, as the Go CLI's `-debug` did. Wraps the model
 * rather than the run, so it shows exactly what the backend was sent and streamed back.
 */
import { redact } from '../core/contracts/laconic-error.js'
import type { LLMProvider } from '../core/contracts/providers.js'

export interface DebugSink {
  write(text: string): void
}

function block(label: string, text: string): string {
  return `── ${label} ──\n${text.replace(/\s+$/, '')}\n`
}

export function debugLLM(llm: LLMProvider, sink: DebugSink, secrets: ReadonlyArray<string | undefined>): LLMProvider {
  let calls = 0
  const say = (text: string) => sink.write(redact(text, secrets))
  return {
    ...(llm.model !== undefined ? { model: llm.model } : {}),
    async *stream(req) {
      const n = ++calls
      const name = llm.model ?? 'model'
      say((req.system ? block(`#${n} ${name} system`, req.system) : '') + block(`#${n} ${name} prompt${req.json ? ' (json)' : ''}`, req.prompt))
      let reply = ''
      let reasoning = ''
      // Stays so when the run stops reading mid-reply (an abort, a consumer that left).
      let outcome = 'reply (cut short)'
      try {
        for await (const chunk of llm.stream(req)) {
          if (chunk.type === 'text') reply += chunk.text
          else if (chunk.type === 'reasoning') reasoning += chunk.text
          yield chunk
        }
        outcome = 'reply'
      } catch (error) {
        outcome = `failed: ${error instanceof Error ? error.message : String(error)}`
        throw error
      } finally {
        say((reasoning ? block(`#${n} reasoning`, reasoning) : '') + block(`#${n} ${outcome}`, reply))
      }
    },
  }
}
