/**
 * Which sessions have been idle too long: a session is idle while none of its requests is in
 * flight (a tool call streaming its progress is not idle; the caller says what counts), and
 * `expire` is called once it has been idle for `idleMs`. `laconic mcp --http` closes such sessions, so a client that went away
 * without closing its sessions does not hold the server's slots forever.
 */
export interface IdleExpiry {
  /** A new session: idle from now. */
  add(id: string): void
  /** A request of the session started; call what it returns when the request is over. */
  busy(id: string): () => void
  /** The session is gone (closed, or expired): forget it. */
  remove(id: string): void
  /** Forget every session (the server stops). */
  clear(): void
}

interface Tracked {
  inFlight: number
  timer: ReturnType<typeof setTimeout> | undefined
}

export function idleExpiry(idleMs: number, expire: (id: string) => void): IdleExpiry {
  const sessions = new Map<string, Tracked>()
  const arm = (id: string, tracked: Tracked) => {
    clearTimeout(tracked.timer)
    // unref: an idle session must not keep the process alive once the server is closed.
    tracked.timer = setTimeout(() => {
      sessions.delete(id)
      expire(id)
    }, idleMs)
    tracked.timer.unref?.()
  }
  return {
    add(id) {
      const tracked: Tracked = { inFlight: 0, timer: undefined }
      sessions.set(id, tracked)
      arm(id, tracked)
    },
    busy(id) {
      const tracked = sessions.get(id)
      if (!tracked) return () => {}
      tracked.inFlight++
      clearTimeout(tracked.timer)
      tracked.timer = undefined
      let done = false
      return () => {
        if (done) return
        done = true
        tracked.inFlight--
        if (tracked.inFlight === 0 && sessions.get(id) === tracked) arm(id, tracked)
      }
    },
    remove(id) {
      clearTimeout(sessions.get(id)?.timer)
      sessions.delete(id)
    },
    clear() {
      for (const tracked of sessions.values()) clearTimeout(tracked.timer)
      sessions.clear()
    },
  }
}
