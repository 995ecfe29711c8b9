import { LaconicError } from '../../core/contracts/laconic-error.js'
import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'
import { type ReactTool, type ReactToolSource, type RunnableTool, toolSources, userTools } from './tools.js'

export type { OpenToolSource, ReactTool, ReactToolSource } from './tools.js'

/** A call the `react` strategy is about to run, as callbacks see it. */
export interface ReactCall {
  callId: string
  name: string
  args: Record<string, unknown>
  /** 1, 2, ... */
  step: number
}

/** The sources a `react` answer may cite, for `finalAnswer`: each `[n]` the model saw. */
export interface ReactEvidence {
  sources: readonly { n: number; url: string; title?: string; read: boolean }[]
}

/** The `react` section of the agent's options. */
export interface ReactOptions {
  /** Tools of your own, beside the built-in `search` and `read_page`, and sources of tools each run opens (`mcpTools()`). */
  tools?: readonly (ReactTool | ReactToolSource)[]
  /** Model calls (think → act steps) at most; the last one must answer. @defaultValue 8 */
  maxSteps?: number
  /** Tool calls of one step run at once at most. @defaultValue 4 */
  concurrency?: number
  /** `native` tool calling (falls back to `text` when the server says it has none), or the `text` protocol (Thought / Action / Final Answer). @defaultValue 'native' */
  toolCalls?: 'native' | 'text'
  /** Past tool results are compacted into short notes once the prompt would pass this many tokens. @defaultValue 6000 */
  contextTokens?: number
  /** Characters of a tool result the model sees (a page is cut there). @defaultValue 3000 */
  resultChars?: number
  /** Times the same call (name and arguments) may be refused as a repeat before the loop stops and answers. @defaultValue 2 */
  maxRepeats?: number
  /** Answers the gate may reject before the last one is taken as it is. @defaultValue 2 */
  maxRejections?: number
  /** The tool names the model may call at a step (all by default). */
  activeTools?: (step: number, names: readonly string[]) => readonly string[]
  /** Sees each result; may replace the text the model gets. */
  afterTool?: (call: ReactCall, result: { ok: boolean; content: string }) => undefined | { content: string } | Promise<undefined | { content: string }>
  /**
   * Judges an answer: `true` (or nothing) accepts it, `{ reject }` sends the reason back to the
   * model. Replaces the default grounding gate, which rejects an answer that cites no source, or
   * a number that names none of the run's sources.
   */
  finalAnswer?: (answer: string, evidence: ReactEvidence) => undefined | boolean | { reject: string } | Promise<undefined | boolean | { reject: string }>
}

/** React's plain-data options, checked, with their defaults filled: what a checkpoint saves. */
export interface ReactLimits {
  maxSteps: number
  concurrency: number
  toolCalls: 'native' | 'text'
  contextTokens: number
  resultChars: number
  maxRepeats: number
  maxRejections: number
}

/** React's options, checked: the limits, the user's tools made runnable, and the hooks. */
export interface ReactSettings {
  limits: ReactLimits
  tools: RunnableTool[]
  /** Tool sources each run opens, and closes when it ends. */
  sources: ReactToolSource[]
  hooks: Pick<ReactOptions, (typeof HOOKS)[number]>
}

const HOOKS = ['activeTools', 'afterTool', 'finalAnswer'] as const
const FIELDS = ['tools', 'maxSteps', 'concurrency', 'toolCalls', 'contextTokens', 'resultChars', 'maxRepeats', 'maxRejections', ...HOOKS] as const

/** Checks the `react` section (a `config` error names the field) and fills its defaults. */
export function reactSettings(raw: unknown): ReactSettings {
  refuseReplaced(raw)
  const options = optionsSection(raw, 'react', FIELDS, { maxIterations: 'react.maxSteps' }) as Readonly<ReactOptions>
  const toolCalls = options.toolCalls ?? 'native'
  if (toolCalls !== 'native' && toolCalls !== 'text') {
    throw new LaconicError(`\`react.toolCalls\` must be 'native' or 'text', got ${String(toolCalls)}`, { code: 'config' })
  }
  if (options.tools !== undefined && !Array.isArray(options.tools)) throw new LaconicError('`react.tools` must be an array of tools', { code: 'config' })
  const hooks: ReactSettings['hooks'] = {}
  for (const hook of HOOKS) {
    const fn = options[hook]
    if (fn === undefined) continue
    if (typeof fn !== 'function') throw new LaconicError(`\`react.${hook}\` must be a function`, { code: 'config' })
    Object.assign(hooks, { [hook]: fn })
  }
  return {
    limits: {
      maxSteps: wholeNumberOption(options.maxSteps, 'react.maxSteps', 8, 1),
      concurrency: wholeNumberOption(options.concurrency, 'react.concurrency', 4, 1),
      toolCalls,
      contextTokens: wholeNumberOption(options.contextTokens, 'react.contextTokens', 6000, 500),
      resultChars: wholeNumberOption(options.resultChars, 'react.resultChars', 3000, 200),
      maxRepeats: wholeNumberOption(options.maxRepeats, 'react.maxRepeats', 2, 0),
      maxRejections: wholeNumberOption(options.maxRejections, 'react.maxRejections', 2, 0),
    },
    tools: userTools(options.tools),
    sources: toolSources(options.tools),
    hooks,
  }
}

/** Tool approval moved to the run's options, one contract with plan review (`review` and `decide`): the old fields are refused. */
const REPLACED: Readonly<Record<string, string>> = {
  needsApproval: 'the run option `review.tools`: agent.research(question, { review: { tools: true } }) (or a predicate of the call)',
  beforeTool:
    "the run options `review.tools` (which calls wait) and `decide` (the answer: { action: 'approve' }, { action: 'reject', reason }, { action: 'edit', args } or { action: 'pause' })",
}

function refuseReplaced(raw: unknown): void {
  if (typeof raw !== 'object' || raw === null) return
  for (const [old, now] of Object.entries(REPLACED)) {
    if ((raw as Record<string, unknown>)[old] !== undefined) throw new LaconicError(`\`react.${old}\` was replaced: use ${now}`, { code: 'config' })
  }
}
