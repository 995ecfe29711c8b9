/**
 * The tools of a `react` run: the built-in `search` and `read_page` beside the user's own,
 * their specs for the model, argument checks (JSON Schema, before anything runs), and the
 * redaction of sensitive fields in events.
 */
import { Validator } from '@cfworker/json-schema'
import { LaconicError } from '../../core/contracts/laconic-error.js'
import type { JsonSchema, ToolSpec } from '../../core/contracts/providers.js'

export const SEARCH = 'search'
export const READ_PAGE = 'read_page'

const searchSpec: ToolSpec = {
  name: SEARCH,
  description: 'Search the web. Returns numbered sources: [n] title, url, snippet.',
  parameters: { type: 'object', properties: { query: { type: 'string', minLength: 1, description: 'what to search for' } }, required: ['query'] },
}

const readPageSpec: ToolSpec = {
  name: READ_PAGE,
  description: 'Read a web page found by search and return its text (the passages that best match the question, for a long page). Cite it by its [n].',
  parameters: { type: 'object', properties: { url: { type: 'string', minLength: 1, description: 'the URL of a search result' } }, required: ['url'] },
}

/** A tool of your own for the `react` strategy. */
export interface ReactTool {
  /** Letters, digits, `_` and `-`; not `search` or `read_page` (the built-ins). */
  name: string
  description: string
  /** The arguments as a JSON Schema object; they are validated against it before `execute`. */
  parameters: JsonSchema
  /** Runs the tool; `signal` aborts when the run does. What it returns (text, or JSON) goes back to the model, bounded. */
  execute(args: Record<string, unknown>, options: { signal: AbortSignal }): unknown
  /** Each call waits for a decision, as the run's `review.tools` would make it: the `tool-call` request goes to the run's `decide`, or pauses the run (needs `checkpoints`) for `agent.resume(runId, { checkpoints, decision })`. */
  needsApproval?: boolean
  /** Argument fields shown as `[redacted]` in `tool-call` events. */
  sensitive?: readonly string[]
}

/**
 * Tools that exist only while a run has them open, such as an MCP server's (`mcpTools()` on
 * `laconic-research/mcp`): each run opens the source before its first step and closes it when
 * the run ends, however it ends (an abort too). Give it in `react.tools` beside your own tools.
 */
export interface ReactToolSource {
  /** Named in warnings (a source that cannot open, a tool of it that is not usable). */
  readonly name: string
  open(options: { signal: AbortSignal }): Promise<OpenToolSource>
}

/** An opened `ReactToolSource`: its tools for this run, and how to close it. */
export interface OpenToolSource {
  readonly tools: readonly ReactTool[]
  close(): Promise<void>
}

/** True for a tool source (it opens; a tool executes). */
export function isToolSource(item: unknown): item is ReactToolSource {
  return typeof item === 'object' && item !== null && typeof (item as ReactToolSource).open === 'function' && !('execute' in item)
}

/** A tool the loop can run: its spec, its checker, and the user's tool behind it (none for built-ins). */
export interface RunnableTool {
  spec: ToolSpec
  validate(args: Record<string, unknown>): string[]
  user?: ReactTool
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
/** Validation errors shown to the model, at most. */
const MAX_ERRORS = 5

function checker(schema: ToolSpec['parameters'], name: string): RunnableTool['validate'] {
  let validator: Validator
  try {
    validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], '2020-12', false)
  } catch (error) {
    throw new LaconicError(`react tool \`${name}\`: its parameters are not a usable JSON Schema (${(error as Error).message})`, { code: 'config' })
  }
  return (args) => {
    const result = validator.validate(args)
    if (result.valid) return []
    // The leaf errors say what is wrong; the ones about enclosing schemas repeat them.
    const leaves = result.errors.filter((e) => !['properties', 'allOf', 'anyOf', '$ref'].includes(e.keyword))
    return [...new Set((leaves.length ? leaves : result.errors).map((e) => `${e.instanceLocation.replace(/^#/, '') || '(arguments)'}: ${e.error}`))].slice(
      0,
      MAX_ERRORS,
    )
  }
}

