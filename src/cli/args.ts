/**
 * argv → a typed command. Pure (no env, no files): every problem is a `UsageError` naming
 * the flag and what it accepts.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { languageTag } from '../core/run/language.js'
import type { McpServerSpec } from '../mcp/mcp-tools.js'
import { sourceRules, type SourceFilter } from '../core/run/allowed-sources.js'
import { type EmbedFlags, embedFlags, KB_FLAGS } from './kb-flags.js'
import { UsageError } from './usage-error.js'
import { didYouMean } from './did-you-mean.js'

export const BACKENDS = ['ollama', 'openai', 'anthropic', 'local'] as const
export const SEARCHES = ['duckduckgo', 'brave', 'tavily', 'searxng', 'local', 'arxiv', 'openalex', 'semanticscholar', 'pubmed', 'wikipedia'] as const
export const FORMATS = ['pretty', 'ndjson', 'json'] as const
export const VERIFY_MODES = ['annotate', 'revise'] as const
/**
 * The words that start a command of their own (`laconic mcp ...`): dispatched on the first
 * argument only, so one found after flags is refused rather than asked as the question.
 */
export const SUBCOMMANDS = ['mcp', 'index', 'kb', 'worker', 'serve', 'eval'] as const

export type Backend = (typeof BACKENDS)[number]
export type SearchName = (typeof SEARCHES)[number]
/** One provider of `--search`: its name, and the language edition of `wikipedia:LANG`. */
export interface SearchChoice {
  name: SearchName
  lang?: string
}
export type Format = (typeof FORMATS)[number]

/** The port `--serve` listens on when none follows it. */
export const DEFAULT_SERVE_PORT = 3000

export interface CliOptions {
  /** The question as words on the command line (joined with spaces). */
  words: string[]
  /** A file holding the question (`-` reads stdin). */
  prompt?: string
  /** `--var KEY=VALUE` substitutions of `{{KEY}}`. */
  vars: Record<string, string>
  backend: Backend
  model?: string
  endpoint?: string
  apiKey?: string
  strategy?: string
  maxSteps?: number
  concurrency?: number
  /** `--search NAME[,NAME...]`: one provider, or several searched together (`combineSearch`). */
  search: readonly SearchChoice[]
  braveKey?: string
  tavilyKey?: string
  searxngUrl?: string
  corpus?: string
  /** `--kb PATH`: search this knowledge base, alone or (with `--search`) beside the web. */
  kb?: { path: string; web: boolean }
  /** `--embed-*`: the embedder of the knowledge base and of `--memory`, when not the one each recorded. */
  embed: EmbedFlags
  /** `--memory PATH`: long-term memory in this LanceDB folder (created on first use). */
  memory?: string
  fetch: boolean
  /** `--browser`: a page whose text its scripts write is read again in headless Chromium (`browserFetch`). */
  browser: boolean
  /** `--price IN,OUT`: dollars per million input and output tokens of the model. */
  price?: { inputPerMillion: number; outputPerMillion: number }
  /** `--max-cost DOLLARS`: the run's budget. */
  maxCost?: number
  /** `--verify [annotate|revise]`: check each cited sentence against its sources (and rewrite without the unsupported ones). */
  verify?: (typeof VERIFY_MODES)[number]
  /** `--allow`, `--deny`, `--after`, `--before`: which sources count. */
  sources?: SourceFilter
  /** `--mcp "CMD ARGS"` or `--mcp URL` (repeatable): MCP servers whose tools `react` may call. */
  mcp?: McpServerSpec[]
  /** `--language TAG`: research and answer in this language (BCP 47). */
  language?: string
  /** `--output FILE`: also write the answer (or report) and its sources there: `.md`, `.html`, `.docx` or `.pdf` by the extension (Markdown for any other). */
  output?: string
  /** react: ask on the terminal before each tool call. */
  toolApproval?: boolean
  knowledge?: string
  format: Format
  /** Set by `--serve [PORT]`: serve runs over SSE instead of running one question. */
  servePort?: number
  debug: boolean
  /** Save a checkpoint after each step in this folder (`laconic resume RUN_ID` continues the run). */
  checkpointDir?: string
  /** Show the plan on the terminal and ask to run it, edit its queries, or stop. */
  approvePlan: boolean
  /** `laconic resume RUN_ID`: continue that run from its checkpoint instead of asking a question. */
  resume?: string
  /** `laconic resume RUN_ID --approve [--tool-args JSON] | --reject [REASON] | --plan-file FILE | --query Q`: the answer to a paused run. */
  decision?: ResumeDecision
}

