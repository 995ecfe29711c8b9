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

  it('loads heavy dependencies lazily and holds no Node code: that lives under src/node, installed on Node', () => {
    // One import statement: no quote before its `from` (so a match cannot run on from an earlier import).
    const heavy = /^\s*import\s+(?!type\b)[^;'"]*?from\s+'(linkedom|@mozilla\/readability|undici|node:[^']+)'/m
    const offenders = [...sources('search'), ...sources('fetch'), ...sources('cache')].filter(([, text]) => heavy.test(text)).map(([file]) => file)
    expect(offenders).toEqual([])
    // No lazy import reaches Node code either: the Node parts are installed into these modules.
    const lazyNode = [...sources('search'), ...sources('fetch')].filter(([, text]) => /import\('(node:|undici|[./]+\/node\/)/.test(text)).map(([file]) => file)
    expect(lazyNode).toEqual([])
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
