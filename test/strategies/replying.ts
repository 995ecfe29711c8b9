/**
 * Runs a built-in strategy whose model says a given reply for a role (by its system prompt, see
 * test/support/roles.ts) and what `anyStrategyReply` says for every other, for tests of how a
 * strategy reads its model's output: the reply goes in as a user's model would say it, and what
 * the run did comes out as its events.
 */
import { createAgent, type AgentOptions, type LLMChunk, type LLMProvider, type LLMRequest, type ResearchEvent } from '../../src/index.js'
import { assertEventInvariants, mockSearch, scriptedLLM, type ScriptedLLM } from '../../src/testing/index.js'
import { anyStrategyReply, searchResults } from '../support/any-strategy-model.js'
import { roleOf, type Role } from '../support/roles.js'

/** A role's reply: its text, a function of the request and the role's call count, or the pieces it streams in. */
export type Replies = Partial<Record<Role, string | ((req: LLMRequest, n: number) => string | Pieces) | Pieces>>

/** A reply streamed in exactly these pieces. */
export interface Pieces {
  pieces: readonly string[]
}

export interface Replied {
  events: ResearchEvent[]
  /** The scripted model: every request the run made (those streamed in pieces too). */
  llm: ScriptedLLM
}

/** Runs `strategy` to its end on the question with `replies` for their roles; checks the event invariants. */
export async function runReplying(
  strategy: AgentOptions['strategy'],
  replies: Replies,
  options: Omit<AgentOptions, 'llm' | 'strategy'> = {},
  question = 'Why is the sky blue?',
): Promise<Replied> {
  const counts = new Map<Role, number>()
  /** The reply of a role's next call: a string, or the pieces it streams in. */
  const next = (req: LLMRequest): string | Pieces | undefined => {
    const role = roleOf(req.system)
    const reply = role && replies[role]
    if (reply === undefined || role === undefined) return undefined
    const n = counts.get(role) ?? 0
    counts.set(role, n + 1)
    return typeof reply === 'function' ? reply(req, n) : reply
  }
  const pending = new Map<LLMRequest, string | Pieces | undefined>()
  const llm = scriptedLLM({
    replies: (req) => {
      const reply = pending.get(req)
      pending.delete(req)
      return typeof reply === 'string' ? reply : anyStrategyReply(req)
    },
  })
  // A reply in given pieces is streamed here, and recorded with the rest.
  const provider: LLMProvider = {
    local: true,
    stream(req) {
      const reply = next(req)
      if (typeof reply !== 'object') {
        pending.set(req, reply)
        return llm.stream(req)
      }
      llm.calls.push(req)
      return (async function* (): AsyncGenerator<LLMChunk> {
        for (const text of reply.pieces) if (text) yield { type: 'text', text }
        yield { type: 'usage', inputTokens: 10, outputTokens: 10 }
      })()
    },
  }
  const agent = createAgent({ search: mockSearch({ results: searchResults }), ...options, llm: provider, strategy })
  const events: ResearchEvent[] = []
  for await (const event of agent.research(question)) events.push(event)
  assertEventInvariants(events)
  return { events, llm }
}

/**
 * What a run did, as a sorted list: every event but the bookkeeping of its calls (`cost`,
 * `llm-call`), without its run id, sequence number, time and cost, whose numbers follow the
 * length of the replies rather than what was read from them. Sorted, so steps running at once
 * may finish in any order.
 */
export function whatItDid(events: readonly ResearchEvent[]): string[] {
  return events
    .filter((e) => e.type !== 'cost' && e.type !== 'llm-call')
    .map((e) => {
      const { runId: _runId, seq: _seq, time: _time, ...rest } = e as ResearchEvent & { runId?: string; seq?: number; time?: number }
      if (rest.type === 'run-end') {
        const { cost: _cost, ...end } = rest as typeof rest & { cost?: unknown }
        return JSON.stringify(end)
      }
      return JSON.stringify(rest)
    })
    .sort()
}

/** The events of one type. */
export const ofType = <T extends ResearchEvent['type']>(events: readonly ResearchEvent[], type: T) =>
  events.filter((e): e is Extract<ResearchEvent, { type: T }> => e.type === type)

/** The codes of a run's warnings. */
export const warningCodes = (events: readonly ResearchEvent[]) => ofType(events, 'warning').map((w) => w.code)