/**
 * What `laconic resume` tells a paused run: run what waits (`approve`, a tool call with other
 * arguments when given), refuse it (`reject`: a tool call's reason goes to the model; a plan ends the run), or
 * run these queries instead of the saved plan.
 */
export type ResumeDecision =
  | { kind: 'approve'; toolArgs?: Record<string, unknown> }
  | { kind: 'reject'; reason?: string }
  | { kind: 'plan'; planFile?: string; queries: string[] }

export type CliCommand = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; options: CliOptions }

const OPTIONS = {
  prompt: { type: 'string' },
  var: { type: 'string', multiple: true },
  backend: { type: 'string' },
  model: { type: 'string', short: 'm' },
  endpoint: { type: 'string' },
  'api-key': { type: 'string' },
  strategy: { type: 'string', short: 's' },
  'max-steps': { type: 'string' },
  concurrency: { type: 'string' },
  search: { type: 'string' },
  'brave-key': { type: 'string' },
  'tavily-key': { type: 'string' },
  'searxng-url': { type: 'string' },
  corpus: { type: 'string' },
  ...KB_FLAGS,
  memory: { type: 'string' },
  'no-fetch': { type: 'boolean' },
  browser: { type: 'boolean' },
  price: { type: 'string' },
  'max-cost': { type: 'string' },
  verify: { type: 'string' },
  language: { type: 'string' },
  mcp: { type: 'string', multiple: true },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  after: { type: 'string' },
  before: { type: 'string' },
  output: { type: 'string', short: 'o' },
  'tool-approval': { type: 'boolean' },
  knowledge: { type: 'string' },
  format: { type: 'string', short: 'f' },
  serve: { type: 'string' },
  debug: { type: 'boolean' },
  'checkpoint-dir': { type: 'string' },
  'approve-plan': { type: 'boolean' },
  approve: { type: 'boolean' },
  reject: { type: 'string' },
  'plan-file': { type: 'string' },
  query: { type: 'string', multiple: true },
  'tool-args': { type: 'string' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

export const FLAG_NAMES: readonly string[] = Object.keys(OPTIONS)

/**
 * Flags whose value is optional, which `parseArgs` cannot express: `--serve [PORT]` and
 * `--reject [REASON]`. Each is rewritten to `--flag=VALUE`, taking the next token when it fits
 * (a number for `--serve`, anything but a flag for `--reject`), else the flag's default.
 */
const OPTIONAL_VALUES: Record<string, { takes: (token: string) => boolean; fallback: string }> = {
  '--serve': { takes: (token) => /^\d+$/.test(token), fallback: String(DEFAULT_SERVE_PORT) },
  '--reject': { takes: (token) => !token.startsWith('-'), fallback: '' },
  '--verify': { takes: (token) => (VERIFY_MODES as readonly string[]).includes(token), fallback: 'annotate' },
}

function normalizeOptionalValues(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string
    if (token === '--') {
      out.push(...argv.slice(i))
      break
    }
    const optional = OPTIONAL_VALUES[token]
    if (!optional) {
      out.push(token)
      continue
    }
    const next = argv[i + 1]
    if (next !== undefined && optional.takes(next)) {
      out.push(`${token}=${next}`)
      i++
    } else out.push(`${token}=${optional.fallback}`)
  }
  return out
}

/** `--modle` → ` (did you mean --model?)`, when one flag is close enough. */
function suggestion(flag: string): string {
  return didYouMean(flag.replace(/^-+/, '').split('=')[0] ?? '', FLAG_NAMES, '--')
}

/** Flags that were renamed, and the name to use now (no silent aliases). */
const RENAMED_FLAGS: Readonly<Record<string, string>> = { 'max-iterations': 'max-steps', 'graph-max-steps': 'max-steps' }

function translateParseError(error: unknown): UsageError {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1] ?? message
    const renamed = RENAMED_FLAGS[flag.replace(/^-+/, '').split('=')[0] ?? '']
    if (renamed) return new UsageError(`${flag} was renamed: use --${renamed}`)
    return new UsageError(`unknown option ${flag}${suggestion(flag)}; see laconic --help`)
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /(--[\w-]+)/.exec(message)?.[1]
    return new UsageError(flag ? `${flag} needs a value; see laconic --help` : message)
  }
  return new UsageError(message)
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}; got "${value}"${didYouMean(value, allowed)}`)
}

/** A Wikipedia language code as `wikipedia:LANG` takes it (`de`, `simple`, `zh-yue`). */
const WIKIPEDIA_LANG = /^[a-z][a-z0-9]{1,11}(?:-[a-z0-9]{1,12}){0,2}$/

/**
 * `--search NAME[,NAME...]`: each name once, `wikipedia:LANG` for another Wikipedia, `local`
 * alone (it is the corpus, read offline).
 */
function searchChoices(value: string | undefined, fallback: SearchName): SearchChoice[] {
  if (value === undefined) return [{ name: fallback }]
  const items = value.split(',').map((item) => item.trim())
  if (items.some((item) => item === '')) throw new UsageError(`--search takes names separated by commas, e.g. arxiv,wikipedia; got "${value}"`)
  const choices = items.map((item): SearchChoice => {
    const [name = '', lang, ...rest] = item.split(':')
    const known = SEARCHES.find((candidate) => candidate === name.toLowerCase())
    if (!known) throw new UsageError(`--search must name ${SEARCHES.join(', ')}; got "${name}"${didYouMean(name, SEARCHES)}`)
    if (lang === undefined) return { name: known }
    if (known !== 'wikipedia') throw new UsageError(`--search ${item}: only wikipedia takes a language (wikipedia:de)`)
    if (rest.length > 0 || !WIKIPEDIA_LANG.test(lang.toLowerCase())) {
      throw new UsageError(`--search ${item}: the language must be a Wikipedia language code, e.g. wikipedia:de or wikipedia:zh-yue`)
    }
    return { name: known, lang: lang.toLowerCase() }
  })
  const keys = choices.map((choice) => `${choice.name}:${choice.lang ?? 'en'}`)
  const twice = keys.find((key, index) => keys.indexOf(key) !== index)
  if (twice !== undefined) throw new UsageError(`--search names ${twice.replace(/:en$/, '')} twice`)
  if (choices.length > 1 && choices.some((choice) => choice.name === 'local')) {
    throw new UsageError('--search local searches the --corpus folder offline, so it cannot be combined with other providers')
  }
  return choices
}

function wholeNumber(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`--${flag} must be a whole number >= ${min}; got "${value}"`)
  }
  return n
}

function parseVars(pairs: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const key = eq > 0 ? pair.slice(0, eq).trim() : ''
    if (!key) throw new UsageError(`--var expects KEY=VALUE; got "${pair}"`)
    vars[key] = pair.slice(eq + 1)
  }
  return vars
}

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && !value.trim()) throw new UsageError(`--${flag} is empty`)
  return value
}

const parseOptions = (args: string[]) => parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true })

/**
 * Go's flag package takes `-model x`; here that would read as `-m odel` and silently run another
 * model. A single dash before a long flag's name is refused with the flag it meant.
 */
function refuseSingleDashLongFlags(argv: readonly string[]): void {
  for (const token of argv) {
    if (token === '--') return
    const name = /^-([a-z][a-z-]+)(?:=.*)?$/i.exec(token)?.[1]
    if (name === undefined) continue
    if (FLAG_NAMES.includes(name)) throw new UsageError(`unknown option ${token.split('=')[0]} (did you mean --${name}?)`)
    const hint = suggestion(name)
    if (hint) throw new UsageError(`unknown option ${token.split('=')[0]}${hint}`)
  }
}

export function parseCliArgs(argv: readonly string[]): CliCommand {
  refuseSingleDashLongFlags(argv)
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(normalizeOptionalValues(argv))
  } catch (error) {
    throw translateParseError(error)
  }
  const { values, positionals } = parsed
  if (values.help) return { kind: 'help' }
  if (values.version) return { kind: 'version' }

  const corpus = nonEmpty('corpus', values.corpus)
  const search = searchChoices(values.search, corpus !== undefined ? 'local' : 'duckduckgo')
  const local = search.some((choice) => choice.name === 'local')
  if (corpus !== undefined && !local) {
    throw new UsageError(`--corpus searches a local folder, so it cannot be combined with --search ${values.search}`)
  }
  const kb = nonEmpty('kb', values.kb)
  if (kb !== undefined && local) throw new UsageError('--kb and --corpus both search local documents: give one of them')
  if (local && corpus === undefined) throw new UsageError('--search local needs --corpus DIR (a folder of .md, .txt, .html, .pdf or .docx files)')
  if (values.browser && values['no-fetch']) throw new UsageError('--browser reads pages, and --no-fetch reads none: give one of them')
  if (values.browser && (local || (kb !== undefined && values.search === undefined))) {
    throw new UsageError('--browser reads web pages, and this run reads only local documents: drop --browser, or add --search')
  }
  if (values.serve !== undefined && (positionals.length > 0 || values.prompt !== undefined)) {
    throw new UsageError('--serve asks its questions on the live page: give no question with it')
  }
  const subcommand = SUBCOMMANDS.find((name) => name === positionals[0])
  if (subcommand !== undefined) {
    throw new UsageError(
      `${subcommand} is a command: put it first (laconic ${subcommand} [options]); to ask a question that starts with "${subcommand}", quote the question`,
    )
  }
  if (values.prompt !== undefined && positionals.length > 0) {
    throw new UsageError('give the question either as words or with --prompt FILE, not both')
  }

  const options: CliOptions = {
    words: positionals,
    prompt: nonEmpty('prompt', values.prompt),
    vars: parseVars(values.var ?? []),
    backend: oneOf('backend', values.backend, BACKENDS, 'ollama'),
    model: nonEmpty('model', values.model),
    endpoint: nonEmpty('endpoint', values.endpoint),
    apiKey: nonEmpty('api-key', values['api-key']),
    strategy: values.mcp?.length && values.strategy === undefined ? 'react' : nonEmpty('strategy', values.strategy),
    maxSteps: wholeNumber('max-steps', values['max-steps'], 1),
    concurrency: wholeNumber('concurrency', values.concurrency, 1),
    search,
    braveKey: nonEmpty('brave-key', values['brave-key']),
    tavilyKey: nonEmpty('tavily-key', values['tavily-key']),
    searxngUrl: nonEmpty('searxng-url', values['searxng-url']),
    corpus,
    ...(kb !== undefined ? { kb: { path: kb, web: values.search !== undefined } } : {}),
    embed: { ...embedFlags(values), ...(values.endpoint ? { modelEndpoint: { backend: values.backend ?? 'ollama', endpoint: values.endpoint } } : {}) },
    memory: nonEmpty('memory', values.memory),
    fetch: !values['no-fetch'],
    browser: values.browser ?? false,
    price: price(values.price),
    maxCost: dollars('max-cost', values['max-cost']),
    ...(values.verify !== undefined ? { verify: oneOf('verify', values.verify, VERIFY_MODES, 'annotate') } : {}),
    ...sourceFlags(values),
    ...(values.mcp?.length ? { mcp: mcpServers(values.mcp, values.strategy) } : {}),
    ...(values.language !== undefined ? { language: languageFlag(values.language) } : {}),
    output: nonEmpty('output', values.output),
    toolApproval: values['tool-approval'] ?? false,
    knowledge: nonEmpty('knowledge', values.knowledge),
    format: oneOf('format', values.format, FORMATS, 'pretty'),
    servePort: values.serve === undefined ? undefined : servePort(values.serve),
    debug: values.debug ?? false,
    checkpointDir: nonEmpty('checkpoint-dir', values['checkpoint-dir']),
    approvePlan: values['approve-plan'] ?? false,
  }
  // The page answers a paused run (a plan, a tool call) from the run's checkpoint.
  if (options.servePort !== undefined && (options.approvePlan || options.toolApproval) && options.checkpointDir === undefined) {
    throw new UsageError(
      `${options.approvePlan ? '--approve-plan' : '--tool-approval'} with --serve needs --checkpoint-dir DIR: the page answers the paused run from its checkpoint`,
    )
  }
  // `laconic resume RUN_ID`: two words exactly, so a question that starts with "resume" (one
  // quoted argument, or more words) is still a question.
  const decision = resumeDecision(values)
  if (positionals[0] === 'resume' && positionals.length === 2) {
    return { kind: 'run', options: { ...resumeOptions(options, positionals[1] as string, values), ...(decision ? { decision } : {}) } }
  }
  if (decision) throw new UsageError('--approve, --reject, --tool-args, --plan-file and --query answer a paused run: give them to laconic resume RUN_ID')
  return { kind: 'run', options }
}

function dollars(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value.trim().replace(/^\$/, ''))
  if (!value.trim() || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be an amount of dollars above 0; got "${value}"`)
  return n
}

