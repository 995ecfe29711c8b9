import { spawnSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent, type Checkpoint, type CheckpointStore } from '../../src/index.js'
import { fileCheckpoints } from '../../src/node/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'laconic-cp-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const sample = (runId: string, seq = 3): Checkpoint => ({
  version: 2,
  runId,
  question: 'q',
  strategy: 'scratchpad',
  options: {},
  input: {},
  status: 'running',
  state: { iteration: 1 },
  cost: {
    llm: 0.5,
    search: 0,
    embedding: 0,
    total: 0.5,
    inputTokens: 3,
    outputTokens: 4,
    llmCalls: 1,
    unpricedCalls: 0,
    embeddingTokens: 0,
    searches: 0,
    fetches: 0,
  },
  seq,
  facts: [],
  knowledge: 'k',
  ids: { q: 1 },
  savedAt: 1,
})

describe('fileCheckpoints', () => {
  it('is a CheckpointStore from laconic-research/node (it needs node:fs, so not on the root entry)', () => {
    expectTypeOf(fileCheckpoints).parameters.toEqualTypeOf<[string]>()
    expectTypeOf(fileCheckpoints).returns.toEqualTypeOf<CheckpointStore>()
  })

  it('saves by replacing the file whole, and loads what was saved', async () => {
    const store = fileCheckpoints(join(dir, 'nested'))
    await store.save(sample('run-1', 3))
    await store.save(sample('run-1', 7))
    expect(await store.load('run-1')).toEqual(sample('run-1', 7))
    expect(await readdir(join(dir, 'nested'))).toEqual(['run-1.json'])
    expect(await store.load('run-2')).toBeUndefined()
    await store.delete('run-1')
    expect(await store.load('run-1')).toBeUndefined()
  })

  it('a corrupt file or one from another schema version is a config error naming the file', async () => {
    const store = fileCheckpoints(dir)
    await writeFile(join(dir, 'bad.json'), '{"version": 2, "runId": "bad", "quest')
    await expect(store.load('bad')).rejects.toMatchObject({ code: 'config', message: expect.stringMatching(/bad\.json.*not JSON/) })
    await writeFile(join(dir, 'old.json'), JSON.stringify({ ...sample('old'), version: 1 }))
    await expect(store.load('old')).rejects.toMatchObject({ code: 'config', message: expect.stringMatching(/schema version 1; this laconic reads version 2/) })
  })

  it('refuses run ids that are not plain names (no path outside the directory)', async () => {
    const store = fileCheckpoints(dir)
    for (const id of ['../escape', 'a/b', '', '.hidden']) await expect(store.load(id)).rejects.toMatchObject({ code: 'config' })
  })

  it('the lock is exclusive until released, and a dead process’s lock is taken over', async () => {
    const store = fileCheckpoints(dir)
    const release = await store.acquire('run-1')
    expect(release).toBeTypeOf('function')
    expect(await fileCheckpoints(dir).acquire('run-1')).toBeUndefined()
    await release!()
    const again = await store.acquire('run-1')
    expect(again).toBeTypeOf('function')
    await again!()

    // A pid that existed and is gone: a child that has exited (and been reaped).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!
    await writeFile(join(dir, 'run-2.lock'), JSON.stringify({ pid: gone, host: hostname(), token: 'dead' }))
    const taken = await store.acquire('run-2')
    expect(taken).toBeTypeOf('function')
    expect(JSON.parse(await readFile(join(dir, 'run-2.lock'), 'utf8'))).toMatchObject({ pid: process.pid })
    // A live holder on this host, or any holder on another host, keeps its lock.
    await writeFile(join(dir, 'run-3.lock'), JSON.stringify({ pid: process.pid, host: hostname(), token: 'alive' }))
    expect(await store.acquire('run-3')).toBeUndefined()
    await writeFile(join(dir, 'run-4.lock'), JSON.stringify({ pid: gone, host: `not-${hostname()}`, token: 'remote' }))
    expect(await store.acquire('run-4')).toBeUndefined()
  })

  it('a resume refused for a mismatched strategy leaves the file byte for byte', async () => {
    const store = fileCheckpoints(dir)
    const llm = scriptedLLM({ replies: () => 'Action: Answer' })
    const search = mockSearch({ results: () => [] })
    const run = createAgent({ llm, search, scratchpad: { maxSteps: 1 } }).research('q', { checkpoints: store })
    await run.result
    const before = await readFile(join(dir, `${run.runId}.json`), 'utf8')
    await expect(
      createAgent({ llm, search, scratchpad: { maxSteps: 1 }, strategy: 'deep' }).resume(run.runId, { checkpoints: store }).result,
    ).rejects.toMatchObject({
      code: 'config',
    })
    expect(await readFile(join(dir, `${run.runId}.json`), 'utf8')).toBe(before)
    expect((await readdir(dir)).sort()).toEqual([`${run.runId}.json`])
  })
})
