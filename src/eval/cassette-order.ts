/**
 * The order of a run's calls, so that a replay repeats it. A strategy that works concurrently
 * (graph-reader reading four branches at once) builds its next prompts from results in the order
 * they arrive; replayed from files, every result would be there at once and the prompts would
 * differ from the recorded ones. So a recording also keeps, per *scope* (one row of an eval, or
 * one `wrap`), the order of what happened: each request the run made (`i`), each piece of a
 * response handed to it (`c`: a model's chunk) and each request settled (`d`), in
 * `order/<hash of the scope and its first request>.jsonl`. A replay follows it: it hands over a
 * recorded piece only when everything recorded before it has happened again, one piece per turn
 * of the event loop (as a network hands them over), so the run sees its results in the recorded
 * order and asks the recorded prompts, whatever the concurrency.
 *
 * A run that no longer matches its recording never hangs: a request the recording did not make
 * ends the following at once (and, replaying only, fails that request, naming it); a recorded
 * request that does not come is passed over once the run has stayed still for IDLE_TURNS turns of
 * the event loop (nothing asked, read or settled), and `unmet()` names it.
 */
import { createHash } from 'node:crypto'
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LaconicError } from '../core/contracts/laconic-error.js'

/**
 * A line of the order file: request `n` made (its entry's id, what it asked), `count` pieces of it
 * handed over, or its end (`1`: the run stopped it, by its signal or by no longer reading).
 */
type Line = ['i', number, string, string] | ['c', number, number] | ['d', number] | ['d', number, 1]

/** What a request's next step is: a piece, its end, or its end where the run stopped it. */
export type StepKind = 'c' | 'd' | 'cut'

interface Step {
  kind: 'i' | StepKind
  n: number
  id?: string
  description?: string
  done: boolean
}

/**
 * Turns of the event loop a run may stay still (every request it made waiting on the recorded
 * order, nothing asked, read or settled) before the request the order waits for is taken as
 * never coming. Between its calls a strategy only computes, so one turn would do; the margin is
 * for work between calls that waits on other I/O.
 */
const IDLE_TURNS = 200

/** One request of a scope: its place in the recorded order. */
export interface Ticket {
  /**
   * Waits until this request's next recorded step is due and says what it was (undefined: no
   * order is followed for it), then keeps it: `kind` is what the caller hands over (a piece, the
   * end, or the end of a call the run stopped). Following, a request is handed what its recording
   * was, whatever its signal: the recorded run was stopped, or not, at this same step.
   */
  turn(kind: StepKind): Promise<StepKind | undefined>
  /** The request is over (handed over, failed, or its reader left): what the recording still had of it is not waited for. */
  close(): void
}

/** The requests of one run, in the order they were recorded (following) or are being recorded. */
export interface OrderScope {
  /** A request the run makes now (`id`: its entry's, `kind/hash`). */
  request(id: string, description: string): Ticket
  /** Waits for `reading` (an entry being read): the run is not taken as still meanwhile. */
  reading<T>(reading: Promise<T>): Promise<T>
  /** The recorded order no longer applies (a request was missing): everything is handed over as it comes, and the order is recorded anew where the mode records. */
  diverge(): void
  /** What the recording asked that this run has not (so far), in recorded order. */
  unmet(): string[]
  /** Whether a recorded order is being followed (once its file is read). */
  following(): Promise<boolean>
  /** Resolves once the order kept so far is in its file (rejects if it could not be written). */
  written(): Promise<void>
}

export interface ScopeOptions {
  folder: string
  /** Names the scope (an eval's configuration and row): with the first request's id, the order file. */
  label: string
  /** Follow a recorded order where there is one. */
  follow: boolean
  /** Write the order as it happens: always, only once the recorded one no longer applies, or never. */
  write: 'always' | 'when-diverged' | 'never'
  /** A request the recording did not make fails (replay only), rather than ending the following. */
  strict: boolean
  scrub: (text: string) => string
  /** Told of a request the recording did not make (strict), before it fails. */
  onUnexpected?: (message: string) => void
}

