import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { ReleaseLock } from '../core/contracts/checkpoint.js'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { checkChatId, parseSessionState, type SessionState, type SessionStore } from '../conversations/session-store.js'
import { readIfThere, tryLockFile, writeAtomically } from './file-lock.js'

/** Options of `fileSessions()`. */
export interface FileSessionsOptions {
  /**
   * How long `update` waits for a chat's lock held by a live process before it gives up with a
   * `locked` error. A turn holds it only to read, merge and write one small file.
   * @defaultValue 10000
   */
  lockTimeoutMs?: number
}

/**
 * Conversations as files: `DIR/CHAT_ID.json`, each written to a temporary file in `dir` and
 * renamed over the old one, so a reader (or a crash) sees the old state or the new one, never half
 * of one. `update` holds `DIR/CHAT_ID.lock` (created exclusively, holding its pid and host) from
 * its read to its write, so updates of one chat from any number of processes never lose each
 * other's writes; a lock left by a process of this host that no longer exists is taken over.
 */
export function fileSessions(dir: string, options: FileSessionsOptions = {}): SessionStore {
  if (typeof dir !== 'string' || !dir) throw new LaconicError('fileSessions needs a directory', { code: 'config', hint: "e.g. fileSessions('./chats')" })
  const { lockTimeoutMs = 10_000 } = options
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0) {
    throw new LaconicError('`lockTimeoutMs` must be a number of milliseconds, 0 or more', { code: 'config' })
  }
  const pathOf = (chatId: string, ext: string) => join(dir, `${checkChatId(chatId)}${ext}`)

  const load = async (chatId: string): Promise<SessionState | undefined> => {
    const path = pathOf(chatId, '.json')
    const text = await readIfThere(path, 'session file')
    return text === undefined ? undefined : parseSessionState(text, `the session file ${path}`)
  }
  const save = async (chatId: string, state: SessionState) => {
    const checked = parseSessionState(state, `the session given for chat ${chatId}`)
    await writeAtomically(pathOf(chatId, '.json'), `${JSON.stringify(checked)}\n`)
  }

  /** Waits for the chat's lock: tries again after a short pause (growing to 50 ms) while a live process holds it. */
  const lock = async (chatId: string): Promise<ReleaseLock> => {
    const path = pathOf(chatId, '.lock')
    const deadline = Date.now() + lockTimeoutMs
    for (let pause = 2; ; pause = Math.min(50, pause * 2)) {
      const release = await tryLockFile(path)
      if (release) return release
      if (Date.now() >= deadline) {
        throw new LaconicError(`the session of chat ${chatId} stayed locked for ${lockTimeoutMs} ms`, {
          code: 'locked',
          hint: `another process holds ${path}; if none does, delete the file`,
        })
      }
      await new Promise((resolve) => setTimeout(resolve, pause))
    }
  }

  return {
    load,
    save,
    async delete(chatId) {
      await rm(pathOf(chatId, '.json'), { force: true })
    },
    async update(chatId, change) {
      const release = await lock(chatId)
      try {
        const next = change(await load(chatId))
        await save(chatId, next)
        return next
      } finally {
        await release()
      }
    },
  }
}