/** Checks the user's tools once, when the strategy is made: a bad one is a `config` error then, not mid-run. */
export function userTools(tools: readonly (ReactTool | ReactToolSource)[] | undefined, seen = new Set<string>([SEARCH, READ_PAGE])): RunnableTool[] {
  return (tools ?? [])
    .filter((tool): tool is ReactTool => !isToolSource(tool))
    .map((tool) => {
      const name = tool?.name
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
        throw new LaconicError(`react tool name ${JSON.stringify(name)} is not usable`, { code: 'config', hint: 'use 1-64 letters, digits, `_` or `-`' })
      }
      if (seen.has(name)) throw new LaconicError(`react tool \`${name}\` is defined twice (or shadows a built-in)`, { code: 'config' })
      seen.add(name)
      if (typeof tool.execute !== 'function') throw new LaconicError(`react tool \`${name}\` has no execute function`, { code: 'config' })
      const parameters = tool.parameters ?? { type: 'object' }
      return { spec: { name, description: String(tool.description ?? ''), parameters }, validate: checker(parameters, name), user: tool }
    })
}

/** The built-ins the agent can back (search without a search provider is no tool). */
export function builtinTools(has: { search: boolean; fetch: boolean }): RunnableTool[] {
  const tools: RunnableTool[] = []
  if (has.search) tools.push({ spec: searchSpec, validate: checker(searchSpec.parameters, SEARCH) })
  if (has.fetch) tools.push({ spec: readPageSpec, validate: checker(readPageSpec.parameters, READ_PAGE) })
  return tools
}

/** The arguments as an event shows them: fields the tool marks sensitive become `[redacted]`. */
export function redactArgs(args: Record<string, unknown>, tool: RunnableTool | undefined): Record<string, unknown> {
  const sensitive = tool?.user?.sensitive
  if (!sensitive?.length) return args
  return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, sensitive.includes(key) ? '[redacted]' : value]))
}

/** One key per call, the same for the same name and arguments whatever their key order. */
export function callKey(name: string, args: Record<string, unknown>): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical)
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
      )
    }
    return value
  }
  return `${name} ${JSON.stringify(canonical(args))}`
}

/** The tool sources among `react.tools`, checked once when the strategy is made. */
export function toolSources(tools: readonly (ReactTool | ReactToolSource)[] | undefined): ReactToolSource[] {
  const sources = (tools ?? []).filter(isToolSource)
  for (const source of sources) {
    if (typeof source.name !== 'string' || !source.name) throw new LaconicError('a react tool source has no name', { code: 'config' })
  }
  return sources
}

/**
 * Opens a run's tool sources, all at once: their tools checked as the user's own are (a tool
 * that is not usable, or whose name is taken, is left out with a message), a source that
 * cannot open is a message too. `close` closes every source that opened.
 */
export async function openToolSources(
  sources: readonly ReactToolSource[],
  taken: Iterable<string>,
  signal: AbortSignal,
): Promise<{ tools: RunnableTool[]; problems: string[]; close: () => Promise<void> }> {
  const settled = await Promise.allSettled(sources.map((source) => source.open({ signal })))
  const opened = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
  const close = async () => {
    await Promise.allSettled(opened.map((source) => source.close()))
  }
  if (signal.aborted) {
    await close()
    throw signal.reason
  }
  const seen = new Set(taken)
  const tools: RunnableTool[] = []
  const problems: string[] = []
  settled.forEach((outcome, index) => {
    const name = sources[index]!.name
    if (outcome.status === 'rejected') {
      problems.push(`tool source ${name} could not open: ${outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)}`)
      return
    }
    for (const tool of outcome.value.tools) {
      try {
        tools.push(...userTools([tool], seen))
      } catch (error) {
        problems.push(`tool source ${name}: ${(error as Error).message}; left out`)
      }
    }
  })
  return { tools, problems, close }
}
