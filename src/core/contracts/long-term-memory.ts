import type { Cost } from './run-cost.js'
import type { UsageReporter } from './provider-usage.js'

/**
 * A finding a conversation keeps between turns, and long-term memory across runs: the fact's
 * text and where it came from. Plain JSON, so it survives a restart and moves between processes.
 */
export interface SessionFact {
  /** The fact, one self-contained statement. */
  text: string
  /** Where it was found: what an answer that uses it cites. */
  url: string
  /** The source's title, when known. */
  title?: string
}

/** A finished run as long-term memory keeps it. */
export interface MemoryEntry {
  /** The run's id: writing the same run again replaces its record. */
  runId: string
  /** The question the run answered. */
  question: string
  /** Its answer, trimmed, with its citation markers. */
  answer: string
  /** Its findings, each with its source: the run's facts, else its answer's cited sentences. */
  facts: SessionFact[]
  /** ISO time the run ended. */
  at: string
}

/** An earlier finding recalled for a new question: prior knowledge, cited as the source it came from. */
export interface RecalledFinding {
  /** The finding, as the earlier run found it. */
  text: string
  /** Its source: what an answer that uses it cites. */
  url: string
  /** The source's title, when known. */
  title?: string
  /** The question of the run that found it. */
  question: string
}

/**
 * Long-term memory across runs: finished runs are written, and a new run recalls the earlier
 * findings most relevant to its question. `memoryStore({ store, embed })` in
 * `laconic-research/kb` keeps it in a vector store; any other implementation works.
 */
export interface MemoryStore {
  /**
   * Writes a finished run (the agent calls it after `run-end`, when the write policy keeps the
   * run). `onUsage` is told what the write spent (its findings' embeddings): see `MemoryOptions.onWrite`.
   */
  remember(entry: MemoryEntry, options?: { signal?: AbortSignal; onUsage?: UsageReporter }): Promise<void>
  /**
   * The earlier findings most relevant to `question`, closest first, at most `limit`. `onUsage`
   * is told what the recall spent (the question's embedding): the run counts it in its cost.
   */
  recall(question: string, options?: { limit?: number; signal?: AbortSignal; onUsage?: UsageReporter }): Promise<RecalledFinding[]>
}

/**
 * Which finished runs long-term memory keeps. A run that ended `error`, `aborted` or `paused` is
 * never written, whatever the policy; `false` writes nothing (recall only).
 */
export type MemoryWritePolicy =
  | false
  | {
      /** Answers shorter than this (trimmed) are not worth keeping. @defaultValue 40 */
      minAnswerChars?: number
      /** Findings with a source the run must have (its facts, else its answer's cited sentences). @defaultValue 1 */
      minFindings?: number
    }

/**
 * The agent's long-term memory (`createAgent({ memory })`): before planning, a run recalls the
 * earlier findings most relevant to its question and gives them to the strategy as prior
 * knowledge (`ResearchOptions.recalled`, each cited as the source it came from); after
 * `run-end`, a finished run is written to the store when the write policy keeps it. Off when
 * absent.
 */
export interface MemoryOptions {
  /** Where memory is kept: `memoryStore({ store, embed })` from `laconic-research/kb`, or your own. */
  store: MemoryStore
  /** Findings recalled for a new run at most; 0 recalls nothing (runs are still written). @defaultValue 5 */
  recall?: number
  /** Characters of recalled text at most, all findings together. @defaultValue 2000 */
  recallChars?: number
  /** Which finished runs are written. @defaultValue `{ minAnswerChars: 40, minFindings: 1 }` */
  writePolicy?: MemoryWritePolicy
  /**
   * Called when writing a finished run fails (the run's result is not affected).
   * @defaultValue a `console.warn` naming the run
   */
  onWriteError?: (error: unknown, runId: string) => void
  /**
   * Called when a finished run has been written, with what the write spent (the store's
   * `onUsage` reports: its findings' embeddings), priced as the run prices its calls. The write
   * happens after `run-end`, so this is not in the run's result: add it to your own accounts.
   */
  onWrite?: (cost: Cost, runId: string) => void
}
