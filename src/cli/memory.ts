/**
 * `--memory PATH`: long-term memory in a LanceDB folder (tables `memory_*`, so it may share a
 * knowledge base's folder), embedded by the `--embed-*` flags or the embedder the folder
 * recorded. A run recalls the earlier runs' findings; a finished run is written after it ends,
 * and the command waits for that write before it exits (the agent itself does not wait for it).
 */
import { mkdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { MemoryOptions, MemoryStore } from '../core/contracts/long-term-memory.js'
import { memoryStore } from '../kb/index.js'
import { recordEmbedder, resolveEmbedder } from './embedder.js'
import { loadOptional } from './optional-package.js'
import type { EmbedFlags } from './kb-flags.js'
import type { Env } from './llm.js'
import type { Output } from './render/index.js'

/** The agent's `memory`, and the writes it started, to wait for before the process exits. */
export interface CliMemory {
  options: MemoryOptions
  /** Settles once every write started so far has succeeded or failed (a failure is on stderr). */
  writes(): Promise<void>
}

/** Opens (and on first use creates) the memory at `path`; its embedder is recorded there, so later runs need no embed flags. */
export async function openMemory(path: string, flags: EmbedFlags, env: Env, stderr: Output): Promise<CliMemory> {
  const folder = resolve(path)
  // LanceDB's native module loads only when memory is used; a missing one is said before the folder is made.
  const { lanceVectorStore } = await loadOptional('--memory', 'lancedb', () => import('../lancedb/index.js'))
  const { embed, record } = await resolveEmbedder(folder, flags, env, '--memory')
  await mkdir(folder, { recursive: true })
  await recordEmbedder(folder, record)
  const { store, writes } = trackWrites(memoryStore({ store: lanceVectorStore({ path: folder, table: 'memory' }), embed }))
  return {
    options: {
      store,
      onWriteError: (error) => stderr.write(`laconic: remembering the run in ${path} failed: ${error instanceof Error ? error.message : String(error)}\n`),
    },
    writes,
  }
}

/** `store`, with `writes()`: settles once every `remember` started so far has settled, whether it succeeded or not. */
export function trackWrites(kept: MemoryStore): { store: MemoryStore; writes(): Promise<void> } {
  const pending = new Set<Promise<void>>()
  return {
    store: {
      recall: (question, options) => kept.recall(question, options),
      remember(entry, options) {
        const writing = kept.remember(entry, options)
        const settled: Promise<void> = writing.then(
          () => undefined,
          () => undefined,
        )
        pending.add(settled)
        void settled.then(() => pending.delete(settled))
        return writing
      },
    },
    writes: async () => {
      await Promise.all(pending)
    },
  }
}
