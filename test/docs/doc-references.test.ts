/**
 * The docs can't name what the package doesn't export (issue 37): every
 * `import { … } from 'laconic-research…'` in a code block of README.md or docs/*.md names only
 * exports of that entry point, as the API reports (api/*.api.md) list them, and every entry point
 * it names is one package.json exports. And every file of the repository they name (`src/…`,
 * `test/…`, a relative link) is there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

/** The names an API report lists as exported: `export function x`, `export interface X`, ... */
function reportedExports(report: string): Set<string> {
  const names = new Set<string>()
  for (const match of report.matchAll(/^export (?:declare )?(?:abstract )?(?:class|const|function|interface|type|enum|let|namespace) ([A-Za-z_$][\w$]*)/gm)) {
    names.add(match[1] as string)
  }
  return names
}

/** Each entry point of package.json (`laconic-research`, `laconic-research/kb`, ...) with its API report's exports. */
function entryExports(): Map<string, Set<string>> {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }
  const entries = new Map<string, Set<string>>()
  for (const subpath of Object.keys(pkg.exports)) {
    if (subpath === './package.json') continue
    const specifier = subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
    const report = subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-')
    entries.set(specifier, reportedExports(readFileSync(join(REPO, 'api', `${report}.api.md`), 'utf8')))
  }
  return entries
}

interface DocImport {
  specifier: string
  names: string[]
  /** The 1-based line of the doc where the import starts. */
  line: number
}

/** The package's imports in a Markdown text's fenced code blocks (named, default and dynamic ones, across lines). */
function docImports(markdown: string, packageName: string): DocImport[] {
  const imports: DocImport[] = []
  const escaped = packageName.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')
  // A fence may be indented (a code block in a list item).
  const fence = /^[ \t]*(```|~~~)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm
  for (const block of markdown.matchAll(fence)) {
    const code = block[2] as string
    const codeStart = (block.index ?? 0) + block[0].indexOf('\n') + 1
    const lineOf = (offset: number) => markdown.slice(0, codeStart + offset).split('\n').length
    const statement = new RegExp(
      `(?:import|export)\\s+(type\\s+)?(?:([\\w$]+)\\s*,?\\s*)?(?:\\{([^}]*)\\}|\\*\\s+as\\s+[\\w$]+)?\\s*from\\s*['"](${escaped}(?:/[\\w/-]+)?)['"]`,
      'g',
    )
    for (const match of code.matchAll(statement)) {
      const names = (match[3] ?? '')
        .split(',')
        .map(
          (part) =>
            part
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]
              ?.trim() ?? '',
        )
        .filter((name) => name !== '')
      imports.push({ specifier: match[4] as string, names, line: lineOf(match.index ?? 0) })
    }
    for (const match of code.matchAll(new RegExp(`import\\(\\s*['"](${escaped}(?:/[\\w/-]+)?)['"]\\s*\\)`, 'g'))) {
      imports.push({ specifier: match[1] as string, names: [], line: lineOf(match.index ?? 0) })
    }
  }
  return imports
}

/** What a doc imports that its entry point doesn't export (or an entry point that doesn't exist), one line each. */
function unknownImports(doc: string, markdown: string, entries: Map<string, Set<string>>, packageName: string): string[] {
  const problems: string[] = []
  for (const { specifier, names, line } of docImports(markdown, packageName)) {
    const exported = entries.get(specifier)
    if (exported === undefined) {
      problems.push(`${doc}:${line} imports from ${specifier}, which is no entry point of package.json`)
      continue
    }
    for (const name of names) {
      if (!exported.has(name)) problems.push(`${doc}:${line} imports ${name} from ${specifier}, which doesn't export it`)
    }
  }
  return problems
}

const docs = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
]
const PACKAGE = 'laconic-research'

describe('imports in the docs', () => {
  const entries = entryExports()

  it('reads the API reports: the root entry exports createAgent, /kb exports no createAgent', () => {
    expect(entries.get(PACKAGE)?.has('createAgent')).toBe(true)
    expect(entries.get(`${PACKAGE}/kb`)?.has('createAgent')).toBe(false)
  })

  it('finds named, type, renamed, multi-line and dynamic imports, and only in code blocks', () => {
    const markdown = [
      "Prose: import { notCode } from 'laconic-research'",
      '```ts',
      "import { createAgent, type Agent as A } from 'laconic-research'",
      'import {',
      '  knowledgeBase,',
      "} from 'laconic-research/kb'",
      "const { x } = await import('laconic-research/node')",
      "import { other } from 'not-laconic'",
      '```',
      '- a list item:',
      '  ```ts',
      "  import { scriptedLLM } from 'laconic-research/testing'",
      '  ```',
    ].join('\n')
    expect(docImports(markdown, PACKAGE)).toEqual([
      { specifier: PACKAGE, names: ['createAgent', 'Agent'], line: 3 },
      { specifier: `${PACKAGE}/kb`, names: ['knowledgeBase'], line: 4 },
      { specifier: `${PACKAGE}/node`, names: [], line: 7 },
      { specifier: `${PACKAGE}/testing`, names: ['scriptedLLM'], line: 12 },
    ])
  })

  it('fails a doc naming a removed export or a missing entry point', () => {
    const markdown = ['```ts', "import { createAgent, approvePlan } from 'laconic-research'", "import { x } from 'laconic-research/core'", '```'].join('\n')
    expect(unknownImports('docs/x.md', markdown, entries, PACKAGE)).toEqual([
      "docs/x.md:2 imports approvePlan from laconic-research, which doesn't export it",
      'docs/x.md:3 imports from laconic-research/core, which is no entry point of package.json',
    ])
  })

  it.each(docs)('%s imports only what its entry points export', (doc) => {
    expect(unknownImports(doc, readFileSync(join(REPO, doc), 'utf8'), entries, PACKAGE)).toEqual([])
  })
})

