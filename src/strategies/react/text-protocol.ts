/**
 * The ReAct text protocol, for models that cannot call tools natively:
 *
 *   Thought: what to do next
 *   Action: search
 *   Action Input: {"query": "..."}
 *
 * or `Final Answer: ...`. The parser is total (any text gives a step), and the filter streams
 * only what follows `Final Answer:` while the model writes it.
 */
import type { ToolSpec } from '../../core/contracts/providers.js'

export type TextStep =
  | { kind: 'action'; thought: string; name: string; args: string }
  | { kind: 'answer'; thought: string; answer: string }
  /** Neither an action nor a final answer: the text is kept for the model's next turn. */
  | { kind: 'unreadable'; text: string }

const LABEL = /^[ \t]*(?:\*\*|#+\s*)?(thought|action input|action|observation|final answer)(?:\*\*)?[ \t]*:[ \t]*/gim

/** Reads one step of the protocol. Whichever of `Action:` and `Final Answer:` comes first wins. */
export function parseTextStep(text: string): TextStep {
  const labels = [...text.matchAll(LABEL)].map((match) => ({ label: match[1]!.toLowerCase(), start: match.index, end: match.index + match[0].length }))
  const labelValue = (i: number) => text.slice(labels[i]!.end, labels[i + 1]?.start ?? text.length).trim()
  const thought = labels.findIndex((l) => l.label === 'thought')
  const thoughtText = thought >= 0 ? labelValue(thought) : ''
  for (const [i, { label }] of labels.entries()) {
    if (label === 'final answer') {
      // The answer runs to the end: it may contain lines that look like labels.
      return { kind: 'answer', thought: thoughtText, answer: text.slice(labels[i]!.end).trim() }
    }
    if (label === 'action') {
      const name = labelValue(i)
        .split('\n')[0]!
        .replace(/[`*"'[\]()]/g, '')
        .trim()
      const inputAt = labels.findIndex((l, j) => j > i && l.label === 'action input')
      // The input ends at the next label: a model that goes on to invent an Observation is cut there.
      const args = inputAt >= 0 ? actionInput(labelValue(inputAt)) : ''
      if (name) return { kind: 'action', thought: thoughtText, name, args }
    }
  }
  return { kind: 'unreadable', text: text.trim() }
}

/** Whether the text has a label of the protocol (`Thought:`, `Action:`, ...): then it is no plain answer. */
export function hasProtocolLabel(text: string): boolean {
  return text.search(new RegExp(LABEL.source, 'im')) >= 0
}

/**
 * An action reply as the model's turn in the conversation: cut before the first `Observation:`
 * label after its action and input, which only a model inventing the tool's result writes.
 */
export function untilObservation(text: string): string {
  const labels = [...text.matchAll(LABEL)].map((match) => ({ label: match[1]!.toLowerCase(), start: match.index }))
  const action = labels.findIndex((l) => l.label === 'action')
  if (action < 0) return text
  const input = labels.findIndex((l, j) => j > action && l.label === 'action input')
  const observation = labels.find((l, j) => j > Math.max(action, input) && l.label === 'observation')
  return observation ? text.slice(0, observation.start).trimEnd() : text
}

/** The input without code fences; a JSON object inside prose is taken out of it. */
function actionInput(raw: string): string {
  const unfenced = raw
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```\s*$/, '')
    .trim()
  const start = unfenced.indexOf('{')
  const end = unfenced.lastIndexOf('}')
  return start >= 0 && end > start ? unfenced.slice(start, end + 1) : unfenced
}

/**
 * Arguments for a tool from an action input that is not a JSON object: a tool with a single
 * string property (`search`'s query, `read_page`'s url) takes the whole input as that property.
 */
export function coerceTextArgs(args: string, tool: ToolSpec | undefined): string {
  if (args.trim().startsWith('{') || !tool) return args
  const properties = tool.parameters.properties
  const names = properties && typeof properties === 'object' ? Object.keys(properties) : []
  if (names.length !== 1) return args
  const value = args.trim().replace(/^["'](.*)["']$/s, '$1')
  return JSON.stringify({ [names[0]!]: value })
}

/** The protocol explained to the model, with the tools it may use. */
export function textProtocolInstructions(tools: readonly ToolSpec[]): string {
  const list = tools.map((tool) => `- ${tool.name}: ${tool.description} Input: a JSON object matching ${JSON.stringify(tool.parameters)}`).join('\n')
  return `You can use these tools:
${list}

Reply in exactly this format, one action per reply:
Thought: what you need next
Action: the tool name
Action Input: the JSON input

You will get the Observation in the next message. When you can answer, reply:
Thought: why you can answer
Final Answer: the answer`
}