function price(value: string | undefined): CliOptions['price'] {
  if (value === undefined) return undefined
  const parts = value.split(',').map((part) => Number(part.trim().replace(/^\$/, '')))
  const [input, output] = parts
  if (
    parts.length !== 2 ||
    !value.includes(',') ||
    input === undefined ||
    output === undefined ||
    ![input, output].every((n) => Number.isFinite(n) && n >= 0)
  ) {
    throw new UsageError(`--price expects IN,OUT in dollars per million tokens (e.g. 0.15,0.60); got "${value}"`)
  }
  return { inputPerMillion: input, outputPerMillion: output }
}

/** Flags that describe a new run: a resumed run takes its question, strategy and options from its checkpoint. */
const NEW_RUN_FLAGS = ['prompt', 'var', 'strategy', 'max-steps', 'concurrency', 'knowledge', 'approve-plan', 'serve'] as const

function resumeOptions(options: CliOptions, runId: string, values: Record<string, unknown>): CliOptions {
  if (options.checkpointDir === undefined) throw new UsageError('laconic resume RUN_ID needs --checkpoint-dir DIR (where the run saved its checkpoints)')
  const given = NEW_RUN_FLAGS.filter((flag) => values[flag] !== undefined && values[flag] !== false)
  if (given.length) {
    throw new UsageError(`laconic resume takes the question, strategy and its options from the checkpoint; drop ${given.map((f) => `--${f}`).join(', ')}`)
  }
  return { ...options, words: [], resume: runId }
}

