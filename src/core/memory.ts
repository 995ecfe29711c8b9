import type { SessionFact } from './session.js'

/** A finished run as long-term memory keeps it. */
export interface MemoryEntry {
  runId: string
  question: string
  answer: string
  facts: SessionFact[]
  /** ISO time the run ended. */
  at: string
}

/** An earlier finding recalled for a new question: prior knowledge, cited as the source it came from. */
export interface RecalledFinding {
  text: string
  url: string
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
  remember(entry: MemoryEntry, options?: { signal?: AbortSignal }): Promise<void>
  recall(question: string, options?: { limit?: number; signal?: AbortSignal }): Promise<RecalledFinding[]>
}
