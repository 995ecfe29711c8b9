/**
 * Node's parts live under src/node and are installed into the Web-standard modules, never
 * imported by them. The Web-standard sources alone, on Node, refuse with a `config` error naming
 * the one line to add (never a quiet downgrade of the SSRF guard or of off-thread parsing); the
 * Node build of an entry works with no step of the user's.
 *
 * Each case loads the sources afresh (`vi.resetModules`), without the runtime the test setup
 * installs (test/support/node-runtime.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

const ONE_LINE = "import 'laconic-research/node'"
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'laconic-runtime-'))
  await writeFile(join(dir, 'sky.md'), '# Sky\n\nAir scatters blue light most: Rayleigh scattering.\n')
  await writeFile(join(dir, 'page.html'), '<html><head><title>Sea</title></head><body><p>The sea looks blue too.</p></body></html>')
})
afterAll(() => rm(dir, { recursive: true, force: true }))
beforeEach(() => {
  vi.resetModules()
})

describe('the Web-standard sources on Node, without Node parts installed', () => {
  it('httpFetch refuses to start rather than fetch without the DNS-pinned guard', async () => {
    const { httpFetch } = await import('../../src/adapters/index.js')
    expect(() => httpFetch()).toThrow(expect.objectContaining({ code: 'config', hint: expect.stringContaining(ONE_LINE) }))
    // A resolver alone is not enough on Node: the connection would not be pinned to what it checked.
    expect(() => httpFetch({ resolveHost: async () => ['93.184.216.34'] })).toThrow(expect.objectContaining({ code: 'config' }))
    // Nothing to guard, or the caller's own fetch and resolver: it starts.
    expect(httpFetch({ allowPrivateNetwork: true }).fetch).toBeTypeOf('function')
    expect(httpFetch({ resolveHost: async () => ['93.184.216.34'], fetch: globalThis.fetch }).fetch).toBeTypeOf('function')
  })

  it('localCorpus({ dir }) names the line to add; documents need nothing', async () => {
    const { localCorpus } = await import('../../src/adapters/index.js')
    expect(() => localCorpus({ dir })).toThrow(expect.objectContaining({ code: 'config', hint: expect.stringContaining(ONE_LINE) }))
    const corpus = localCorpus({ documents: [{ title: 'Sky', text: 'Air scatters blue light most.' }] })
    expect((await corpus.search('blue light'))[0]?.title).toBe('Sky')
  })

  it('parsing untrusted markup does not fall back to the main thread unnoticed', async () => {
    const { offThread } = await import('../../src/adapters/fetch/off-thread.js')
    await expect(offThread({ kind: 'readable', html: '<p>hi</p>', timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'config',
      hint: expect.stringContaining(ONE_LINE),
    })
    const { readableText } = await import('../../src/adapters/fetch/readable-text.js')
    const page = await readableText('<html><body><article><p>Some text here.</p></article></body></html>')
    // Read as tag-stripped text (one linear pass), and it says why.
    expect(page.text).toContain('Some text here.')
    expect(page.fallback).toContain(ONE_LINE)
  })

  it('a local GGUF model names the line to add', async () => {
    const { local, localEmbeddings } = await import('../../src/adapters/index.js')
    await expect(local({ model: './model.gguf' }).load()).rejects.toMatchObject({ code: 'config', hint: expect.stringContaining(ONE_LINE) })
    await expect(localEmbeddings({ model: './model.gguf' }).embed(['x'])).rejects.toMatchObject({ code: 'config', hint: expect.stringContaining(ONE_LINE) })
  })

  it('the knowledge base names the line to add for a path', async () => {
    const { knowledgeBase, memoryVectorStore } = await import('../../src/kb/index.js')
    const embed = { model: 'none', dimensions: 2, embed: async (texts: string[]) => ({ vectors: texts.map(() => [1, 0]) }) }
    const kb = knowledgeBase({ store: memoryVectorStore(), embed: embed as never })
    await expect(kb.index([dir])).rejects.toMatchObject({ code: 'config', hint: expect.stringContaining(ONE_LINE) })
  })
})

describe('the Node builds of the entries', () => {
  it('export the same names as the Web builds they stand for', async () => {
    const names = async (path: string) => Object.keys(await import(/* @vite-ignore */ path)).sort()
    expect(await names('../../src/node/adapters-entry.js')).toEqual(await names('../../src/adapters/index.js'))
    expect(await names('../../src/node/kb-entry.js')).toEqual(await names('../../src/kb/index.js'))
  })

  it("laconic-research/adapters on Node reads a folder and guards fetches with no step of the user's", async () => {
    const { localCorpus, httpFetch } = await import('../../src/node/adapters-entry.js')
    const corpus = localCorpus({ dir })
    const [sky] = await corpus.search('Rayleigh scattering')
    expect(sky).toMatchObject({ title: 'Sky' })
    // The HTML file was parsed on the extraction pool's thread (its title read from <title>).
    const [sea] = await corpus.search('sea')
    expect(sea?.title).toBe('Sea')
    expect(httpFetch().fetch).toBeTypeOf('function')
  })

  it('laconic-research/node installs the same parts (the one line a Web build needs)', async () => {
    await import('../../src/node/index.js')
    const { offThread } = await import('../../src/adapters/fetch/off-thread.js')
    expect(
      await offThread({ kind: 'readable', html: '<html><body><article><p>Hello there, reader.</p></article></body></html>', timeoutMs: 5000 }),
    ).toMatchObject({
      text: expect.stringContaining('Hello there'),
    })
  })
})