/** A scope that keeps no order (the grader's calls, a cassette without models). */
export const unordered: OrderScope = {
  request: () => ({ turn: async () => {}, close: () => {} }),
  reading: (reading) => reading,
  diverge: () => {},
  unmet: () => [],
  following: async () => false,
  written: async () => {},
}

function parseOrder(text: string): Step[] {
  const steps: Step[] = []
  for (const raw of text.split('\n')) {
    let line: Line
    try {
      line = JSON.parse(raw) as Line
    } catch {
      continue // a line cut by a killed recording
    }
    if (!Array.isArray(line) || typeof line[1] !== 'number') continue
    if (line[0] === 'i' && typeof line[2] === 'string') steps.push({ kind: 'i', n: line[1], id: line[2], description: String(line[3] ?? line[2]), done: false })
    else if (line[0] === 'c') for (let count = Number(line[2]) || 1; count > 0; count--) steps.push({ kind: 'c', n: line[1], done: false })
    else if (line[0] === 'd') steps.push({ kind: line[2] === 1 ? 'cut' : 'd', n: line[1], done: false })
  }
  return steps
}

/** Order files being written by this process: a scope reading one waits for them (a recording replayed at once). */
const pendingWrites = new Map<string, Promise<void>>()

/** Keeps the order as it happens, and writes it (when it is to be) each time a request settles. */
function orderWriter(options: ScopeOptions) {
  const lines: Line[] = []
  let file: string | undefined
  let written = 0
  let writing = options.write === 'always'
  let chain: Promise<void> = Promise.resolve()
  let failure: unknown
  /** Writes what is kept and not yet written, after what is being written; a failure is thrown by the next `flush`. */
  const flush = (): void => {
    if (failure !== undefined) {
      const error = failure
      failure = undefined
      throw error
    }
    if (!writing || !file || written === lines.length) return
    const text = options.scrub(
      `${lines
        .slice(written)
        .map((line) => JSON.stringify(line))
        .join('\n')}\n`,
    )
    const first = written === 0
    written = lines.length
    const target = file
    const current = chain
      .then(async () => {
        await mkdir(join(options.folder, 'order'), { recursive: true })
        await (first ? writeFile(target, text) : appendFile(target, text))
      })
      .catch((error: unknown) => {
        failure = error
      })
      .finally(() => {
        if (pendingWrites.get(target) === current) pendingWrites.delete(target)
      })
    chain = current
    pendingWrites.set(target, current)
  }
  return {
    setFile: (path: string) => {
      file = path
    },
    keep(line: Line): void {
      if (options.write === 'never') return
      const last = lines[lines.length - 1]
      // Pieces in a row of one request are one line, unless that line is written already.
      if (line[0] === 'c' && last?.[0] === 'c' && last[1] === line[1] && lines.length > written) last[2] += 1
      else lines.push(line)
    },
    flush,
    /** Resolves once everything kept so far is written (or failed: then it rejects). */
    async written(): Promise<void> {
      flush()
      await chain
      flush()
    },
    writing: () => writing,
    startWriting(): void {
      if (options.write === 'when-diverged') writing = true
      flush()
    },
  }
}

/** The order of one run: followed from its file if there is one (`follow`), and kept as it happens. */
export function orderScope(options: ScopeOptions): OrderScope {
  return new Scope(options)
}

class Scope implements OrderScope {
  private readonly writer: ReturnType<typeof orderWriter>
  private state: 'new' | 'loading' | 'following' | 'free'
  private loaded: Promise<void> = Promise.resolve()
  private steps: Step[] = []
  private position = 0
  /** Recorded requests not yet made again, by entry id: their steps, earliest first. */
  private readonly unmade = new Map<string, number[]>()
  /** Steps not yet done, by request. */
  private readonly stepsOf = new Map<number, number[]>()
  /** How many of each request's steps are not done yet. */
  private readonly left = new Map<number, number>()
  private readonly waiting = new Map<number, (step?: StepKind) => void>()
  private own = 0
  /** Counts what the run does (asks, reads, settles), so the idle watch sees it is not still. */
  private activity = 0
  private reads = 0
  private handing = false
  private watching = false

