/**
 * What every `SessionStore` keeps to, run against each built-in store: plain load/save/delete,
 * an `update` that loses no write of concurrent updates, and a chat that a new agent over a new
 * store object (a restarted process) continues.
 */
import { describe, expect, it } from 'vitest'
import { createAgent, type SessionState, type SessionStore } from '../../src/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

export interface StoreUnderTest {
  store: SessionStore
  /** Another store object over the same data, as a restarted process would make. */
  reopen(): SessionStore
  /** Writes `text` raw where the store keeps `chatId`, to test what a corrupt state does (a store that keeps no text has none). */
  corrupt?(chatId: string, text: string): Promise<void>
}

const state = (answers: string[] = []): SessionState => ({
  version: 1,
  priorAnswers: answers.map((answer) => ({ query: `q ${answer}`, answer })),
  citations: [{ index: 1, url: 'https://a.example', title: 'A' }],
  knowledge: 'known',
  facts: [{ text: 'a fact', url: 'https://a.example' }],
})

const append = (answer: string) => (current: SessionState | undefined) => {
  const base = current ?? state()
  return { ...base, priorAnswers: [...base.priorAnswers, { query: `q ${answer}`, answer }] }
}

/** `make` is called in each test (after the file's `beforeAll`); `corruptible`: it gives `corrupt`. */
export function sessionStoreContract(name: string, make: () => StoreUnderTest, { corruptible = true } = {}): void {
  describe(`${name}: the SessionStore contract`, () => {
    it('loads what was saved, undefined for a chat it does not have, and forgets a deleted chat', async () => {
      const { store } = make()
      expect(await store.load('chat-a')).toBeUndefined()
      await store.save('chat-a', state(['one']))
      await store.save('chat-a', state(['one', 'two']))
      expect(await store.load('chat-a')).toEqual(state(['one', 'two']))
      await store.delete('chat-a')
      expect(await store.load('chat-a')).toBeUndefined()
      await store.delete('chat-never')
    })

    it('refuses a chat id that is not a plain name, and a state that is not one', async () => {
      const { store } = make()
      await expect(store.load('../x')).rejects.toMatchObject({ code: 'config' })
      await expect(store.save('chat-b', { ...state(), version: 2 } as never)).rejects.toMatchObject({ code: 'config' })
      expect(await store.load('chat-b')).toBeUndefined()
    })

    if (corruptible)
      it('refuses a corrupt or other-version stored state with a config error naming the problem', async () => {
        const under = make() as Required<StoreUnderTest>
        await under.corrupt('chat-c', '{"version": 1, "priorAns')
        await expect(under.store.load('chat-c')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('not JSON') })
        await under.corrupt('chat-c', JSON.stringify({ ...state(), version: 7 }))
        await expect(under.store.load('chat-c')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('format version 7') })
      })

    it('updates a new chat from undefined, and returns what it wrote', async () => {
      const { store } = make()
      let seen: SessionState | undefined | 'not called' = 'not called'
      const written = await store.update('chat-d', (current) => {
        seen = current
        return state(['first'])
      })
      expect(seen).toBeUndefined()
      expect(written).toEqual(state(['first']))
      expect(await store.load('chat-d')).toEqual(state(['first']))
    })

    it('loses no write of 12 updates of one chat at once, from two store objects', async () => {
      const under = make()
      const other = under.reopen()
      const answers = Array.from({ length: 12 }, (_, i) => `answer ${i}`)
      await Promise.all(answers.map((answer, i) => (i % 2 ? other : under.store).update('chat-e', append(answer))))
      const saved = await under.store.load('chat-e')
      expect(saved?.priorAnswers.map((p) => p.answer).sort()).toEqual([...answers].sort())
    })

    it('leaves the chat as it was when the change throws, and updates it afterwards', async () => {
      const { store } = make()
      await store.save('chat-f', state(['kept']))
      await expect(
        store.update('chat-f', () => {
          throw new Error('no change')
        }),
      ).rejects.toThrow('no change')
      expect(await store.load('chat-f')).toEqual(state(['kept']))
      await store.update('chat-f', append('after'))
      expect((await store.load('chat-f'))?.priorAnswers.map((p) => p.answer)).toEqual(['kept', 'after'])
    })

    it('a chat survives a restart: a new agent over a new store object continues it, the first turn in its planner prompt', async () => {
      const under = make()
      const corpus = [{ title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' }]
      const before = createAgent({
        models: {
          planner: scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer'] }),
          synthesizer: scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris [1].'] }),
        },
        search: mockSearch({ corpus }),
      })
      await before.session('chat-g', { store: under.store }).answer('What is the capital of France?')

      const planner = scriptedLLM({ replies: ['Action: Answer'] })
      const after = createAgent({ models: { planner, synthesizer: scriptedLLM({ replies: ['About 2 million.'] }) }, search: mockSearch({ corpus }) })
      const session = after.session('chat-g', { store: under.reopen() })
      await session.answer('How many people live there?')
      expect(planner.calls[0]?.prompt).toContain('Paris is the capital of France.')
      const saved = await session.state()
      expect(saved.priorAnswers.map((p) => p.answer)).toEqual(['Paris [1].', 'About 2 million.'])
      expect(saved.citations).toEqual([{ index: 1, url: 'https://fr.example', title: 'France' }])
    })
  })
}
