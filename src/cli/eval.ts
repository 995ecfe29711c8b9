/**
 * `laconic eval DATASET --out DIR [flags]`: every question of DATASET under each strategy × model
 * given, with the usual model and search flags, graded, appended to DIR/results.jsonl (a second
 * run resumes), summarized on stdout and in DIR/report.html. `laconic eval compare A B` compares
 * two result folders; `laconic eval report DIR` writes the summary and report again.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { localCorpus } from '../adapters/index.js'
import type { AgentOptions } from '../agent.js'
import type { FetchProvider, LLMProvider, SearchProvider } from '../core/contracts/providers.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { openCassette, type CassetteMode } from '../eval/cassette.js'
import { compareResults, comparisonText } from '../eval/compare.js'
import type { ColumnMapping, DatasetFormat } from '../eval/formats.js'
import { type EvalConfig, type EvalEvent, evaluate } from '../eval/evaluate.js'
import { htmlReport } from '../eval/html-report.js'
import { readDataset } from '../eval/read-dataset.js'
import { readResults } from '../eval/results-file.js'
import { summarize, summaryText } from '../eval/summary.js'
import { strategyNames } from '../index.js'
import { agentOptions } from './agent-options.js'
import { type CliOptions, parseCliArgs } from './args.js'
import { configuredProviders } from './build-agent.js'
import { EXIT } from './exit-codes.js'
import type { CliIO } from './io.js'
import { buildLLM } from './llm.js'
import type { Output } from './render/index.js'
import { UsageError } from './usage-error.js'
import { count } from './plural.js'

export const EVAL_HELP = `laconic eval: accuracy, evidence and cost of research configurations on a question set

  laconic eval DATASET --out DIR [flags]     run every question under each configuration; a second
                                             run with the same DIR resumes where the first stopped
  laconic eval compare DIR_A DIR_B           per-question differences and McNemar's exact test
  laconic eval report DIR                    print the summary and write DIR/report.html again

Dataset:
  DATASET                    .jsonl rows {id, question, answers, evidence?, tags?}; SimpleQA .csv;
                             FRAMES .tsv/.csv; HotpotQA .json (its paragraphs become the corpus
                             unless --search, --corpus or --kb is given)
  --dataset-format NAME      jsonl | simpleqa | frames | hotpotqa | csv (default: from name and header)
  --map K=COL,...            columns of another CSV/JSONL: question=,answers=,id=,evidence=,tags=,separator=
  --limit N                  only the first N questions

Configurations (every strategy × every model):
  --strategies A,B           strategies to compare (default: --strategy, or scratchpad)
  --models M1,M2             models of --backend to compare (default: --model)
  --vary FLAG=V1,V2          one configuration per value of any laconic flag, e.g. --vary max-steps=2,5
                             (repeatable: every combination)
  --grader-model NAME        grade with SimpleQA's three grades on this model (not one under test);
  --grader-backend NAME      its backend (default --backend) and --grader-endpoint URL
  --grader-endpoint URL      without a grader, an answer is correct when it contains an accepted answer

Running:
  --parallel N               questions at once (default 2)
  --max-cost DOLLARS         for the whole DIR (finished rows count): no question starts that could pass it
  --cassette DIR             record every search, page and model call in DIR, and replay what is there
  --replay                   only replay from --cassette: no network, no model server; a request it
                             lacks is an error naming it
  --record                   call every provider and record again (default: record what is missing)
  --no-record-models         record searches and pages only: the models answer live

Every other flag (--backend, --endpoint, --search, --corpus, --no-fetch, --max-steps, ...) is laconic's.
`

interface EvalFlags {
  out?: string
  datasetFormat?: string
  map?: string
  strategies?: string
  models?: string
  graderModel?: string
  graderBackend?: string
  graderEndpoint?: string
  cassette?: string
  mode?: CassetteMode
  recordModels: boolean
  /** `--vary FLAG=V1,V2`: one configuration per value (repeatable: every combination). */
  vary: string[]
  parallel?: string
  limit?: string
}

const VALUE_FLAGS: Record<string, keyof EvalFlags> = {
  '--out': 'out',
  '--dataset-format': 'datasetFormat',
  '--map': 'map',
  '--strategies': 'strategies',
  '--models': 'models',
  '--grader-model': 'graderModel',
  '--grader-backend': 'graderBackend',
  '--grader-endpoint': 'graderEndpoint',
  '--cassette': 'cassette',
  '--parallel': 'parallel',
  '--limit': 'limit',
}
const MODES: Record<string, CassetteMode> = { '--replay': 'replay', '--record': 'record', '--record-missing': 'record-missing' }

