import { describe, expect, it } from 'vitest'
import { createFrontier, type Frontier, type FrontierState, type Node, type NodeScope, type NodeTicket } from '../../../src/strategies/graph-reader/frontier.js'

interface Deferred {
  promise: Promise<void>
  resolve: () => void
}
function deferred(): Deferred {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

class FakeScope implements NodeScope {
  private readonly controller = new AbortController()
  closed = false
  get signal() {
    return this.controller.signal
  }
  abort(reason?: unknown) {
    this.controller.abort(reason)
  }
  close() {
    this.closed = true
  }
}

/** One node's work, as the test drives it. */
interface Step {
  started: Deferred
  /** Released by the test: the node's slot-free part (search, reads) is done. */
  gathered: Deferred
  /** An early node waits for its slot. */
  waiting: Deferred
  /** An early node got its slot. */
  slotted: Deferred
  /** Released by the test: the node's model calls are done. */
  done: Deferred
  ticket?: NodeTicket<FakeScope>
}

/**
 * A frontier whose nodes' work waits for the test: each node logs `start`, waits for `gathered`,
 * takes its slot if it started early (`slot`), waits for `done`, runs `digest` (which may settle
 * queries, stop…), and logs `end`; an aborted node logs `aborted` instead.
 */
function harness(options: {
  concurrency?: number
  maxSteps?: number
  restored?: Partial<FrontierState>
  awaitingPlan?: boolean
  mayStart?: () => boolean
  digest?: (node: Node, frontier: Frontier<string>) => void
  /** This node's work throws. */
  fail?: string
}) {
  const log: string[] = []
  const steps = new Map<string, Step>()
  const step = (query: string) => {
    const known = steps.get(query)
    if (known) return known
    const s: Step = { started: deferred(), gathered: deferred(), waiting: deferred(), slotted: deferred(), done: deferred() }
    steps.set(query, s)
    return s
  }
  let holding = 0
  let peak = 0
  const checkpoints: FrontierState[] = []
  const frontier: Frontier<string> = createFrontier<string, FakeScope>({
    concurrency: options.concurrency ?? 1,
    maxSteps: options.maxSteps ?? 100,
    restored: options.restored && { frontier: [], visited: [], explored: 0, answered: false, ...options.restored },
    awaitingPlan: options.awaitingPlan ?? false,
    mayStart: options.mayStart ?? (() => true),
    scope: () => new FakeScope(),
    async *work(node, ticket) {
      const s = step(node.query)
      s.ticket = ticket
      let held = false
      const hold = () => {
        held = true
        peak = Math.max(peak, ++holding)
      }
      if (ticket.holdsSlot) hold()
      log.push(`start ${node.query}`)
      s.started.resolve()
      yield `start ${node.query}`
      try {
        await untilAborted(s.gathered.promise, ticket.scope.signal)
        if (!ticket.holdsSlot) {
          log.push(`wait ${node.query}`)
          s.waiting.resolve()
          await ticket.slot()
          log.push(`slot ${node.query}`)
          hold()
          s.slotted.resolve()
        }
        await untilAborted(s.done.promise, ticket.scope.signal)
        if (node.query === options.fail) throw new Error(`${node.query} failed`)
        options.digest?.(node, frontier)
      } catch (error) {
        if (!ticket.scope.signal.aborted) throw error
        log.push(`aborted ${node.query}`)
        return
      } finally {
        if (held) holding--
      }
      log.push(`end ${node.query}`)
      yield `end ${node.query}`
    },
    afterNode: async function* () {
      checkpoints.push(frontier.snapshot())
      yield 'checkpoint'
    },
  })
  const finish = (query: string) => {
    step(query).gathered.resolve()
    step(query).done.resolve()
  }
  const collect = async (alongside?: AsyncGenerator<string>) => {
    const events: string[] = []
    for await (const event of frontier.run(alongside)) events.push(event)
    return events
  }
  return { frontier, log, step, finish, collect, checkpoints, peak: () => peak }
}

function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    promise.then(resolve)
  })
}

const queue = (...queries: string[]): Node[] => queries.map((query) => ({ query, depth: 0 }))
const starts = (log: readonly string[]) => log.filter((l) => l.startsWith('start ')).map((l) => l.slice(6))