  constructor(private readonly options: ScopeOptions) {
    this.writer = orderWriter(options)
    this.state = options.follow ? 'new' : 'free'
  }

  private fileFor(id: string): string {
    return join(this.options.folder, 'order', `${createHash('sha256').update(`${this.options.label}\n${id}`).digest('hex')}.jsonl`)
  }

  private async load(file: string): Promise<void> {
    let text: string | undefined
    await pendingWrites.get(file)
    try {
      text = await readFile(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    this.steps = text === undefined ? [] : parseOrder(text)
    const into = <K>(map: Map<K, number[]>, key: K, index: number) => {
      const list = map.get(key)
      if (list) list.push(index)
      else map.set(key, [index])
    }
    for (const [index, step] of this.steps.entries()) {
      if (step.kind === 'i' && step.id) {
        into(this.unmade, step.id, index)
        continue
      }
      into(this.stepsOf, step.n, index)
      this.left.set(step.n, (this.left.get(step.n) ?? 0) + 1)
    }
    if (this.steps.length) this.state = 'following'
    else {
      this.state = 'free'
      this.writer.startWriting()
    }
  }

  /** Marks a step done; a request's pieces and end are also counted off what is left of it. */
  private done(index: number): void {
    const step = this.steps[index]
    if (!step || step.done) return
    step.done = true
    if (step.kind !== 'i') this.left.set(step.n, (this.left.get(step.n) ?? 1) - 1)
  }

  /** A step taken as never coming; for a request never made, the rest of it too. */
  private passOver(index: number): void {
    const step = this.steps[index]
    this.done(index)
    if (step?.kind === 'i') for (const other of this.stepsOf.get(step.n) ?? []) this.done(other)
  }

  /** Wakes every waiting request, one per turn of the event loop (so a new recording of the order can be followed in turn). */
  private release(): void {
    const wakes = [...this.waiting.values()]
    this.waiting.clear()
    const next = () => {
      wakes.shift()?.()
      if (wakes.length) setImmediate(next)
    }
    next()
  }

  /** The recorded order no longer applies: hand everything over as it comes, and record the order anew where the mode records. */
  diverge(): void {
    this.state = 'free'
    this.release()
    this.writer.startWriting()
  }

  /** Hands over the next recorded piece if its request waits for it; one per turn of the event loop. */
  private pump(): void {
    this.activity++
    if (this.state !== 'following' || this.handing) return
    for (;;) {
      const step = this.steps[this.position]
      if (!step) {
        // The recording ends here (all of it done, or a killed recording): the rest comes as it comes.
        this.state = 'free'
        this.release()
        return
      }
      if (step.done) {
        this.position++
        continue
      }
      const wake = step.kind === 'i' ? undefined : this.waiting.get(step.n)
      if (!wake) break
      this.done(this.position++)
      this.waiting.delete(step.n)
      // Pieces of one stream with nothing recorded between them came as a burst (as a network
      // read hands several over): the next is handed over as soon as the stream is read again.
      const next = this.nextStep()
      if (step.kind === 'c' && next && next.kind !== 'i' && next.n === step.n) {
        wake(step.kind)
        return
      }
      this.handing = true
      wake(step.kind as StepKind)
      // The run takes in what it was handed (microtasks) before the next piece comes.
      setImmediate(() => {
        this.handing = false
        this.pump()
      })
      return
    }
    if (this.waiting.size > 0) this.watchIdle()
  }

  /** The first step from the position on not yet done. */
  private nextStep(): Step | undefined {
    for (let index = this.position; index < this.steps.length; index++) if (!this.steps[index]?.done) return this.steps[index]
    return undefined
  }

  /** A run whose every request waits on a step that does not come: that step is passed over. */
  private watchIdle(): void {
    if (this.watching) return
    this.watching = true
    let seen = this.activity
    let turns = 0
    const check = () => {
      if (this.state !== 'following' || this.waiting.size === 0) {
        this.watching = false
        return
      }
      if (this.activity !== seen || this.reads > 0 || this.handing) {
        seen = this.activity
        turns = 0
      } else if (++turns >= IDLE_TURNS) {
        this.watching = false
        this.passOver(this.position)
        this.pump()
        return
      }
      setImmediate(check)
    }
    setImmediate(check)
  }

  request(id: string, description: string): Ticket {
    this.activity++
    const mine = this.own++
    this.writer.keep(['i', mine, id, description])
    if (this.state === 'new') {
      this.state = 'loading'
      this.writer.setFile(this.fileFor(id))
      this.reads++
      this.loaded = this.load(this.fileFor(id)).finally(() => {
        this.reads--
      })
    } else if (mine === 0) this.writer.setFile(this.fileFor(id))
    const ticket = { n: undefined as number | undefined, unexpected: false, settled: false }
    const match = () => {
      if (this.state !== 'following') return
      const index = this.unmade.get(id)?.shift()
      if (index === undefined) {
        ticket.unexpected = true
        this.diverge()
        return
      }
      this.done(index)
      ticket.n = this.steps[index]?.n
      this.pump()
    }
    const matched = this.state === 'loading' ? this.loaded.then(match) : Promise.resolve(match())
    const keep = (kind: StepKind) => {
      if (ticket.settled) return
      if (kind !== 'c') ticket.settled = true
      this.writer.keep(kind === 'c' ? ['c', mine, 1] : kind === 'cut' ? ['d', mine, 1] : ['d', mine])
    }
    return {
      turn: async (kind) => {
        await matched
        if (ticket.unexpected && this.options.strict) this.refuse(description)
        const step = await this.wait(ticket.n)
        keep(step ?? kind)
        // Written behind the run, not before it is handed the result: the order is what the run saw.
        if ((step ?? kind) !== 'c') this.writer.flush()
        return step
      },
      close: () => {
        keep('cut')
        try {
          this.writer.flush()
        } catch {
          // told by the next request's end
        }
        if (ticket.n === undefined) return
        for (const index of this.stepsOf.get(ticket.n) ?? []) this.done(index)
        this.pump()
      },
    }
  }

  /** A request its recording did not make, replaying only: it fails, naming it. */
  private refuse(description: string): never {
    const message = `the run asked ${description}, which its recording in ${this.options.folder} did not ask: the run no longer matches its recording`
    this.options.onUnexpected?.(message)
    throw new LaconicError(message, {
      code: 'cassette-miss',
      hint: "record it again: run with the cassette in 'record-missing' mode (laconic eval --record-missing)",
    })
  }

  /** Waits until request `n`'s next step is due: its recorded turn when following, else a turn of the loop of its own when the order is being recorded. */
  private async wait(n: number | undefined): Promise<StepKind | undefined> {
    if (this.state === 'following' && n !== undefined && (this.left.get(n) ?? 0) > 0) return this.handedOver(n)
    // Recording the order: each piece is handed over in a turn of its own, as a replay will hand it over.
    if (this.writer.writing()) await new Promise((resolve) => setImmediate(resolve))
    return undefined
  }

  /** Waits for request `n`'s next recorded step, and says what it was (undefined: the order was given up meanwhile). */
  private handedOver(n: number): Promise<StepKind | undefined> {
    return new Promise((resolve) => {
      this.waiting.set(n, resolve)
      this.pump()
    })
  }

  async reading<T>(reading: Promise<T>): Promise<T> {
    this.reads++
    try {
      return await reading
    } finally {
      this.reads--
      this.pump()
    }
  }

  written(): Promise<void> {
    return this.writer.written()
  }

  async following(): Promise<boolean> {
    await this.loaded
    return this.state === 'following'
  }

  unmet(): string[] {
    return [...this.unmade.values()]
      .flat()
      .sort((a, b) => a - b)
      .map((index) => this.steps[index]?.description ?? '')
  }
}
