import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { link, mkdir, open, rename, rm, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import type { ReleaseLock } from '../core/contracts/checkpoint.js'
import { LaconicError } from '../core/contracts/laconic-error.js'

interface LockOwner {
  pid: number
  host: string
  token: string
}

export const isErrno = (error: unknown, code: string) => (error as NodeJS.ErrnoException | undefined)?.code === code

/**
 * The text of `path` when it is a regular file. Anything else planted under the name is refused
 * without reading it: a FIFO would block the read until a writer came (forever), a device
 * (`/dev/zero`) would never end. Opened non-blocking, so even opening a FIFO returns at once.
 */
async function readRegularFile(path: string): Promise<string> {
  // O_NONBLOCK is POSIX; Windows has no FIFOs to open and no such flag.
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' })
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/** The file's text, or undefined when there is no file; any other failure (not a regular file, say) is a `config` error naming the file as `what`. */
export async function readIfThere(path: string, what: string): Promise<string | undefined> {
  try {
    return await readRegularFile(path)
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined
    throw new LaconicError(`cannot read the ${what} ${path}: ${(error as Error).message}`, { code: 'config', cause: error })
  }
}

/** Writes `text` to a temporary file beside `path` and renames it over `path`: a reader (or a crash) sees the old file or the new one, never half of one. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
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

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readRegularFile(path)) as Partial<LockOwner>
    return typeof owner.pid === 'number' && typeof owner.host === 'string' && typeof owner.token === 'string' ? (owner as LockOwner) : undefined
  } catch {
    return undefined
  }
}

/** A lock whose holder is gone: a process of this host that no longer runs. Another host's lock is never judged. */
function isStale(owner: LockOwner | undefined): boolean {
  if (!owner) return false
  if (owner.host !== hostname()) return false
  try {
    process.kill(owner.pid, 0)
    return false
  } catch (error) {
    return isErrno(error, 'ESRCH')
  }
}

async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
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

/**
 * Takes the lock file `path` once: created exclusively (so one process of any number wins),
 * holding the holder's pid and host. A lock left by a process of this host that no longer
 * exists (killed) is taken over. Returns the function that gives it back, or undefined when a
 * live holder has it.
 */
export async function tryLockFile(path: string): Promise<ReleaseLock | undefined> {
  await mkdir(dirname(path), { recursive: true })
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
}
