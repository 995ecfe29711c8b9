import type { LLMRequest } from '../../src/index.js'

/**
 * Everything a request shows the model, as text: its system prompt, prompt, earlier turns (with
 * the tool calls they made and the tools' results) and the tools it offers. Written out from the
 * public `LLMRequest` rather than taken from the code under test, so a size bound checked with it
 * holds for all of what is sent.
 */
export function shownText(req: Pick<LLMRequest, 'system' | 'prompt' | 'turns' | 'tools'>): string {
  const turns = (req.turns ?? []).map((turn) => {
    if (turn.role === 'assistant') return [turn.text, ...turn.toolCalls.map((call) => `${call.name}(${call.args})`)].join('\n')
    return turn.role === 'tool' ? turn.content : turn.text
  })
  const tools = (req.tools ?? []).map((tool) => `${tool.name}: ${tool.description} ${JSON.stringify(tool.parameters)}`)
  return [req.system ?? '', req.prompt, ...turns, ...tools].join('\n')
}
