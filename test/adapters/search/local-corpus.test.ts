import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localCorpus } from '../../../src/adapters/index.js'
import { loadDirectory } from '../../../src/node/load-dir.js'
import { manyParagraphs } from '../../fixtures/hostile/pages.js'

const guide = `# Llama care

Llamas are social herd animals and should never be kept alone.

## Feeding

Adult llamas eat about two percent of their body weight in hay every day, plus fresh pasture in summer.

## Feeding

Mineral supplements matter where soils lack selenium.

\`\`\`sh
# not a heading: a shell comment inside a fence
apt install hay
\`\`\`
`

describe('localCorpus({ documents })', () => {
  const corpus = localCorpus({
    documents: [
      { id: 'guide', text: guide },
      { title: 'Alpacas', text: 'Alpacas are smaller than llamas and are bred for fibre, not as pack animals.', url: 'https://example.org/alpacas' },
      { text: 'Camels store fat in their humps.\nNothing else here.' },
    ],
  })

  it('finds chunks under their heading, with title, anchored URL, snippet and score', async () => {
    const results = await corpus.search('hay body weight')
    expect(results[0]).toMatchObject({ title: 'Llama care › Feeding', url: 'local/guide#feeding' })
    expect(results[0]?.snippet).toContain('body weight in hay')
    expect(results[0]?.score).toBeGreaterThan(0)
    // the second "Feeding" section gets its own, de-duplicated anchor
    expect((await corpus.search('selenium'))[0]?.url).toBe('local/guide#feeding-1')
  })

  it('ranks the only document on the topic above pages full of the question words', async () => {
    const wabi = localCorpus({
      documents: [
        { title: 'Spec', text: 'What is this spec? What is it for, and what is it not? This is what it is, and it is here.' },
        { title: 'Notes', text: 'Wabi is an aesthetic of the simple and the imperfect.' },
        { title: 'FAQ', text: 'What is the answer? It is what it is.' },
      ],
    })
    const results = await wabi.search('What is wabi?')
    expect(results.map((result) => result.title)).toEqual(['Notes'])
    expect(results[0]?.snippet).toContain('Wabi is an aesthetic')
    // Word forms meet: "imperfection" finds "imperfect".
    expect((await wabi.search('imperfection'))[0]?.title).toBe('Notes')
  })

  it('uses given URLs, default titles from the first line, and respects limit', async () => {
    const results = await corpus.search('alpacas camels llamas', { limit: 2 })
    expect(results).toHaveLength(2)
    const all = await corpus.search('humps fibre')
    expect(all.map((r) => [r.title, r.url])).toEqual(
      expect.arrayContaining([
        ['Camels store fat in their humps.', 'local/doc-3'],
        ['Alpacas', 'https://example.org/alpacas'],
      ]),
    )
  })

  it('does not read fenced code as headings', async () => {
    const results = await corpus.search('apt install')
    expect(results[0]?.url).toBe('local/guide#feeding-1')
  })

  it('returns [] for a query that matches nothing', async () => {
    await expect(corpus.search('zzyzx quokka')).resolves.toEqual([])
  })

  it('fetches a document by any URL its results carry, or by id', async () => {
    const [hit] = await corpus.search('selenium')
    await expect(corpus.fetch(hit?.url ?? '')).resolves.toEqual({ url: 'local/guide', title: 'Llama care', text: guide })
    await expect(corpus.fetch('https://example.org/alpacas')).resolves.toMatchObject({ title: 'Alpacas' })
    await expect(corpus.fetch('doc-3')).resolves.toMatchObject({ url: 'local/doc-3' })
    await expect(corpus.fetch('local/nope')).rejects.toMatchObject({ code: 'not-found', provider: 'local' })
  })

  it('honours an aborted signal', async () => {
    await expect(corpus.search('llama', { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' })
  })

  it('refuses ambiguous options and duplicate ids, saying how to fix them', async () => {
    expect(() => localCorpus({} as never)).toThrow(/either `dir` or `documents`/)
    expect(() => localCorpus({ dir: 'x', documents: [] } as never)).toThrow(/either/)
    await expect(
      localCorpus({
        documents: [
          { id: 'a', text: 'x' },
          { id: 'a', text: 'y' },
        ],
      }).search('x'),
    ).rejects.toMatchObject({ code: 'config' })
  })
})

describe('localCorpus({ dir })', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-corpus-'))
    await mkdir(join(dir, 'sub'))
    await mkdir(join(dir, '.git'))
    await writeFile(join(dir, 'care.md'), `---\ntitle: "Caring for llamas"\ntags: [x]\n---\n${guide}`)
    await writeFile(join(dir, 'sub', 'notes.txt'), 'Quokkas live on Rottnest Island.\n\nThey are marsupials.')
    await writeFile(
      join(dir, 'sub', 'page.html'),
      '<html><head><title>Vicuña facts</title><script>var quokka = 1</script></head><body><h1>Vicuñas</h1><p>Vicuñas grow the finest wool of any camelid.</p></body></html>',
    )
    await writeFile(join(dir, '.git', 'secret.md'), 'quokka credentials')
    await writeFile(join(dir, 'data.json'), '{"quokka": true}')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('indexes .md, .txt and .html files with file: URLs, skipping dot-folders and other types', async () => {
    const corpus = localCorpus({ dir })
    const quokka = await corpus.search('quokka')
    expect(quokka).toEqual([
      {
        title: 'notes',
        url: pathToFileURL(join(dir, 'sub', 'notes.txt')).href,
        snippet: 'Quokkas live on Rottnest Island. They are marsupials.',
        score: expect.any(Number),
      },
    ])
    const [wool] = await corpus.search('finest wool')
    expect(wool).toMatchObject({ title: 'Vicuña facts › Vicuñas', url: `${pathToFileURL(join(dir, 'sub', 'page.html')).href}#vicuñas` })
    const [feeding] = await corpus.search('selenium')
    expect(feeding?.title).toBe('Caring for llamas › Feeding')
    const page = await corpus.fetch(feeding?.url ?? '')
    expect(page).toMatchObject({ url: pathToFileURL(join(dir, 'care.md')).href, title: 'Caring for llamas' })
    expect(page.text.startsWith('# Llama care')).toBe(true)
  })

  it('reports a missing folder as a config error, and retries on the next call', async () => {
    const missing = join(dir, 'later')
    const corpus = localCorpus({ dir: missing })
    await expect(corpus.search('x')).rejects.toMatchObject({ code: 'config', message: expect.stringContaining('cannot read') })
    await mkdir(missing)
    await writeFile(join(missing, 'a.md'), 'Tapirs are not camelids.')
    await expect(corpus.search('tapirs')).resolves.toHaveLength(1)
  })
})

describe('a folder’s HTML files, read off the main thread', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-corpus-html-'))
    await writeFile(join(dir, 'huge.html'), manyParagraphs)
    await writeFile(join(dir, 'small.html'), '<html><head><title>Alpacas</title></head><body><p>Alpacas hum.</p></body></html>')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('are parsed for their title and text within the budget', async () => {
    // A minute of budget: on a loaded machine the 820 KB parse may take seconds, and the
    // default budget's cut is another test's outcome (below), not this one's.
    const {
      documents: [huge, small],
    } = await loadDirectory(dir, undefined, { timeoutMs: 60_000 })
    expect(small).toMatchObject({ id: 'small.html', title: 'Alpacas', text: 'Alpacas hum.' })
    expect(huge?.title).toBe('many')
    expect(huge?.text.split('\n\n')).toHaveLength(20_000)
  })

  it('are indexed as their tag-stripped text, not parsed, above 2,000,000 characters', async () => {
    // A folder of its own: inside the shared one, it would be a third file for the tests beside this one.
    const large = await mkdtemp(join(tmpdir(), 'laconic-corpus-large-'))
    try {
      const html = `<html><head><title>Large</title></head><body>${'<p>Guanacos.</p>'.repeat(150_000)}</body></html>`
      await writeFile(join(large, 'page.html'), html)
      const {
        documents: [page],
      } = await loadDirectory(large)
      // Tags dropped and whitespace collapsed: the title's text, then each paragraph's.
      const tagless = ['Large', ...Array.from({ length: 150_000 }, () => 'Guanacos.')].join(' ')
      expect(page).toEqual({ id: 'page.html', url: expect.stringMatching(/^file:/), title: 'page', text: tagless })
    } finally {
      await rm(large, { recursive: true, force: true })
    }
  })

  it('are indexed as their tag-stripped text when parsing outlives the budget', async () => {
    // Parsing 820 KB takes far more than 1 ms: only a parse off the main thread can be cut.
    const {
      documents: [huge],
    } = await loadDirectory(dir, undefined, { timeoutMs: 1 })
    const tagless = ['many', ...Array.from({ length: 20_000 }, () => 'A paragraph of ordinary words, repeated.')].join(' ')
    expect(huge).toMatchObject({ id: 'huge.html', title: 'huge', text: tagless })
  })
})
