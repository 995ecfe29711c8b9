import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as adapters from '../../../src/adapters/index.js'

const root = fileURLToPath(new URL('../../../src/adapters/', import.meta.url))
const sources = (folder: string): [string, string][] =>
  readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [`${folder}/${file}`, readFileSync(join(root, folder, file), 'utf8')])

describe('laconic-research/adapters entry', () => {
  it('exports the binding names of the search, fetch and cache adapters', () => {
    for (const name of ['duckduckgo', 'brave', 'tavily', 'searxng', 'localCorpus', 'httpFetch', 'cached']) {
      expect(typeof (adapters as Record<string, unknown>)[name], name).toBe('function')
    }
  })

  it('loads heavy and node-only dependencies lazily, so importing the entry stays light and portable', () => {
    // One import statement: no quote before its `from` (so a match cannot run on from an earlier import).
    const heavy = /^\s*import\s+(?!type\b)[^;'"]*?from\s+'(linkedom|@mozilla\/readability|node:[^']+)'/m
    // Node-only by design, and each imported lazily: load-dir by localCorpus, the extraction pool
    // (and the worker it starts) by off-thread.ts, which every parser of untrusted HTML goes through,
    // the ZIP check (node:zlib) by the DOCX reader.
    const lazy = new Set(['search/local/load-dir.ts', 'fetch/extract-pool.ts', 'fetch/extract-worker.ts', 'fetch/zip-bounds.ts'])
    const offenders = [...sources('search'), ...sources('fetch'), ...sources('cache')]
      .filter(([file, text]) => !lazy.has(file) && heavy.test(text))
      .map(([file]) => file)
    expect(offenders).toEqual([])
    const corpus = sources('search').find(([file]) => file === 'search/local/local-corpus.ts')?.[1] ?? ''
    expect(corpus).toContain("await import('./load-dir.js')")
    expect(corpus).not.toMatch(/^import[^\n]*load-dir/m)
    const documents = sources('fetch').find(([file]) => file === 'fetch/document-text.ts')?.[1] ?? ''
    expect(documents).toContain("await import('./zip-bounds.js')")
    expect(documents).not.toMatch(/^import[^\n]*zip-bounds/m)
    const readable = sources('fetch').find(([file]) => file === 'fetch/off-thread.ts')?.[1] ?? ''
    expect(readable).toContain("import('./extract-pool.js')")
    expect(readable).not.toMatch(/^import\s+(?!type\b)[^\n]*extract-pool/m)
  })

  it('imports only src/core and src/documents from outside the adapters folder', () => {
    for (const [file, text] of [...sources('search'), ...sources('fetch'), ...sources('cache')]) {
      for (const [, path] of text.matchAll(/from '(\.\.\/[^']+)'/g)) {
        const resolved = join('src/adapters', file, '..', path as string)
        expect(
          ['src/core', 'src/documents', 'src/adapters'].some((layer) => resolved.startsWith(layer)),
          `${file} imports ${path}`,
        ).toBe(true)
      }
    }
  })
})