describe('createFrontier', () => {
  it('runs the queue breadth-first, one node at a time at concurrency 1', async () => {
    const h = harness({
      restored: { frontier: queue('a', 'b') },
      digest(node, frontier) {
        const children = frontier.early({ parentId: node.query, depth: node.depth + 1 }, 5)
        children.settle(node.depth === 0 ? [`${node.query}1`, `${node.query}2`] : [])
        children.keep()
      },
    })
    for (const q of ['a', 'b', 'a1', 'a2', 'b1', 'b2']) h.finish(q)
    await h.collect()
    expect(h.log.filter((l) => l.startsWith('start') || l.startsWith('end'))).toEqual(
      ['a', 'b', 'a1', 'a2', 'b1', 'b2'].flatMap((q) => [`start ${q}`, `end ${q}`]),
    )
    expect(h.frontier.explored).toBe(6)
    expect(h.peak()).toBe(1)
  })

  it('lets at most `concurrency` nodes hold a slot; a freed slot goes to the next in the queue', async () => {
    const h = harness({ concurrency: 2, restored: { frontier: queue('a', 'b', 'c', 'd') } })
    const run = h.collect()
    await Promise.all([h.step('a').started.promise, h.step('b').started.promise])
    expect(starts(h.log)).toEqual(['a', 'b'])
    h.finish('b')
    await h.step('c').started.promise
    expect(starts(h.log)).toEqual(['a', 'b', 'c'])
    expect(h.log).not.toContain('end a')
    for (const q of ['a', 'c', 'd']) h.finish(q)
    await run
    expect(starts(h.log)).toEqual(['a', 'b', 'c', 'd'])
    expect(h.peak()).toBe(2)
  })

  it('explores a query once: settle returns only the queries not visited, in order', async () => {
    let fresh: string[] = []
    const h = harness({
      restored: { frontier: queue('Alpha'), visited: ['alpha'] },
      digest(node, frontier) {
        if (node.query !== 'Alpha') return
        const next = frontier.early({ depth: 1 }, 5)
        fresh = next.settle(['beta', 'alpha!', 'Beta', 'gamma'])
        next.keep()
      },
    })
    for (const q of ['Alpha', 'beta', 'gamma']) h.finish(q)
    await h.collect()
    expect(fresh).toEqual(['beta', 'gamma'])
    expect(starts(h.log)).toEqual(['Alpha', 'beta', 'gamma'])
  })

  it('starts no more than `maxSteps` nodes, counting those explored before a resume', async () => {
    const h = harness({ maxSteps: 3, restored: { frontier: queue('a', 'b', 'c'), explored: 1 } })
    for (const q of ['a', 'b', 'c']) h.finish(q)
    await h.collect()
    expect(starts(h.log)).toEqual(['a', 'b'])
    expect(h.frontier.explored).toBe(3)
    expect(h.frontier.queued).toBe(1)
  })

  it('starts nothing while `mayStart` says no (a spent budget)', async () => {
    const h = harness({ restored: { frontier: queue('a') }, mayStart: () => false })
    const events = await h.collect()
    expect(events).toEqual([])
    expect(h.frontier.queued).toBe(1)
  })

  it('starts early nodes at once without a slot; the parse cancels the ones it drops and they leave no trace', async () => {
    const h = harness({ concurrency: 2, awaitingPlan: true })
    const reply = deferred()
    const beforeSettle: FrontierState[] = []
    let fresh: string[] = []
    async function* plan(): AsyncGenerator<string> {
      const early = h.frontier.early({ depth: 0 }, 3)
      for (const q of ['x', 'y', 'y', 'w', 'v']) early.offer(q)
      await reply.promise
      beforeSettle.push(h.frontier.snapshot())
      fresh = early.settle(['y', 'z'])
      h.frontier.planSettled()
      early.keep()
      yield 'planned'
    }
    const run = h.collect(plan())
    // Three distinct queries sighted at most (the parser's limit): x, y and w start before the plan is parsed.
    await Promise.all(['x', 'y', 'w'].map((q) => h.step(q).started.promise))
    expect(starts(h.log)).toEqual(['x', 'y', 'w'])
    expect(h.frontier.explored).toBe(3)
    // Gathered, y waits for a slot: the reply is not parsed yet.
    h.step('y').gathered.resolve()
    h.step('y').done.resolve()
    h.step('z').gathered.resolve()
    h.step('z').done.resolve()
    reply.resolve()
    await run
    expect(fresh).toEqual(['y', 'z'])
    // The dropped nodes were aborted before their slot, their queries no longer visited or counted.
    expect(h.log).toEqual(expect.arrayContaining(['aborted x', 'aborted w']))
    expect(h.step('x').ticket?.cancelled).toBe(true)
    expect(h.step('x').ticket?.scope.signal.aborted).toBe(true)
    expect(h.log.indexOf('wait y')).toBeLessThan(h.log.indexOf('slot y'))
    expect(starts(h.log)).toEqual(['x', 'y', 'w', 'z'])
    expect(h.frontier.explored).toBe(2)
    // Before the parse: tentative nodes are in no checkpoint (a resume replays their reply).
    expect(beforeSettle).toEqual([{ frontier: [], visited: [], explored: 0, answered: false }])
    // A checkpoint after each kept node, none for the cancelled ones; the last one is the whole run.
    expect(h.checkpoints).toHaveLength(2)
    expect(h.checkpoints.at(-1)).toEqual({ frontier: [], visited: ['y', 'z'], explored: 2, answered: false })
    for (const q of ['x', 'y', 'w', 'z']) expect(h.step(q).ticket?.scope.closed).toBe(true)
  })

  it('gives a free slot to a kept early node waiting for one before the queue', async () => {
    const h = harness({ concurrency: 2, restored: { frontier: queue('a', 'b', 'c') } })
    const kept = deferred()
    async function* check(): AsyncGenerator<string> {
      await Promise.all([h.step('a').started.promise, h.step('b').started.promise])
      const early = h.frontier.early({ depth: 1 }, 5)
      early.offer('e')
      early.settle(['e'])
      early.keep()
      kept.resolve()
      yield 'checked'
    }
    const run = h.collect(check())
    await kept.promise
    h.step('e').gathered.resolve()
    await h.step('e').waiting.promise
    // e started early (it holds no slot while it gathers) and waits; a's slot goes to it, not to c.
    h.finish('a')
    await h.step('e').slotted.promise
    expect(starts(h.log)).toEqual(['a', 'b', 'e'])
    expect(h.peak()).toBe(2)
    h.finish('e')
    await h.step('c').started.promise
    expect(h.log).not.toContain('end b')
    h.finish('b')
    h.finish('c')
    await run
    expect(h.peak()).toBe(2)
  })

  it('holds back the queue and checkpoints until the plan is settled', async () => {
    const h = harness({ awaitingPlan: true, restored: { frontier: queue('a') } })
    const gate = deferred()
    async function* plan(): AsyncGenerator<string> {
      await gate.promise
      expect(starts(h.log)).toEqual([])
      h.frontier.planSettled()
      yield 'planned'
    }
    h.finish('a')
    const run = h.collect(plan())
    gate.resolve()
    const events = await run
    // The plan ended without starting anything; the queue waited for it.
    expect(events).toEqual(['planned'])
    expect(starts(h.log)).toEqual([])
  })

  it('snapshots nodes in flight back at the front of the queue, uncounted', async () => {
    const h = harness({ concurrency: 1, restored: { frontier: queue('a', 'b'), visited: ['a', 'b'], explored: 4 } })
    const run = h.collect()
    await h.step('a').started.promise
    expect(h.frontier.snapshot()).toEqual({ frontier: queue('a', 'b'), visited: ['a', 'b'], explored: 4, answered: false })
    expect(h.frontier.inFlight()).toEqual(queue('a'))
    h.finish('a')
    h.finish('b')
    await run
    expect(h.checkpoints).toEqual([
      { frontier: queue('b'), visited: ['a', 'b'], explored: 5, answered: false },
      { frontier: [], visited: ['a', 'b'], explored: 6, answered: false },
    ])
  })

  it('stop aborts the nodes in flight with its reason and starts no more', async () => {
    const reason = new DOMException('the notebook answers the question', 'AbortError')
    const h = harness({
      concurrency: 2,
      restored: { frontier: queue('a', 'b', 'c') },
      digest(node, frontier) {
        if (node.query === 'a') frontier.stop(reason)
      },
    })
    const run = h.collect()
    await Promise.all([h.step('a').started.promise, h.step('b').started.promise])
    h.finish('a')
    await run
    expect(h.log).toEqual(['start a', 'start b', 'end a', 'aborted b'])
    expect(h.step('b').ticket?.scope.signal.reason).toBe(reason)
    expect(h.frontier.answered).toBe(true)
    expect(h.frontier.queued).toBe(1)
    expect(h.checkpoints.at(-1)).toMatchObject({ frontier: [{ query: 'c' }], answered: true })
  })

  it('lets a failing node’s error end the run, its scope closed', async () => {
    const h = harness({ restored: { frontier: queue('a', 'b') }, fail: 'a' })
    h.finish('a')
    await expect(h.collect()).rejects.toThrow('a failed')
    expect(h.step('a').ticket?.scope.closed).toBe(true)
    expect(starts(h.log)).toEqual(['a'])
  })
})
