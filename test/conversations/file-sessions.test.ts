import { mkdtempSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import type { SessionState } from '../../src/index.js'
import { fileSessions } from '../../src/node/index.js'
import { startChild } from '../redis/processes.js'
import { sessionStoreContract } from '../support/session-store-contract.js'

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'laconic-chats-'))
  dirs.push(dir)
  return dir
}

sessionStoreContract('fileSessions', () => {
  const dir = tempDir()
  return {
    store: fileSessions(dir),
    reopen: () => fileSessions(dir),
    corrupt: (chatId, text) => writeFile(join(dir, `${chatId}.json`), text),
  }
})

const empty: SessionState = { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] }

describe('fileSessions', () => {
  it('keeps one file per chat and leaves no lock or temporary file behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'laconic-chats-'))
    dirs.push(dir)
    const store = fileSessions(join(dir, 'nested'))
    await store.save('chat-1', empty)
    await store.update('chat-1', (current) => ({ ...(current ?? empty), knowledge: 'k' }))
    expect(await readdir(join(dir, 'nested'))).toEqual(['chat-1.json'])
  })

  it('takes over a lock left by a process that died, and waits out a live one until its timeout', async () => {
    const dir = tempDir()
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number
    await writeFile(join(dir, 'chat-2.lock'), JSON.stringify({ pid: gone, host: hostname(), token: 'dead' }))
    const store = fileSessions(dir, { lockTimeoutMs: 0 })
    await store.update('chat-2', () => empty)
    expect(await store.load('chat-2')).toEqual(empty)
    await writeFile(join(dir, 'chat-2.lock'), JSON.stringify({ pid: process.pid, host: hostname(), token: 'live' }))
    await expect(store.update('chat-2', () => empty)).rejects.toMatchObject({ code: 'locked', message: expect.stringContaining('chat-2') })
  })

  it('loses no write of updates of one chat from three processes at once', async () => {
    const dir = tempDir()
    const script = join(dir, 'update.mts')
    // Each process appends 10 answers, one update each, all at once.
    await writeFile(
      script,
      `import { fileSessions } from ${JSON.stringify(join(process.cwd(), 'src/node/index.ts'))}
const store = fileSessions(process.argv[2])
const empty = { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] }
await Promise.all(Array.from({ length: 10 }, (_, i) => store.update('chat-3', (current) => {
  const base = current ?? empty
  return { ...base, priorAnswers: [...base.priorAnswers, { query: 'q', answer: process.argv[3] + '-' + i }] }
})))
console.log('done')`,
    )
    const children = ['a', 'b', 'c'].map((name) => startChild([script, dir, name]))
    await Promise.all(children.map((child) => child.waitFor(/done/)))
    const saved = await fileSessions(dir).load('chat-3')
    expect(saved?.priorAnswers).toHaveLength(30)
    expect(new Set(saved?.priorAnswers.map((p) => p.answer)).size).toBe(30)
  }, 60_000)
})