/** The decision flags of `laconic resume`, checked against each other (whether they fit the paused run is known once its checkpoint is read). */
function resumeDecision(values: {
  approve?: boolean
  reject?: string
  'plan-file'?: string
  query?: string[]
  'tool-args'?: string
}): ResumeDecision | undefined {
  const planFile = nonEmpty('plan-file', values['plan-file'])
  const queries = (values.query ?? []).map((q) => q.trim())
  if (queries.some((q) => !q)) throw new UsageError('--query is empty')
  const editsPlan = planFile !== undefined || queries.length > 0
  const toolArgs = values['tool-args'] === undefined ? undefined : jsonObject('tool-args', values['tool-args'])
  if (values.reject !== undefined && (values.approve || editsPlan || toolArgs)) {
    throw new UsageError('--reject refuses what waits: it cannot be given with --approve, --tool-args, --plan-file or --query')
  }
  if (toolArgs && editsPlan) throw new UsageError('--tool-args answers a tool call and --plan-file/--query a plan: give one or the other')
  if (values.reject !== undefined) return { kind: 'reject', ...(values.reject.trim() ? { reason: values.reject.trim() } : {}) }
  // An edited plan, or a call's edited arguments, is an approval of it: --approve beside it changes nothing.
  if (editsPlan) return { kind: 'plan', ...(planFile !== undefined ? { planFile } : {}), queries }
  if (toolArgs) return { kind: 'approve', toolArgs }
  return values.approve ? { kind: 'approve' } : undefined
}

