import { createAgent, type FetchedPage, type FetchProvider } from '../../../src/index.js'
import { scriptedLLM } from '../../../src/testing/index.js'

/**
 * Reads `url` the way a strategy does (`ctx.readPage`), inside a real run of `createAgent`: the
 * page it returned, and the events the run gave its consumer between `run-start` and `run-end`,
 * without their stamps (`runId`, `seq`, `time`).
 */
export async function readInRun(fetch: FetchProvider, url: string, queryId = 'q1') {
  let value: FetchedPage | undefined
  const agent = createAgent({
    llm: scriptedLLM({ replies: [] }),
    fetch,
    strategy: {
      name: 'read',
      async *run(_question, ctx) {
        value = yield* ctx.readPage(url, { queryId })
      },
    },
  })
  const events = []
  for await (const { runId: _runId, seq: _seq, time: _time, ...event } of agent.research('q')) {
    if (event.type !== 'run-start' && event.type !== 'run-end') events.push(event)
  }
  return { events, value }
}
