/** `laconic mcp --http` closes sessions left idle (issue 35, item 16): the expiry, on fake timers. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { idleExpiry } from '../../src/cli/idle-expiry.js'

describe('idleExpiry', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('expires a session idle for idleMs, once, and not a moment before', () => {
    const expired: string[] = []
    const idle = idleExpiry(1_000, (id) => expired.push(id))
    idle.add('a')
    vi.advanceTimersByTime(999)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(expired).toEqual(['a'])
    vi.advanceTimersByTime(10_000)
    expect(expired).toEqual(['a'])
  })

  it('a request in flight keeps the session; its end starts the idle time again', () => {
    const expired: string[] = []
    const idle = idleExpiry(1_000, (id) => expired.push(id))
    idle.add('a')
    vi.advanceTimersByTime(900)
    const first = idle.busy('a')
    const second = idle.busy('a')
    vi.advanceTimersByTime(60_000)
    expect(expired).toEqual([])
    first()
    vi.advanceTimersByTime(60_000)
    expect(expired).toEqual([])
    second()
    second()
    vi.advanceTimersByTime(999)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(expired).toEqual(['a'])
  })

  it('forgets a session closed or cleared, and ignores one it does not know', () => {
    const expired: string[] = []
    const idle = idleExpiry(1_000, (id) => expired.push(id))
    idle.add('a')
    idle.add('b')
    idle.add('c')
    idle.remove('a')
    idle.busy('unknown')()
    vi.advanceTimersByTime(500)
    idle.busy('b')()
    vi.advanceTimersByTime(500)
    expect(expired).toEqual(['c'])
    idle.clear()
    vi.advanceTimersByTime(10_000)
    expect(expired).toEqual(['c'])
  })
})