function jsonObject(flag: string, value: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw new UsageError(`--${flag} must be a JSON object, e.g. '{"query":"..."}'; got ${JSON.stringify(value.slice(0, 80))}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--${flag} must be a JSON object, e.g. '{"query":"..."}'`)
  return parsed as Record<string, unknown>
}

function servePort(value: string): number {
  const port = wholeNumber('serve', value || String(DEFAULT_SERVE_PORT), 0) as number
  if (port > 65535) throw new UsageError(`--serve port must be at most 65535; got ${port}`)
  return port
}

/** `--allow`/`--deny` (repeatable, or comma-separated) and `--after`/`--before` as the run's `sources`, checked as the agent checks them. */
function sourceFlags(values: { allow?: string[] | undefined; deny?: string[] | undefined; after?: string | undefined; before?: string | undefined }): {
  sources?: SourceFilter
} {
  const domains = (list: string[] | undefined) =>
    list
      ?.flatMap((item) => item.split(','))
      .map((item) => item.trim())
      .filter(Boolean)
  const allow = domains(values.allow)
  const deny = domains(values.deny)
  const sources: SourceFilter = {
    ...(allow?.length ? { allow } : {}),
    ...(deny?.length ? { deny } : {}),
    ...(values.after !== undefined ? { after: values.after } : {}),
    ...(values.before !== undefined ? { before: values.before } : {}),
  }
  if (Object.keys(sources).length === 0) return {}
  try {
    sourceRules(sources)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new UsageError(message.replace(/`sources\.(\w+)`/g, '--$1'))
  }
  return { sources }
}