/** Paths a doc names as history (what a measurement was taken on), not as where code is now. */
const HISTORY: Readonly<Record<string, readonly string[]>> = {
  'docs/performance.md': ['src/kb/text-index.ts'],
}

/** The repository files a Markdown text names (`src/…`, `test/…`, … and relative links) that don't exist. */
function missingPaths(doc: string, markdown: string, exists: (path: string) => boolean): string[] {
  const missing = new Set<string>()
  const named = /(?<![\w./-])((?:src|test|bench|scripts|examples|docs|api|assets)\/[\w./-]*\w)/g
  for (const [, path] of markdown.matchAll(named)) {
    if (path !== undefined && !exists(path) && !exists(`${path}.ts`) && !HISTORY[doc]?.includes(path)) missing.add(path)
  }
  for (const [, target] of markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (target === undefined || /^[a-z]+:/.test(target)) continue
    const path = join(dirname(doc), target)
    if (!exists(path)) missing.add(path)
  }
  return [...missing]
}

describe('paths in the docs', () => {
  const exists = (path: string) => existsSync(join(REPO, path))

  it('finds a moved file and a broken link, and takes what exists', () => {
    const markdown = 'See `src/core/session.ts`, `src/agent.ts`, `src/agent` and [the CLI](cli.md), [gone](old.md#x), [web](https://example.com/a.md).'
    expect(missingPaths('docs/x.md', markdown, exists)).toEqual(['src/core/session.ts', 'docs/old.md'])
  })

  it.each(docs)('%s names only files that exist', (doc) => {
    expect(missingPaths(doc, readFileSync(join(REPO, doc), 'utf8'), exists)).toEqual([])
  })
})

/**
 * The unreleased version's entries of CHANGELOG.md, but its "Reshaping" before/after tables (whose
 * "before" cells name what is gone on purpose): what they say a user writes and where is today's.
 */
function unreleasedEntries(changelog: string): string {
  const unreleased = /^## [^\n]*Unreleased\n([\s\S]*?)(?=^## )/m.exec(changelog)?.[1] ?? ''
  return unreleased.replace(/^### Reshaping[\s\S]*?(?=^### )/m, '')
}

describe('the unreleased CHANGELOG entries', () => {
  const changelog = readFileSync(join(REPO, 'CHANGELOG.md'), 'utf8')
  const entries = unreleasedEntries(changelog)

  it('are read without the Reshaping tables', () => {
    expect(entries).toContain('### Added')
    expect(entries).not.toContain('### Reshaping')
    expect(unreleasedEntries('## 1.0 - Unreleased\n### Reshaping\n`src/old.ts`\n### Added\n`src/new.ts`\n## 0.9\n')).toBe('### Added\n`src/new.ts`\n')
  })

  it('import only what the entry points export', () => {
    expect(unknownImports('CHANGELOG.md', entries, entryExports(), PACKAGE)).toEqual([])
  })

  it('name only files that exist', () => {
    expect(missingPaths('CHANGELOG.md', entries, (path) => existsSync(join(REPO, path)))).toEqual([])
  })
})

/** The event types the runtime emits, read from `EVENT_TYPES` in the source (the list the wire's parser accepts). */
function eventTypes(source: string): string[] {
  const list = /export const EVENT_TYPES[^=]*=\s*\[([^\]]*)\]/.exec(source)?.[1] ?? ''
  return [...list.matchAll(/'([a-z-]+)'/g)].map((match) => match[1] as string)
}

/** The event types a doc's tables name in their first column: `| \`type\` |` or `| \`a\` / \`b\` |`. */
function tabledTypes(markdown: string): Set<string> {
  const types = new Set<string>()
  for (const [, cell] of markdown.matchAll(/^\| ([^|]*) \|/gm)) for (const [, name] of cell?.matchAll(/`([a-z-]+)`/g) ?? []) types.add(name as string)
  return types
}

describe('the event tables', () => {
  const types = eventTypes(readFileSync(join(REPO, 'src/core/contracts/events.ts'), 'utf8'))

  it('read the union from the source', () => {
    expect(types).toContain('run-start')
    expect(types).toContain('run-end')
    expect(types.length).toBeGreaterThan(15)
  })

  it.each(['README.md', 'docs/events.md'])('%s lists every event type', (doc) => {
    const tabled = tabledTypes(readFileSync(join(REPO, doc), 'utf8'))
    expect(types.filter((type) => !tabled.has(type))).toEqual([])
  })
})

describe("README's entry-point table", () => {
  it('has a row for every entry point of package.json, each naming at least one of its exports', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
    const rows = new Map([...readme.matchAll(/^\| `(laconic-research[^`]*)` \|(.*)$/gm)].map(([, entry, what]) => [entry as string, what as string]))
    const problems = [...entryExports()].flatMap(([entry, exported]) => {
      const row = rows.get(entry)
      if (row === undefined) return [`${entry}: no row`]
      const named = [...row.matchAll(/`([A-Za-z_$][\w$]*)/g)].map((match) => match[1] as string)
      return named.some((name) => exported.has(name)) ? [] : [`${entry}: names none of its exports`]
    })
    expect(problems).toEqual([])
  })
})