/** The eval's own flags, taken out so the shared parser sees only laconic's. */
function takeEvalFlags(argv: readonly string[]): { flags: EvalFlags; rest: string[] } {
  const flags: EvalFlags = { recordModels: true, vary: [] }
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string
    if (token === '--') {
      rest.push(...argv.slice(i))
      break
    }
    const mode = MODES[token]
    if (mode) {
      if (flags.mode && flags.mode !== mode) throw new UsageError('give one of --replay, --record and --record-missing')
      flags.mode = mode
      continue
    }
    if (token === '--no-record-models') {
      flags.recordModels = false
      continue
    }
    if (token === '--vary' || token.startsWith('--vary=')) {
      const value = token === '--vary' ? argv[++i] : token.slice('--vary='.length)
      if (!value || !/^[a-z][a-z-]*=[^,]/.test(value))
        throw new UsageError('--vary takes FLAG=V1,V2 (a laconic flag without its dashes), e.g. --vary max-steps=2,5')
      flags.vary.push(value)
      continue
    }
    const name = Object.keys(VALUE_FLAGS).find((flag) => token === flag || token.startsWith(`${flag}=`))
    if (!name) {
      rest.push(token)
      continue
    }
    const value = token === name ? argv[++i] : token.slice(name.length + 1)
    if (value === undefined || value === '' || (token === name && value.startsWith('-'))) throw new UsageError(`${name} needs a value`)
    ;(flags as unknown as Record<string, string>)[VALUE_FLAGS[name] as string] = value
  }
  return { flags, rest }
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
}

