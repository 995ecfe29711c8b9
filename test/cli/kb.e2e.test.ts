/**
 * The knowledge base on the command line, end to end as child processes: `laconic index` into a
 * LanceDB folder through a loopback OpenAI-compatible embeddings server, `laconic kb list|remove`,
 * and questions asked with `--kb`, alone and beside a (loopback SearXNG) web search.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EmbeddingServer, FAKE_MODEL, startEmbeddingServer } from '../kb/fake-embeddings.js'
import { type ChatTurn, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { runCli } from './run-cli.js'
import { roleOf } from '../support/roles.js'

let embeddings: EmbeddingServer
let backend: FakeBackend
let folder: string
let docs: string
let kbPath: string

const researcher = (turn: ChatTurn): string => {
  if (roleOf(turn.system) === 'scratchpad planner')
    return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: llama shearing season' : 'Action: Answer'
  if (roleOf(turn.system) === 'scratchpad synthesizer') return 'Llamas are shorn in spring.'
  if (roleOf(turn.system) === 'scratchpad finalizer') return 'Llamas are shorn in spring [1].'
  return 'an unexpected request'
}

beforeAll(async () => {
  embeddings = await startEmbeddingServer()
  backend = await startFakeBackend({
    reply: researcher,
    results: () => [{ title: 'Llama facts', url: 'https://example.org/llamas', snippet: 'Llamas are camelids.' }],
  })
  folder = await mkdtemp(join(tmpdir(), 'laconic-kb-cli-'))
  docs = join(folder, 'docs')
  kbPath = join(folder, 'kb')
  await mkdir(docs)
  await writeFile(join(docs, 'shearing.md'), '# Shearing\n\n## Season\n\nLlama shearing season is spring, before the heat.\n')
  await writeFile(join(docs, 'food.md'), '# Food\n\nLlamas graze on grass and hay.\n')
})

afterAll(async () => {
  await Promise.all([embeddings.close(), backend.close()])
  await rm(folder, { recursive: true, force: true })
})

const embedFlags = () => ['--embed-backend', 'openai', '--embed-endpoint', embeddings.url, '--embed-model', FAKE_MODEL]
const model = () => ['--backend', 'openai', '--endpoint', backend.url, '-m', 'fake-model']

describe('laconic index, kb and --kb', { timeout: 60_000 }, () => {
  it('indexes a folder, then again without embedding anything', async () => {
    const first = await runCli(['index', docs, '--kb', kbPath, ...embedFlags()])
    expect(first.stderr).toMatch(/indexed 2 added, 0 updated, 0 unchanged, 0 removed; 2 chunks embedded in \d+\.\d s\n$/)
    expect(first.code).toBe(0)
    const embedded = embeddings.texts.length

    // The embedder is remembered: no embed flags needed from here on.
    const again = await runCli(['index', docs, '--kb', kbPath])
    expect(again.stderr).toMatch(/indexed 0 added, 0 updated, 2 unchanged, 0 removed; 0 chunks embedded/)
    expect(embeddings.texts.length).toBe(embedded)
  })

  it('lists the documents', async () => {
    const out = await runCli(['kb', 'list', '--kb', kbPath])
    expect(out.code).toBe(0)
    const lines = out.stdout.trimEnd().split('\n')
    expect(lines.map((line) => line.split('\t').slice(0, 3))).toEqual([
      [pathToFileURL(join(docs, 'food.md')).href, 'Food', '1 chunk'],
      [pathToFileURL(join(docs, 'shearing.md')).href, 'Shearing', '1 chunk'],
    ])
  })

  it('lists the documents as JSON, with stable field names, for scripts', async () => {
    const out = await runCli(['kb', 'list', '--kb', kbPath, '--format', 'json'])
    expect(out.code).toBe(0)
    const listed = JSON.parse(out.stdout) as Record<string, unknown>[]
    const food = pathToFileURL(join(docs, 'food.md')).href
    expect(listed.map((document) => Object.keys(document))).toEqual([
      ['id', 'url', 'title', 'chunks', 'indexedAt', 'hash'],
      ['id', 'url', 'title', 'chunks', 'indexedAt', 'hash'],
    ])
    expect(listed[0]).toMatchObject({ id: food, url: food, title: 'Food', chunks: 1 })
    expect(listed[0]?.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(Number.isNaN(Date.parse(String(listed[0]?.indexedAt)))).toBe(false)

    const lines = await runCli(['kb', 'list', '--kb', kbPath, '-f', 'ndjson'])
    expect(
      lines.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(listed)

    const refused = await runCli(['kb', 'remove', food, '--kb', kbPath, '--format', 'json'])
    expect(refused).toMatchObject({ code: 2, stderr: 'laconic: laconic kb remove takes no --format: only laconic kb list does\n' })
  })

  it('answers a question from the knowledge base alone, offline', async () => {
    const turns = backend.turns.length
    const searches = backend.searches.length
    const out = await runCli([...model(), '--kb', kbPath, 'When are llamas shorn?'])
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('Llamas are shorn in spring')
    expect(out.stdout).toContain(`${pathToFileURL(join(docs, 'shearing.md')).href}#season`)
    expect(backend.searches.length).toBe(searches)
    const synthesis = backend.turns.slice(turns).find((turn) => roleOf(turn.system) === 'scratchpad synthesizer')
    expect(synthesis?.prompt).toContain('Shearing › Season')
  })

  it('searches the knowledge base beside the web, each source labelled', async () => {
    const turns = backend.turns.length
    const out = await runCli([...model(), '--kb', kbPath, '--search', 'searxng', '--searxng-url', backend.url, '--no-fetch', 'When are llamas shorn?'])
    expect(out.code).toBe(0)
    const synthesis = backend.turns.slice(turns).find((turn) => roleOf(turn.system) === 'scratchpad synthesizer')
    expect(synthesis?.prompt).toContain('[kb] Shearing › Season')
    expect(synthesis?.prompt).toContain('[web] Llama facts')
  })

  it('removes a file, and refuses a question about a knowledge base that is not there', async () => {
    const removed = await runCli(['kb', 'remove', join(docs, 'food.md'), '--kb', kbPath])
    expect(removed.stderr).toBe('laconic: removed 1 document\n')
    const listed = await runCli(['kb', 'list', '--kb', kbPath])
    expect(listed.stdout).not.toContain('food.md')

    const missing = await runCli([...model(), '--kb', join(folder, 'nowhere'), 'When are llamas shorn?'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no knowledge base there')
  })
})
