/**
 * The import rule of src/: no cycle, and every relative import allowed by the layer table in
 * docs/layers.json (which docs/architecture.md shows).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cycles, type Import, importGraph, sourceFiles } from '../../scripts/import-graph.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

interface Layer {
  folder: string
  job: string
  imports: string[]
}
const { layers } = JSON.parse(readFileSync(`${root}docs/layers.json`, 'utf8')) as { layers: Layer[] }

/** The layer a file belongs to: the most specific row whose folder holds it, and its unit name. */
function layerOf(file: string): { layer: Layer; unit: string } | undefined {
  const matches: { layer: Layer; unit: string; exact: boolean }[] = []
  for (const layer of layers) {
    const { folder } = layer
    if (folder.endsWith('/*.ts')) {
      const dir = folder.slice(0, -'/*.ts'.length)
      if (file.startsWith(`${dir}/`) && !file.slice(dir.length + 1).includes('/')) matches.push({ layer, unit: folder, exact: true })
    } else if (folder.endsWith('/*')) {
      const sub = /^[^/]+\//.exec(file.startsWith(folder.slice(0, -1)) ? file.slice(folder.length - 1) : '')
      if (sub) matches.push({ layer, unit: folder.slice(0, -1) + sub[0].slice(0, -1), exact: false })
    } else if (file === folder || file.startsWith(`${folder}/`)) {
      matches.push({ layer, unit: folder, exact: true })
    }
  }
  matches.sort((a, b) => b.unit.length - a.unit.length || Number(b.exact) - Number(a.exact))
  return matches[0]
}

/** Whether an entry of a row's `imports` (a folder, a `dir/*`, a `dir/*.ts` or a file) covers `file`. */
function covers(entry: string, file: string): boolean {
  if (entry.endsWith('/*.ts')) return layerOf(file)?.unit === entry
  const folder = entry.endsWith('/*') ? entry.slice(0, -2) : entry
  return file === entry || file.startsWith(`${folder}/`)
}

/** Why an import breaks the rule, or undefined when it keeps to it. */
function breach({ from, to }: Import): string | undefined {
  const source = layerOf(from)
  const target = layerOf(to)
  if (!source) return `${from} is in no layer of docs/layers.json`
  if (!target) return `${to} is in no layer of docs/layers.json`
  if (source.unit === target.unit) {
    // Re-exports flow up to a folder's index.ts, never back down from it.
    const barrel = to.endsWith('/index.ts') && from.startsWith(to.slice(0, -'index.ts'.length))
    return barrel ? `${from} imports the index.ts of its own folder` : undefined
  }
  if (source.layer.imports.some((entry) => covers(entry, to))) return undefined
  return `${source.unit} may import ${source.layer.imports.join(', ') || 'nothing'}, not ${target.unit}`
}

const files = sourceFiles(root, 'src')
const graph = importGraph(root, 'src')

describe('the import rule of src/', () => {
  it('reads the imports it checks (the pattern finds static, type-only and lazy imports)', () => {
    const store = graph.filter(({ from }) => from === 'src/kb/memory-vector-store.ts')
    expect(store).toContainEqual({ from: 'src/kb/memory-vector-store.ts', to: 'src/documents/lexical.ts', lazy: true })
    expect(store).toContainEqual({ from: 'src/kb/memory-vector-store.ts', to: 'src/kb/vector-matrix.ts', lazy: false })
    expect(graph.filter(({ from }) => from === 'src/index.ts').length).toBeGreaterThan(5)
    expect(graph.some(({ from, to }) => from === 'src/core/run/run.ts' && to === 'src/core/contracts/events.ts')).toBe(true)
  })

  it('imports only what exists', () => {
    expect(graph.filter(({ to }) => !files.includes(to)).map(({ from, to }) => `${from} -> ${to}`)).toEqual([])
  })

  it('has no import cycle', () => {
    const edge = (from: string, to: string): Import => ({ from, to, lazy: false })
    expect(cycles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd')])).toEqual([['a', 'b', 'c']])
    expect(cycles(graph), 'an import cycle: move what both sides need into a module both may import').toEqual([])
  })

  it('imports across layers only as docs/layers.json allows', () => {
    const breaches = graph.map((edge) => ({ edge: `${edge.from} -> ${edge.to}`, why: breach(edge) })).filter(({ why }) => why !== undefined)
    expect(breaches).toEqual([])
  })

  it('places every file of src/ in a layer, and knows the layers a file is tested against', () => {
    expect(files.filter((file) => !layerOf(file))).toEqual([])
    expect(layerOf('src/strategies/deep/index.ts')?.unit).toBe('src/strategies/deep')
    expect(layerOf('src/strategies/shared/json.ts')?.layer.folder).toBe('src/strategies/shared')
    expect(layerOf('src/strategies/builtins.ts')?.unit).toBe('src/strategies')
    expect(layerOf('src/agent.ts')?.unit).toBe('src/*.ts')
    expect(breach({ from: 'src/strategies/deep/index.ts', to: 'src/strategies/react/index.ts', lazy: false })).toMatch(/not src\/strategies\/react/)
    expect(breach({ from: 'src/core/run/run.ts', to: 'src/cli/version.ts', lazy: true })).toMatch(
      /src\/core\/run may import src\/core\/contracts, src\/core\/util, not src\/cli/,
    )
    expect(breach({ from: 'src/adapters/llm/openai.ts', to: 'src/adapters/llm/index.ts', lazy: false })).toMatch(/own folder/)
    expect(breach({ from: 'src/adapters/llm/openai.ts', to: 'src/adapters/index.ts', lazy: false })).toMatch(/not src\/adapters$/)
  })

  it('is the table docs/architecture.md shows', () => {
    const cell = (entries: string[]) => (entries.length ? entries.map((entry) => `\`${entry}\``).join(', ') : 'nothing')
    const table = [
      '| folder | job | may import |',
      '|---|---|---|',
      ...layers.map(({ folder, job, imports }) => `| \`${folder}\` | ${job} | ${cell(imports)} |`),
    ].join('\n')
    const lines = readFileSync(`${root}docs/architecture.md`, 'utf8').split('\n')
    const start = lines.indexOf(table.split('\n')[0] as string)
    const end = lines.findIndex((line, at) => at > start && !line.startsWith('|'))
    expect(start, 'docs/architecture.md has a layer table').toBeGreaterThanOrEqual(0)
    expect(lines.slice(start, end).join('\n'), 'docs/architecture.md shows the table of docs/layers.json').toBe(table)
  })
})
