/**
 * The child process of the SIGKILL test: an eval of 12 questions × 2 configurations into the
 * folder given as argv[2], printing every event (and every model call) to stdout as a line of
 * JSON, so the test can kill it at a known point.
 */
import { type EvalRow, evaluate } from '../../src/eval/index.js'
import { mockSearch } from '../../src/testing/index.js'
import { extractiveModel } from '../support/extractive-model.js'

const out = process.argv[2] as string
const CORPUS = Array.from({ length: 12 }, (_, n) => ({
  title: `Fact ${n}`,
  url: `https://facts.test/${n}`,
  snippet: `Item number ${n} of the list is colored shade${n * 7} and weighs ${n + 3} kilograms.`,
}))
const rows: EvalRow[] = CORPUS.map((_, n) => ({ id: `q${n}`, question: `What color is item number ${n} of the list?`, answers: [`shade${n * 7}`] }))

const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`)
const model = () => {
  const llm = extractiveModel({ latencyMs: 2 })
  return {
    model: llm.model,
    local: true,
    stream(req: Parameters<typeof llm.stream>[0]) {
      say({ type: 'model-call' })
      return llm.stream(req)
    },
  }
}
const configs = ['a', 'b'].map((name) => ({ name, agent: { llm: model(), search: mockSearch({ corpus: CORPUS }), strategy: 'scratchpad' } }))

for await (const event of evaluate({ dataset: rows, configs, out, concurrency: 2 })) {
  say(
    event.type === 'row-end'
      ? { type: 'row-end', config: event.row.config, id: event.row.id }
      : event.type === 'eval-end'
        ? { type: 'eval-end', reason: event.reason, done: event.done }
        : event,
  )
}