/** `--language TAG` as a canonical BCP 47 tag. */
function languageFlag(value: string): string {
  try {
    return languageTag(value) as string
  } catch {
    throw new UsageError(`--language must be a BCP 47 language tag (de, fr, pt-BR), got ${JSON.stringify(value)}`)
  }
}

/** A command line as words: spaces split, quotes (' or ") group, a backslash escapes the next character. */
export function commandWords(line: string): string[] {
  const words: string[] = []
  let word = ''
  let quote: string | undefined
  let started = false
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === '\\' && i + 1 < line.length && quote !== "'") {
      word += line[++i]
      started = true
    } else if (quote) {
      if (char === quote) quote = undefined
      else word += char
    } else if (char === '"' || char === "'") {
      quote = char
      started = true
    } else if (/\s/.test(char)) {
      if (started) words.push(word)
      word = ''
      started = false
    } else {
      word += char
      started = true
    }
  }
  if (quote) throw new UsageError(`--mcp ${JSON.stringify(line)} has an unclosed quote`)
  if (started) words.push(word)
  return words
}

/** `--mcp` values as servers: a URL is a Streamable HTTP endpoint, anything else a command line (stdio). Only `react` calls tools. */
function mcpServers(values: readonly string[], strategy: string | undefined): McpServerSpec[] {
  if (strategy !== undefined && strategy !== 'react')
    throw new UsageError(`--mcp gives tools to the react strategy: drop --strategy ${strategy} or use -s react`)
  return values.map((value) => {
    if (/^https?:\/\//i.test(value.trim())) return { url: value.trim() }
    const [command, ...args] = commandWords(value)
    if (!command) throw new UsageError('--mcp needs a command line ("npx -y some-mcp-server") or a URL')
    return { command, args }
  })
}
