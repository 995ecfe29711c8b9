import type { EventOf, EventType, ResearchEvent } from '../core/contracts/events.js'
import type { Cost } from '../core/contracts/run-cost.js'

const COST_FIELDS: readonly (keyof Cost)[] = [
  'llm',
  'search',
  'embedding',
  'total',
  'inputTokens',
  'outputTokens',
  'llmCalls',
  'embeddingTokens',
  'searches',
  'fetches',
]

/** Plain JSON equality without node: `JSON.parse(JSON.stringify(e))` must give `e` back. */
function survivesJson(value: unknown): boolean {
  let copy: unknown
  try {
    copy = JSON.parse(JSON.stringify(value))
  } catch {
    return false
  }
  return sameData(copy, value)
}

/**
 * Deep equality of data (node:util's `isDeepStrictEqual` for the values events hold, without
 * Node): the same primitives, and arrays and objects of the same prototype with the same keys.
 */
function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => Object.hasOwn(b, key) && sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

/**
 * Checks every event-stream invariant of the design contract and throws an Error naming each
 * violation (with the event's seq) when any fails. Returns the events for chaining.
 *
 * Resumed runs (docs/checkpoints.md) check too, alone or joined to what came before them: a
 * `run-start` with `resumed` may open the stream at any seq, or come mid-stream where the earlier
 * run's events stop (its last checkpoint, or right after its `run-end` with reason `paused`);
 * seq runs on without a gap, and the cost totals go on from `resumed.cost`.
 */
export function assertEventInvariants(events: readonly ResearchEvent[]): readonly ResearchEvent[] {
  const problems: string[] = []
  const fail: Fail = (event, message) => problems.push(event ? `seq ${event.seq} (${event.type}): ${message}` : message)

  if (events.length === 0) fail(undefined, 'no events')
  const first = events[0]
  const last = events[events.length - 1]
  if (first && first.type !== 'run-start') fail(first, 'the first event must be run-start')
  if (first && first.seq !== 0 && !(first.type === 'run-start' && first.resumed)) fail(first, 'seq must start at 0 (or at a resumed run-start)')
  if (last && last.type !== 'run-end') fail(last, 'the last event must be run-end')

  const state = newStreamState()
  events.forEach((event, index) => {
    checkFraming(events, index, first?.runId, fail)
    const check = EVENT_CHECKS[event.type] as EventCheck<ResearchEvent> | undefined
    check?.(event, state, fail, events[index - 1])
  })

  checkClaimsAgainstAnswer(state.claims, state.answerText ?? state.tokens, fail)

  if (problems.length) throw new Error(`event invariants violated:\n- ${problems.slice(0, 20).join('\n- ')}`)
  return events
}

type Fail = (event: ResearchEvent | undefined, message: string) => void

/** What the checks remember while reading the stream in order. */
interface StreamState {
  queries: Set<string>
  /** Tool calls by id: whether their result came. */
  toolCalls: Map<string, boolean>
  tokens: string
  answerText: string | undefined
  /** `verify: 'revise'`: the rewritten answer's tokens, and its text once it came. */
  revisedTokens: string
  revisedText: string | undefined
  /** `verify`: the claims by index, each checked against the first answer once the stream is read. */
  claims: Map<number, EventOf<'claim'>>
  lastTotal: Cost | undefined
  /** A report's sections (docs/events.md): the outline's size, the next section to start, and the one streaming. */
  sectionCount: number | undefined
  nextSection: number
  openSection: number | undefined
}

function newStreamState(): StreamState {
  return {
    queries: new Set(),
    toolCalls: new Map(),
    tokens: '',
    answerText: undefined,
    revisedTokens: '',
    revisedText: undefined,
    claims: new Map(),
    lastTotal: undefined,
    sectionCount: undefined,
    nextSection: 0,
    openSection: undefined,
  }
}

/** The answer streams again from the start (a report: every section, from the first). */
function restartAnswer(state: StreamState): void {
  state.tokens = ''
  state.answerText = undefined
  state.sectionCount = undefined
  state.nextSection = 0
  state.openSection = undefined
}

/** What every event must keep, whatever its type: seq without a gap, one runId, plain JSON, run-start and run-end at the ends. */
function checkFraming(events: readonly ResearchEvent[], index: number, runId: string | undefined, fail: Fail): void {
  const event = events[index] as ResearchEvent
  const previous = events[index - 1]
  if (previous && event.seq !== previous.seq + 1) fail(event, `seq must be ${previous.seq + 1}`)
  if (event.runId !== runId) fail(event, 'runId differs from the first event')
  if (typeof event.time !== 'number' || !Number.isFinite(event.time)) fail(event, 'time must be a finite number')
  if (event.type === 'run-start' && index !== 0 && !event.resumed) fail(event, 'run-start must come only first (or resume the run)')
  if (event.type === 'run-end' && index !== events.length - 1) {
    const next = events[index + 1]
    if (!(event.reason === 'paused' && next?.type === 'run-start' && next.resumed)) fail(event, 'run-end must come only last (or pause before a resume)')
  }
  if (previous?.type === 'run-end' && event.type !== 'run-start') fail(event, 'only a resumed run-start may follow run-end')
  if (!survivesJson(event)) fail(event, 'not plain JSON (JSON round trip changes it)')
}