function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} must be a whole number >= 1; got "${value}"`)
  return number
}

function mapping(value: string | undefined): ColumnMapping | undefined {
  if (value === undefined) return undefined
  const fields: Record<string, string> = {}
  for (const pair of value.split(',')) {
    const [key, ...column] = pair.split('=')
    const name = (key ?? '').trim()
    if (!['question', 'answers', 'id', 'evidence', 'tags', 'separator'].includes(name) || column.length === 0) {
      throw new UsageError(`--map takes KEY=COLUMN pairs (question, answers, id, evidence, tags, separator); got "${pair}"`)
    }
    fields[name] = column.join('=')
  }
  if (!fields.question || !fields.answers) throw new UsageError('--map needs question=COLUMN and answers=COLUMN')
  return fields as unknown as ColumnMapping
}

/**
 * The option sets of `--vary FLAG=V1,V2 ...`: every combination of the values, each parsed as
 * laconic's flags (`--FLAG V`) after the others, so it is checked as they are. No `--vary`: one set.
 */
function variants(vary: readonly string[], rest: readonly string[]): { label: string; options: CliOptions }[] {
  let combos: { label: string[]; args: string[] }[] = [{ label: [], args: [] }]
  for (const spec of vary) {
    const [flag, values = ''] = spec.split(/=(.*)/s)
    combos = combos.flatMap((combo) =>
      list(values).map((value) => ({ label: [...combo.label, `${flag}=${value}`], args: [...combo.args, `--${flag}`, value] })),
    )
  }
  return combos.map((combo) => {
    const parsed = parseCliArgs([...rest, ...combo.args])
    if (parsed.kind !== 'run') throw new UsageError(`--vary ${combo.label.join(' ')}: not an option of a run`)
    return { label: combo.label.join(' '), options: parsed.options }
  })
}

/** A model that is never called: what replay-only mode gives the agent, so no server is needed. */
function replayOnlyModel(model: string, options: CliOptions): LLMProvider {
  // As the recording's model was: on this machine (priced 0 when not in the price table) or not.
  const local = options.backend === 'ollama' || options.backend === 'local' || /^(https?:\/\/)?(localhost|127\.|\[::1\])/.test(options.endpoint ?? '')
  return {
    model,
    local,
    // biome-ignore lint/correctness/useYield: it never streams; the cassette answers instead.
    async *stream() {
      throw new LaconicError(`--replay: model ${model} is not called`, { code: 'config' })
    },
  }
}
const replayOnlySearch: SearchProvider & FetchProvider = {
  search: () => Promise.reject(new LaconicError('--replay: search is not called', { code: 'config' })),
  fetch: () => Promise.reject(new LaconicError('--replay: pages are not read', { code: 'config' })),
}

/** Redraws one status line on a terminal; elsewhere a line every 10 rows. */
function progress(stderr: Output): { row(event: Extract<EvalEvent, { type: 'row-end' }>, correct: number): void; done(): void } {
  const tty = stderr.isTTY === true
  let drawn = false
  return {
    row(event, correct) {
      const width = 24
      const filled = Math.round((event.done / Math.max(1, event.total)) * width)
      const line = `eval [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${event.done}/${event.total} · accuracy ${((correct / Math.max(1, event.done)) * 100).toFixed(1)}% · $${event.spent.toFixed(4)}`
      if (tty) {
        stderr.write(`\r\u001b[2K${line}`)
        drawn = true
      } else if (event.done % 10 === 0 || event.done === event.total) stderr.write(`laconic: ${line}\n`)
    },
    done() {
      if (drawn) stderr.write('\r\u001b[2K')
    },
  }
}

async function writeReport(out: string, title: string): Promise<string> {
  const rows = await readResults(out)
  await writeFile(join(out, 'report.html'), htmlReport(rows, { title }))
  const text = summaryText(summarize(rows))
  await writeFile(join(out, 'summary.txt'), text)
  return text
}

async function compareCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const [a, b, ...extra] = argv
  if (!a || !b || extra.length) throw new UsageError('laconic eval compare takes two result folders: laconic eval compare DIR_A DIR_B')
  const [rowsA, rowsB] = await Promise.all([readResults(a), readResults(b)])
  if (!rowsA.length || !rowsB.length) throw new UsageError(`no results in ${!rowsA.length ? a : b} (a folder laconic eval --out wrote)`)
  io.stdout.write(comparisonText(compareResults(rowsA, rowsB), { a, b }))
  return EXIT.answered
}

async function runEval(argv: readonly string[], io: CliIO): Promise<number> {
  const { flags, rest } = takeEvalFlags(argv)
  const command = parseCliArgs(rest)
  if (command.kind === 'help') {
    io.stdout.write(EVAL_HELP)
    return EXIT.answered
  }
  if (command.kind === 'version') throw new UsageError('laconic eval takes no --version; run laconic --version')
  const options: CliOptions = command.options
  const [datasetPath, ...extra] = options.words
  if (!datasetPath || extra.length) throw new UsageError('laconic eval needs one dataset file: laconic eval DATASET --out DIR (see laconic eval --help)')
  if (!flags.out) throw new UsageError('laconic eval needs --out DIR, the folder its results go to (and resume from)')
  if (flags.mode && !flags.cassette) throw new UsageError('--replay, --record and --record-missing need --cassette DIR')
  const format = flags.datasetFormat as DatasetFormat | undefined
  if (format && !['jsonl', 'simpleqa', 'frames', 'hotpotqa', 'csv'].includes(format)) {
    throw new UsageError(`--dataset-format must be one of jsonl, simpleqa, frames, hotpotqa, csv; got "${format}"`)
  }
  const columns = mapping(flags.map)
  const dataset = await readDataset(datasetPath, { ...(format ? { format } : {}), ...(columns ? { mapping: columns } : {}) }).catch((error: Error) => {
    throw new UsageError(`${datasetPath}: ${error.message}`)
  })
  for (const problem of dataset.problems) io.stderr.write(`laconic: ${datasetPath} line ${problem.line}: ${problem.message} (skipped)\n`)
  const limit = wholeNumber('--limit', flags.limit)
  const rows = limit ? dataset.rows.slice(0, limit) : dataset.rows
  if (rows.length === 0) throw new UsageError(`${datasetPath}: no question to run`)

  const known = strategyNames()
  const strategies = list(flags.strategies).length ? list(flags.strategies) : [options.strategy ?? 'scratchpad']
  for (const name of strategies) if (!known.includes(name)) throw new UsageError(`unknown strategy "${name}": choose from ${known.join(', ')}`)
  const replayOnly = flags.mode === 'replay'
  const models = list(flags.models).length ? list(flags.models) : options.model ? [options.model] : []
  if (replayOnly && models.length === 0) throw new UsageError('--replay needs the model names the cassette was recorded with: --models M1,M2 or -m NAME')
  const explicitSources = rest.some((token) => /^--(search|corpus|kb)(=|$)/.test(token))
  const corpus = dataset.documents?.length && !explicitSources ? localCorpus({ documents: dataset.documents }) : undefined
  if (corpus) io.stderr.write(`laconic: searching the ${count(dataset.documents?.length ?? 0, 'document')} that come with ${datasetPath}\n`)
  // The eval's budget is --max-cost; each run's own budget is not set.
  const budget = options.maxCost
  const runOptions: CliOptions = { ...options, maxCost: undefined, words: [] }

  const configs: EvalConfig[] = []
  for (const variant of variants(flags.vary, rest)) {
    const base: CliOptions = { ...variant.options, maxCost: undefined, words: [] }
    for (const model of models.length ? models : [undefined]) {
      const forModel: CliOptions = { ...base, ...(model ? { model } : {}) }
      const providers = replayOnly
        ? {
            llm: replayOnlyModel(model as string, forModel),
            search: replayOnlySearch as SearchProvider,
            fetch: forModel.fetch ? (replayOnlySearch as FetchProvider) : undefined,
          }
        : corpus
          ? {
              llm: (await buildLLM(forModel, io.env, io.fetch)).llm,
              search: corpus as SearchProvider,
              fetch: forModel.fetch ? (corpus as FetchProvider) : undefined,
            }
          : await configuredProviders(forModel, io)
      for (const strategy of strategies) {
        const agent: AgentOptions = agentOptions({ ...forModel, strategy }, providers)
        configs.push({ name: `${strategy}/${providers.llm.model ?? model ?? 'model'}${variant.label ? ` ${variant.label}` : ''}`, agent })
      }
    }
  }
  let grader: LLMProvider | undefined
  if (flags.graderModel) {
    const graderOptions: CliOptions = {
      ...runOptions,
      model: flags.graderModel,
      ...(flags.graderBackend ? { backend: flags.graderBackend as CliOptions['backend'] } : {}),
      ...(flags.graderEndpoint ? { endpoint: flags.graderEndpoint } : {}),
    }
    grader = replayOnly ? replayOnlyModel(flags.graderModel, graderOptions) : (await buildLLM(graderOptions, io.env, io.fetch)).llm
  }
  const cassette = flags.cassette
    ? openCassette(flags.cassette, {
        mode: flags.mode ?? 'record-missing',
        models: flags.recordModels,
        secrets: [
          options.apiKey,
          options.braveKey,
          options.tavilyKey,
          io.env.OPENAI_API_KEY,
          io.env.ANTHROPIC_API_KEY,
          io.env.BRAVE_API_KEY,
          io.env.TAVILY_API_KEY,
        ],
      })
    : undefined
  const parallel = wholeNumber('--parallel', flags.parallel)

  const bar = progress(io.stderr)
  let correct = 0
  let end: Extract<EvalEvent, { type: 'eval-end' }> | undefined
  for await (const event of evaluate({
    dataset: rows,
    configs,
    out: flags.out,
    signal: io.interrupt,
    ...(grader ? { grader } : {}),
    ...(cassette ? { cassette } : {}),
    ...(budget !== undefined ? { maxCost: budget } : {}),
    ...(parallel ? { concurrency: parallel } : {}),
  })) {
    if (event.type === 'eval-start' && event.done > 0)
      io.stderr.write(`laconic: resuming: ${event.done} of ${count(event.total, 'row')} done in ${flags.out}\n`)
    if (event.type === 'eval-start') correct = 0
    if (event.type === 'row-end') {
      if (event.row.correct) correct++
      bar.row(event, correct)
    }
    if (event.type === 'eval-warning') io.stderr.write(`\nlaconic: ${event.id ? `${event.config} ${event.id}: ` : ''}${event.message}\n`)
    if (event.type === 'eval-end') end = event
  }
  bar.done()
  const text = await writeReport(flags.out, `laconic eval: ${datasetPath}`)
  io.stdout.write(text)
  io.stderr.write(
    `laconic: ${end?.done ?? 0}/${count(end?.total ?? 0, 'row')} in ${join(flags.out, 'results.jsonl')}; report: ${join(flags.out, 'report.html')}\n`,
  )
  switch (end?.reason) {
    case 'max-cost':
      io.stderr.write(`laconic: stopped at the --max-cost budget ($${end.spent.toFixed(4)} spent); run again with a higher one to go on\n`)
      return EXIT.bestEffort
    case 'aborted':
      io.stderr.write('laconic: interrupted; run the same command again to go on\n')
      return EXIT.interrupted
    case 'error':
      io.stderr.write(`laconic: error: ${end.error}\n`)
      return EXIT.error
    default:
      return EXIT.answered
  }
}

/** `laconic eval ...`: argv after the word `eval`. */
export async function evalCommand(argv: readonly string[], io: CliIO): Promise<number> {
  if (argv[0] === 'compare') return compareCommand(argv.slice(1), io)
  if (argv[0] === 'report') {
    const [dir, ...extra] = argv.slice(1)
    if (!dir || extra.length) throw new UsageError('laconic eval report takes one result folder: laconic eval report DIR')
    io.stdout.write(await writeReport(dir, `laconic eval: ${dir}`))
    io.stderr.write(`laconic: report: ${join(dir, 'report.html')}\n`)
    return EXIT.answered
  }
  return runEval(argv, io)
}
