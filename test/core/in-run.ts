/**
 * A strategy's context as a strategy gets it: `body` runs inside a run of `createAgent` with the
 * options given, and whatever it throws (a failed expectation) fails the caller. The caller waits
 * for the run's end and for `body`'s (a run aborted while `body` waits ends without waiting for it).
 */
import { type AgentOptions, createAgent } from '../../src/index.js'
import type { Strategy, StrategyContext } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

export async function inRun(
  body: (ctx: StrategyContext) => Promise<void>,
  options: Partial<AgentOptions> = {},
  run: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<void> {
  let done: Promise<void> | undefined
  const strategy: Strategy = {
    name: 'context-under-test',
    ...(run.concurrency !== undefined ? { concurrency: run.concurrency } : {}),
    // biome-ignore lint/correctness/useYield: the body's events are its own to read
    async *run(_question, ctx) {
      done = body(ctx)
      await done
    },
  }
  const research = createAgent({ llm: scriptedLLM({ replies: [] }), ...options, strategy }).research('q', run.signal ? { signal: run.signal } : {})
  for await (const _ of research) {
    // drain
  }
  if (!done) throw new Error('the strategy never ran')
  await done
}
