import type { Agent, ResearchEvent, ResearchOptions, ResearchResult } from '../../../src/index.js'
import { assertEventInvariants } from '../../../src/testing/index.js'

/** Reads a whole run, checks the event invariants, and returns the events and the result. */
export async function collect(agent: Agent, question: string, options?: ResearchOptions): Promise<{ events: ResearchEvent[]; result: ResearchResult }> {
  const run = agent.research(question, options)
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  assertEventInvariants(events)
  return { events, result: await run.result }
}

export function ofType<T extends ResearchEvent['type']>(events: readonly ResearchEvent[], type: T): Extract<ResearchEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ResearchEvent, { type: T }> => e.type === type)
}
