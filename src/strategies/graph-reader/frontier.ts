import { abortError } from '../../core/contracts/laconic-error.js'
import { createMerge } from '../../core/util/merge.js'
import { normalizeText } from '../../core/util/text.js'
import { onAbort } from '../../core/util/abort-listener.js'

/** A query to explore, and where it sits in the graph. */
export interface Node {
  query: string
  parentId?: string
  depth: number
}

/** What a checkpoint keeps of the frontier. */
export interface FrontierState {
  /** Queries still to explore, in order (nodes in flight first: a resume explores them again). */
  frontier: Node[]
  /** Normalised queries explored or queued. */
  visited: string[]
  explored: number
  answered: boolean
}

/** A node's own scope: its work's requests, aborted alone when the node is cut short. */
export interface NodeScope {
  readonly signal: AbortSignal
  abort(reason?: unknown): void
  /** Its work is over. */
  close(): void
}

/** What a node's work knows of its place in the frontier. */
export interface NodeTicket<S extends NodeScope> {
  readonly scope: S
  /** Holds one of the `concurrency` slots: it may call a model. Nodes from the queue hold one from the start. */
  readonly holdsSlot: boolean
  /** Its reply's parse dropped it: it is as if it never started. */
  readonly cancelled: boolean
  /**
   * An early node, done with what needs no slot, waits here until its reply's parse keeps it
   * and a slot is free; rejects with the abort error once its scope is aborted.
   */
  slot(): Promise<void>
}

/**
 * The nodes started from the queries of one reply while it streams. Each starts without a
 * slot and takes one, once kept, before the queue's nodes.
 */
export interface EarlyNodes {
  /** A query closed in the reply: starts its node (the first `limit` distinct queries, if not visited). */
  offer(query: string): void
  /** Cancels the nodes started for any query not among `queries`. */
  drop(queries: readonly string[]): void
  /**
   * The reply's parse kept `queries`: cancels the nodes started for any other query, queues the
   * kept queries not started yet (unless visited), and returns the kept queries that are new
   * (started early or queued), in the parse's order.
   */
  settle(queries: readonly string[]): string[]
  /** Lets the kept early nodes take slots (first in line), and fills free slots. */
  keep(): void
}

export interface FrontierOptions<E, S extends NodeScope> {
  concurrency: number
  /** Nodes explored at most. */
  maxSteps: number
  /** Where a resumed run's frontier stood. */
  restored?: FrontierState | undefined
  /** A plan is still to come: no node leaves the queue and no checkpoint is taken until `planSettled()`. */
  awaitingPlan: boolean
  /** Whether new nodes may start besides the frontier's own limits (false: the run's budget is spent). */
  mayStart: () => boolean
  /** A scope for a new node. */
  scope: () => S
  /** A node's work; its events join `run()`'s. */
  work: (node: Node, ticket: NodeTicket<S>) => AsyncGenerator<E>
  /** After each node that was not cancelled, once the plan is settled (a checkpoint). */
  afterNode?: (() => AsyncGenerator<E>) | undefined
}

export interface Frontier<E> {
  /** Nodes started and not cancelled. */
  readonly explored: number
  /** `stop()` was called (or the restored frontier had stopped). */
  readonly answered: boolean
  /** Queries queued and not started. */
  readonly queued: number
  /** The early nodes of one reply, placed at `place` in the graph. */
  early(place: Omit<Node, 'query'>, limit: number): EarlyNodes
  /** The plan is settled: nodes may leave the queue, checkpoints may be taken. */
  planSettled(): void
  /** Starts no more nodes and aborts those in flight. */
  stop(reason: unknown): void
  /** The state to save after a node: in-flight nodes queued again, tentative early ones left out. */
  snapshot(): FrontierState
  /** Every node in flight (early ones not kept yet included). */
  inFlight(): Node[]
  /** Runs the frontier (and `alongside`, whose events join) until no node is left to run. */
  run(alongside?: AsyncGenerator<E>): AsyncGenerator<E>
}

/** A node in flight. */
interface Running<S> {
  scope: S
  /** Started from a reply still streaming, and its reply's parse has not kept it yet: left out of checkpoints. */
  tentative: boolean
  cancelled: boolean
  /** An early node is done with its slot-free work: ready for a slot once kept. */
  gathered: boolean
  holdsSlot: boolean
  /** Settles when the node is given a slot. */
  granted: Promise<void>
  grant: () => void
}

/**
 * The query graph's frontier and scheduler, breadth-first: a queue of nodes, the set of queries
 * visited, and `concurrency` slots. A node from the queue starts holding a slot; an early node
 * (`early`) starts at once without one and waits for one (`ticket.slot()`) once its reply keeps
 * it, before the queue's nodes. With concurrency 1 nodes run one after another in queue order.
 * It calls no model: a node's work is `work`'s.
 */
