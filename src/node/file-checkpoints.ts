import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { parseCheckpoint, type CheckpointStore, type ReleaseLock } from '../core/contracts/checkpoint.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { readIfThere, tryLockFile, writeAtomically } from './file-lock.js'

/** Run ids become file names: only these characters, so an id can never name a path outside `dir`. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

/**
 * Checkpoints as files: `DIR/RUN_ID.json`, each written to a temporary file in `dir` and renamed
 * over the old one, so a reader (or a crash) sees the old checkpoint or the new one, never half
 * of one. The lock is `DIR/RUN_ID.lock`, created exclusively and holding the holder's pid and
 * host; a lock left by a process of this host that no longer exists (killed) is taken over.
 */
export function fileCheckpoints(dir: string): CheckpointStore {
  if (typeof dir !== 'string' || !dir) throw new LaconicError('fileCheckpoints needs a directory', { code: 'config' })
  const pathOf = (runId: string, ext: string) => {
    if (typeof runId !== 'string' || !SAFE_ID.test(runId)) {
      throw new LaconicError(`\`${String(runId).slice(0, 80)}\` is not a run id`, { code: 'config', hint: 'run ids are letters, digits, - and _' })
    }
    return join(dir, `${runId}${ext}`)
  }

  return {
    async save(checkpoint) {
      await writeAtomically(pathOf(checkpoint.runId, '.json'), `${JSON.stringify(checkpoint, null, 2)}\n`)
    },
    async load(runId) {
      const path = pathOf(runId, '.json')
      const text = await readIfThere(path, 'checkpoint file')
      return text === undefined ? undefined : parseCheckpoint(text, `the checkpoint file ${path}`)
    },
    async delete(runId) {
      await rm(pathOf(runId, '.json'), { force: true })
    },
    async acquire(runId): Promise<ReleaseLock | undefined> {
      return tryLockFile(pathOf(runId, '.lock'))
    },
  }
}
