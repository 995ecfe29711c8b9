/**
 * Tool calls arrive in pieces spread over frames (OpenAI interleaves parallel calls by index,
 * Anthropic by content block) or whole (Ollama). This turns those wire steps into
 * `tool-call-delta` chunks as they come and one `tool-call` chunk per call once it is complete.
 */
import type { LLMChunk } from '../../core/contracts/providers.js'
import type { WireStep } from './wire-step.js'

interface OpenCall {
  index: number
  id: string
  name: string
  args: string
}

export class ToolCallAssembler {
  private readonly open = new Map<number, OpenCall>()
  private calls = 0

  /** The chunks one tool step makes. */
  step(step: WireStep): LLMChunk[] {
    switch (step.type) {
      case 'tool-delta':
        return this.delta(step.index, step.id, step.name, step.args ?? '')
      case 'tool-end':
        return step.index === undefined ? this.endAll() : this.end(step.index)
      case 'tool-whole': {
        // A whole call takes the next free index, so it never joins an open one.
        let index = this.calls
        while (this.open.has(index)) index++
        return [...this.delta(index, step.id, step.name, step.args), ...this.end(index)]
      }
      default:
        return []
    }
  }

  /** Completes every call still open (the stream ended). */
  endAll(): LLMChunk[] {
    return [...this.open.keys()].flatMap((index) => this.end(index))
  }

  private delta(index: number, id: string | undefined, name: string | undefined, args: string): LLMChunk[] {
    let call = this.open.get(index)
    const first = call === undefined
    // A call opens with its name: pieces of anything else (Anthropic's server-side tool blocks) are not ours.
    if (!call && !name) return []
    if (!call) {
      call = { index, id: id || `call_${this.calls}`, name: name ?? '', args: '' }
      this.calls++
      this.open.set(index, call)
    } else if (name && !call.name) call.name = name
    call.args += args
    if (!first && args === '') return []
    return [{ type: 'tool-call-delta', index, id: call.id, name: call.name, argsDelta: args }]
  }

  private end(index: number): LLMChunk[] {
    const call = this.open.get(index)
    if (!call) return []
    this.open.delete(index)
    return [{ type: 'tool-call', id: call.id, name: call.name, args: call.args }]
  }
}