export function createFrontier<E, S extends NodeScope>(options: FrontierOptions<E, S>): Frontier<E> {
  const { concurrency, maxSteps, restored } = options
  const queue = restored ? restored.frontier.map((n) => ({ ...n })) : []
  const visited = new Set(restored?.visited)
  let explored = restored?.explored ?? 0
  let answered = restored?.answered ?? false
  let planned = !options.awaitingPlan
  /** Nodes holding a slot. */
  let active = 0
  const inFlight = new Map<Node, Running<S>>()
  /** Early nodes kept and ready for a slot, in the order they got there: served before the queue. */
  const waiting: Running<S>[] = []
  const merge = createMerge<E>()

  const canStart = () => !answered && options.mayStart() && explored < maxSteps

  const launch = (node: Node, early: boolean): Running<S> => {
    let grant!: () => void
    const granted = new Promise<void>((resolve) => (grant = resolve))
    const running: Running<S> = { scope: options.scope(), tentative: early, cancelled: false, gathered: false, holdsSlot: !early, granted, grant }
    if (!early) active++
    explored++
    inFlight.set(node, running)
    merge.add(guarded(node, running))
    return running
  }

  const readyForSlot = (running: Running<S>) => {
    if (running.gathered && !running.tentative && !running.holdsSlot && !waiting.includes(running)) waiting.push(running)
  }

  /** Gives free slots to the early nodes waiting for one, then to the queue. */
  const fill = () => {
    while (active < concurrency && waiting.length) {
      const next = waiting.shift()!
      if (next.scope.signal.aborted) continue
      active++
      next.holdsSlot = true
      next.grant()
    }
    while (planned && !waiting.length && canStart() && active < concurrency && queue.length) launch(queue.shift()!, false)
  }

  /** What a reply's early nodes reach of the frontier. */
  const core: FrontierCore<S> = {
    visited,
    queue,
    canStart,
    launch,
    uncount: () => {
      explored--
    },
    readyForSlot,
    fill,
  }

  async function* guarded(node: Node, running: Running<S>): AsyncGenerator<E> {
    const ticket: NodeTicket<S> = {
      scope: running.scope,
      get holdsSlot() {
        return running.holdsSlot
      },
      get cancelled() {
        return running.cancelled
      },
      slot() {
        if (running.holdsSlot) return Promise.resolve()
        running.gathered = true
        readyForSlot(running)
        fill()
        return untilAborted(running.granted, running.scope.signal)
      },
    }
    try {
      yield* options.work(node, ticket)
    } finally {
      running.scope.close()
      inFlight.delete(node)
      if (running.holdsSlot) active--
    }
    if (options.afterNode && planned && !running.cancelled) yield* options.afterNode()
    fill()
  }

  return {
    get explored() {
      return explored
    },
    get answered() {
      return answered
    },
    get queued() {
      return queue.length
    },

    early: (place, limit) => earlyNodesOf(core, place, limit),

    planSettled() {
      planned = true
    },

    // Work of theirs still waiting for a slot of the run's limit gives up its place: it never starts.
    stop(reason) {
      answered = true
      for (const running of inFlight.values()) running.scope.abort(reason)
    },

    snapshot() {
      const running = [...inFlight].filter(([, r]) => !r.tentative && !r.cancelled).map(([node]) => node)
      const unsure = new Set([...inFlight].filter(([, r]) => r.tentative).map(([node]) => normalizeText(node.query)))
      return {
        frontier: [...running, ...queue],
        visited: [...visited].filter((key) => !unsure.has(key)),
        explored: explored - [...inFlight.values()].filter((r) => !r.cancelled).length,
        answered,
      }
    },

    inFlight: () => [...inFlight.keys()],

    async *run(alongside) {
      if (alongside) merge.add(alongside)
      fill()
      yield* merge
    },
  }
}

/** What a reply's early nodes reach of their frontier. */
interface FrontierCore<S> {
  /** Normalised queries explored or queued. */
  readonly visited: Set<string>
  readonly queue: Node[]
  canStart(): boolean
  launch(node: Node, early: boolean): Running<S>
  /** A cancelled early node no longer counts as explored. */
  uncount(): void
  readyForSlot(running: Running<S>): void
  fill(): void
}

/** The early nodes of one reply, placed at `place` in the graph: see `Frontier.early`. */
function earlyNodesOf<S extends NodeScope>(core: FrontierCore<S>, place: Omit<Node, 'query'>, limit: number): EarlyNodes {
  /** This reply's early nodes, by normalised query. */
  const mine = new Map<string, Running<S>>()
  /** Distinct queries sighted: no more than the parser keeps start. */
  const sighted = new Set<string>()
  const drop = (queries: readonly string[]) => {
    const kept = new Set(queries.map(normalizeText))
    for (const [key, running] of mine) {
      if (kept.has(key)) continue
      mine.delete(key)
      running.cancelled = true
      core.uncount()
      core.visited.delete(key)
      running.scope.abort(new DOMException(`the reply's parse did not keep the query`, 'AbortError'))
    }
  }
  return {
    offer(query) {
      const key = normalizeText(query)
      if (!key || sighted.has(key) || sighted.size >= limit) return
      sighted.add(key)
      if (core.visited.has(key) || !core.canStart()) return
      core.visited.add(key)
      mine.set(key, core.launch({ query, ...place }, true))
    },
    drop,
    settle(queries) {
      drop(queries)
      const fresh: string[] = []
      for (const query of queries) {
        const key = normalizeText(query)
        if (mine.has(key)) fresh.push(query)
        else if (!core.visited.has(key)) {
          core.visited.add(key)
          core.queue.push({ query, ...place })
          fresh.push(query)
        }
      }
      return fresh
    },
    keep() {
      for (const running of mine.values()) {
        running.tentative = false
        core.readyForSlot(running)
      }
      core.fill()
    },
  }
}

/** `promise`, or a rejection with the signal's abort error as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(abortError(signal)))
    promise.then(
      (value) => {
        stop()
        resolve(value)
      },
      (error: unknown) => {
        stop()
        reject(error)
      },
    )
  })
}
