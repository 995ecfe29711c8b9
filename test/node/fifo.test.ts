/**
 * A FIFO planted where a store keeps its files (issue 35, item 15): reading it would wait for a
 * writer forever. The file stores read only regular files, so each is refused at once.
 * POSIX only (`mkfifo`); Windows has no FIFOs to plant.
 */
import { spawnSync } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileCheckpoints, fileSessions } from '../../src/node/index.js'

const posix = process.platform !== 'win32'
if (!posix) console.warn('test/node/fifo.test.ts: skipped on Windows, which has no FIFOs (mkfifo)')

function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path])
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${made.stderr?.toString() ?? made.error?.message}`)
}

describe.skipIf(!posix)('a FIFO planted as a stored file', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-fifo-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('fileSessions.load refuses it as not a regular file, instead of waiting for a writer', async () => {
    const sessions = join(dir, 'sessions')
    await fileSessions(sessions).save('other', { version: 1, priorAnswers: [], citations: [], knowledge: '', facts: [] })
    mkfifo(join(sessions, 'planted.json'))
    await expect(fileSessions(sessions).load('planted')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('not a regular file') })
    // The store still reads its regular files.
    expect(await fileSessions(sessions).load('other')).toMatchObject({ version: 1 })
  })

  it('fileCheckpoints.load refuses it the same way', async () => {
    const checkpoints = join(dir, 'checkpoints')
    await mkdir(checkpoints, { recursive: true })
    mkfifo(join(checkpoints, 'run-1.json'))
    await expect(fileCheckpoints(checkpoints).load('run-1')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('not a regular file') })
  })

  it('a FIFO as a lock file is a lock held by someone, not a read that never ends', async () => {
    const checkpoints = join(dir, 'locks')
    await mkdir(checkpoints, { recursive: true })
    mkfifo(join(checkpoints, 'planted.lock'))
    expect(await fileCheckpoints(checkpoints).acquire('planted')).toBeUndefined()
    // A run id with no lock file is free to take.
    expect(await fileCheckpoints(checkpoints).acquire('free')).toEqual(expect.any(Function))
  })
})
