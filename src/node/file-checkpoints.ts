import { randomUUID } from 'node:crypto'
import { link, mkdir, open, readFile, rename, rm, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { LaconicError, parseCheckpoint, type CheckpointStore, type ReleaseLock } from '../core/index.js'

/** Run ids become file names: only these characters, so an id can never name a path outside `dir`. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

interface LockOwner {
  pid: number
  host: string
  token: string
}

const isErrno = (error: unknown, code: string) => (error as NodeJS.ErrnoException | undefined)?.code === code

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

  const writeAtomically = async (path: string, text: string) => {
    await mkdir(dir, { recursive: true })
    const temp = `${path}.${process.pid}.${randomUUID()}.tmp`
    try {
      const handle = await open(temp, 'wx', 0o600)
      try {
        await handle.writeFile(text)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, path)
    } catch (error) {
      await rm(temp, { force: true })
      throw error
    }
  }

  const readOwner = async (path: string): Promise<LockOwner | undefined> => {
    try {
      const owner = JSON.parse(await readFile(path, 'utf8')) as Partial<LockOwner>
      return typeof owner.pid === 'number' && typeof owner.host === 'string' && typeof owner.token === 'string' ? (owner as LockOwner) : undefined
    } catch {
      return undefined
    }
  }

  /** A lock whose holder is gone: a process of this host that no longer runs. Another host's lock is never judged. */
  const isStale = (owner: LockOwner | undefined) => {
    if (!owner) return false
    if (owner.host !== hostname()) return false
    try {
      process.kill(owner.pid, 0)
      return false
    } catch (error) {
      return isErrno(error, 'ESRCH')
    }
  }

  const tryCreate = async (path: string, owner: LockOwner): Promise<boolean> => {
    try {
      const handle = await open(path, 'wx', 0o600)
      try {
        await handle.writeFile(JSON.stringify(owner))
      } finally {
        await handle.close()
      }
      return true
    } catch (error) {
      if (isErrno(error, 'EEXIST')) return false
      throw error
    }
  }

  return {
    async save(checkpoint) {
      await writeAtomically(pathOf(checkpoint.runId, '.json'), `${JSON.stringify(checkpoint, null, 2)}\n`)
    },
    async load(runId) {
      const path = pathOf(runId, '.json')
      let text: string
      try {
        text = await readFile(path, 'utf8')
      } catch (error) {
        if (isErrno(error, 'ENOENT')) return undefined
        throw new LaconicError(`cannot read the checkpoint file ${path}: ${(error as Error).message}`, { code: 'config', cause: error })
      }
      return parseCheckpoint(text, `the checkpoint file ${path}`)
    },
    async delete(runId) {
      await rm(pathOf(runId, '.json'), { force: true })
    },
    async acquire(runId): Promise<ReleaseLock | undefined> {
      const path = pathOf(runId, '.lock')
      await mkdir(dir, { recursive: true })
      const mine: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID() }
      if (!(await tryCreate(path, mine))) {
        const owner = await readOwner(path)
        if (!isStale(owner)) return undefined
        // Move the dead holder's lock aside (one taker wins the rename), check that what moved is
        // the lock judged stale, not one a faster taker just made, then try again once.
        const aside = `${path}.${randomUUID()}.stale`
        try {
          await rename(path, aside)
        } catch (error) {
          if (isErrno(error, 'ENOENT')) return undefined
          throw error
        }
        const moved = await readOwner(aside)
        if (moved?.token !== owner?.token) {
          await link(aside, path).catch(() => undefined)
          await unlink(aside).catch(() => undefined)
          return undefined
        }
        await unlink(aside).catch(() => undefined)
        if (!(await tryCreate(path, mine))) return undefined
      }
      let released = false
      return async () => {
        if (released) return
        released = true
        // Only our own lock: if it was taken over meanwhile, it is not ours to remove.
        if ((await readOwner(path))?.token === mine.token) await unlink(path).catch(() => undefined)
      }
    },
  }
}