type EventCheck<E extends ResearchEvent> = (event: E, state: StreamState, fail: Fail, previous: ResearchEvent | undefined) => void

/** A query's id named by a later event must be a query that came before it. */
function checkQueryId(event: ResearchEvent, queryId: string | undefined, state: StreamState, fail: Fail): void {
  if (queryId !== undefined && !state.queries.has(queryId)) fail(event, `names queryId ${queryId} before its query`)
}

/** The checks of each event type, beyond the framing every event keeps. */
const EVENT_CHECKS: { [T in EventType]?: EventCheck<EventOf<T>> } = {
  'run-start': (event, state, fail) => {
    if (!event.resumed) return
    if (state.lastTotal && !sameData(state.lastTotal, event.resumed.cost)) fail(event, 'resumed.cost differs from the cost total before it')
    state.lastTotal = event.resumed.cost
    // The run that continues a paused one announces again the calls it settles.
    for (const [callId, done] of state.toolCalls) if (!done) state.toolCalls.delete(callId)
    // A resumed run streams its answer again from the start (a report: every section, from the first).
    restartAnswer(state)
  },
  outline: (event, state, fail) => {
    if (state.sectionCount !== undefined) fail(event, 'a second outline')
    if (!event.outline.sections.length) fail(event, 'an outline without sections')
    state.sectionCount = event.outline.sections.length
  },
  'section-start': (event, state, fail) => {
    if (state.sectionCount === undefined) fail(event, 'section-start before the outline')
    if (state.openSection !== undefined) fail(event, `section ${event.index} starts while section ${state.openSection} streams`)
    if (event.index !== state.nextSection) fail(event, `section ${event.index} starts out of outline order (expected ${state.nextSection})`)
    if (state.sectionCount !== undefined && event.index >= state.sectionCount) fail(event, `section ${event.index} is not in the outline`)
    state.openSection = event.index
    state.nextSection = event.index + 1
  },
  'section-end': (event, state, fail) => {
    const open = state.openSection
    if (open !== event.index) fail(event, `section ${event.index} ends but ${open === undefined ? 'none' : `section ${open}`} streams`)
    state.openSection = undefined
  },
  recall: (event, _state, fail, previous) => {
    // Long-term memory is asked once, before the strategy starts; a resumed run asks it no more.
    if (previous?.type !== 'run-start' || previous.resumed) fail(event, 'recall must come right after a (not resumed) run-start')
  },
  query: (event, state) => {
    state.queries.add(event.queryId)
  },
  result: (event, state, fail) => checkQueryId(event, event.queryId, state, fail),
  page: (event, state, fail) => checkQueryId(event, event.queryId, state, fail),
  fact: (event, state, fail) => checkQueryId(event, event.fact.queryId, state, fail),
  warning: (event, state, fail) => {
    // A later attempt joined the log here (laconic-research/redis): the answer starts afresh.
    if (event.code === 'resumed') {
      restartAnswer(state)
      state.revisedTokens = ''
      state.revisedText = undefined
      state.claims.clear()
    }
    checkQueryId(event, event.queryId, state, fail)
  },
  'tool-call': (event, state, fail) => {
    if (state.toolCalls.has(event.callId)) fail(event, `tool call ${event.callId} announced twice`)
    state.toolCalls.set(event.callId, false)
  },
  'tool-result': (event, state, fail) => {
    if (!state.toolCalls.has(event.callId)) fail(event, `names callId ${event.callId} before its tool-call`)
    else if (state.toolCalls.get(event.callId)) fail(event, `a second result for callId ${event.callId}`)
    state.toolCalls.set(event.callId, true)
  },
  'reasoning-token': (event, _state, fail) => {
    // Reasoning is shown apart ("thinking"): it has a model role and text, and is never folded into the answer.
    if (typeof event.role !== 'string' || !event.role) fail(event, 'reasoning-token without a role')
    if (typeof event.text !== 'string' || !event.text) fail(event, 'reasoning-token without text')
  },
  'answer-token': (event, state, fail) => {
    if (event.revised) {
      // A revision rewrites the answer once it is complete and checked.
      if (state.answerText === undefined) fail(event, 'a revised answer-token before the answer event')
      if (state.revisedText !== undefined) fail(event, 'a revised answer-token after the revised answer')
      state.revisedTokens += event.text
      return
    }
    if (state.answerText !== undefined) fail(event, 'answer-token after the answer event')
    const open = state.openSection
    if (event.section !== open) {
      fail(event, `an answer-token of section ${event.section ?? 'none'} while ${open === undefined ? 'no section' : `section ${open}`} streams`)
    }
    state.tokens += event.text
  },
  answer: (event, state, fail) => {
    if (event.revised) {
      if (state.answerText === undefined) fail(event, 'a revised answer before the answer it revises')
      if (state.revisedText !== undefined) fail(event, 'more than one revised answer')
      state.revisedText = event.text
      if (state.revisedTokens !== event.text) fail(event, 'the revised answer-token texts joined differ from the revised answer text')
      return
    }
    if (state.answerText !== undefined) fail(event, 'more than one answer event')
    if (state.openSection !== undefined) fail(event, `the answer while section ${state.openSection} streams`)
    if (state.sectionCount !== undefined && state.nextSection !== state.sectionCount) {
      fail(event, `the answer after ${state.nextSection} of ${state.sectionCount} sections`)
    }
    state.answerText = event.text
    if (state.tokens !== event.text) fail(event, 'the answer-token texts joined differ from the answer text')
  },
  claim: (event, state, fail) => {
    checkClaim(event, fail)
    if (state.claims.has(event.index)) fail(event, `claim ${event.index} reported twice`)
    state.claims.set(event.index, event)
    // The revision is written from every verdict: no claim comes after it has begun.
    if (state.revisedTokens || state.revisedText !== undefined) fail(event, 'a claim after the revision began')
  },
  cost: (event, state, fail) => {
    const before = state.lastTotal
    if (before) {
      for (const field of COST_FIELDS) {
        if (event.total[field] < before[field] - 1e-12) fail(event, `cost.total.${field} decreased`)
      }
    }
    state.lastTotal = event.total
  },
  'run-end': (event, state, fail) => {
    // A paused run may leave the call it waits on without a result; a finished run may not.
    if (event.reason === 'answered' || event.reason === 'max-iterations') {
      for (const [callId, done] of state.toolCalls) if (!done) fail(event, `tool call ${callId} never got its tool-result`)
    }
    if (state.lastTotal && !sameData(state.lastTotal, event.cost)) fail(event, 'run-end.cost differs from the last cost.total')
    if (!state.lastTotal && event.cost.total !== 0) fail(event, 'run-end.cost is not zero but no cost event came')
  },
}

