/** The CLI's `--memory` waits for a run's write before the process exits: `trackWrites` is how it knows. */
import { describe, expect, it } from 'vitest'
import { trackWrites } from '../../src/cli/memory.js'
import type { MemoryStore } from '../../src/index.js'

type MemoryEntry = Parameters<MemoryStore['remember']>[0]

const entry: MemoryEntry = { runId: 'r1', question: 'Q?', answer: 'A [1].', facts: [{ text: 'A.', url: 'https://a.example/' }], at: new Date(0).toISOString() }

/** A store whose writes wait until the test settles them. */
function heldStore() {
  const held: { resolve: () => void; reject: (error: Error) => void }[] = []
  const store: MemoryStore = {
    remember: () => new Promise<void>((resolve, reject) => held.push({ resolve, reject })),
    recall: async (question) => [{ text: `about ${question}`, url: 'https://a.example/', question }],
  }
  return { store, held }
}

describe('trackWrites', () => {
  it('settles writes() only once every write started has settled, failed ones too', async () => {
    const { store, held } = heldStore()
    const tracked = trackWrites(store)
    await expect(tracked.writes()).resolves.toBeUndefined()

    const first = tracked.store.remember(entry)
    const second = tracked.store.remember({ ...entry, runId: 'r2' })
    const waiting = tracked.writes()
    expect(await Promise.race([waiting, Promise.resolve('pending')])).toBe('pending')
    held[0]?.resolve()
    await first
    expect(await Promise.race([waiting, Promise.resolve('pending')])).toBe('pending')
    held[1]?.reject(new Error('disk full'))
    // The failure stays the caller's (the agent reports it); writes() only says it is over.
    await expect(second).rejects.toThrow('disk full')
    await expect(waiting).resolves.toBeUndefined()
  })

  it('recalls through the store it wraps', async () => {
    const tracked = trackWrites(heldStore().store)
    expect(await tracked.store.recall('llamas', { limit: 1 })).toEqual([{ text: 'about llamas', url: 'https://a.example/', question: 'llamas' }])
  })
})