const VERDICTS = new Set(['supported', 'partial', 'unsupported', 'uncited', 'unverifiable'])

/** One claim on its own: a known verdict, a score in [0, 1], citations it writes, none when uncited. */
function checkClaim(event: EventOf<'claim'>, fail: (event: ResearchEvent, message: string) => void): void {
  if (!Number.isInteger(event.index) || event.index < 0) fail(event, 'claim index must be a whole number >= 0')
  if (!VERDICTS.has(event.verdict)) fail(event, `unknown claim verdict ${String(event.verdict)}`)
  if (!(event.score >= 0 && event.score <= 1)) fail(event, 'claim score must be within [0, 1]')
  if (!event.text.trim()) fail(event, 'claim without text')
  if ((event.verdict === 'uncited') !== (event.citations.length === 0)) fail(event, 'a claim is uncited exactly when it cites nothing')
  if (event.verdict === 'uncited' && event.score !== 0) fail(event, 'an uncited claim scores 0')
  for (const n of event.citations) {
    if (!new RegExp(`\\[(?:\\d+\\s*,\\s*)*${n}(?:\\s*,\\s*\\d+)*\\]`).test(event.text)) fail(event, `claim cites [${n}], which its text does not`)
  }
}

/**
 * The claims against the answer they check: indexes 0, 1, 2, ... without a gap, and each claim's
 * text standing in the answer after the one before it (claims follow the answer's order).
 */
function checkClaimsAgainstAnswer(
  claims: ReadonlyMap<number, EventOf<'claim'>>,
  answer: string,
  fail: (event: ResearchEvent | undefined, message: string) => void,
): void {
  let from = 0
  for (let index = 0; index < claims.size; index++) {
    const claim = claims.get(index)
    if (!claim) {
      fail(undefined, `claim ${index} is missing (claims must be numbered from 0 without a gap)`)
      return
    }
    const at = answer.indexOf(claim.text, from)
    if (at === -1) {
      fail(claim, `claim ${index} is not the answer's text after claim ${index - 1}`)
      return
    }
    from = at + claim.text.length
  }
}
