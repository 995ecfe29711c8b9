/**
 * The shape of the codebase, measured: the table docs/architecture.md keeps ("The shape,
 * measured"). Each row is counted here, never by hand:
 *   - the exports of each entry point, counted in its API report (api/<entry>.api.md, written by
 *     `npm run api`), one per exported name (overloads count once);
 *   - names exported from two entry points;
 *   - functions over 120 lines in src/ (biome's complexity/noExcessiveLinesPerFunction);
 *   - the test imports of src/ that reach an internal module rather than an entry point of
 *     package.json `exports`;
 *   - the layer table's exceptions: `imports` entries of docs/layers.json that name one file;
 *   - file names that mean two things: one base name in two layers (index.ts aside, and files of
 *     one role in sibling folders of a `dir/*` layer, such as each strategy's prompts.ts).
 *
 *   npm run surface            print the counts
 *   npm run surface -- --list  also list what each count is made of
 *   npm run surface -- --write rewrite the table in docs/architecture.md (and its layer table, from docs/layers.json)
 *   npm run surface -- --check fail if that table is not current
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { entrySources, importGraph, sourceFiles } from './import-graph.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const list = process.argv.includes('--list')
const MAX_FUNCTION_LINES = 120

/** The names an API report exports. */
function exportedNames(report: string): Set<string> {
  const names = new Set<string>()
  for (const [, name] of report.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|interface|type|const|let|enum|namespace) (\w+)/gm)) names.add(name as string)
  for (const [, list] of report.matchAll(/^export \{([^}]+)\}/gm)) for (const item of (list as string).split(',')) names.add(item.split(' as ').at(-1)?.trim() as string)
  return names
}

/** Each entry point's exported names, by report name (`index`, `adapters`, …). */
function exportsByEntry(): Map<string, Set<string>> {
  const reports = readdirSync(`${root}api`).filter((file) => file.endsWith('.api.md'))
  return new Map(reports.sort().map((file) => [file.replace(/\.api\.md$/, ''), exportedNames(readFileSync(`${root}api/${file}`, 'utf8'))]))
}

/** Functions of src/ longer than the limit, as `path:line (N lines)`, read by biome with only that rule on. */
function longFunctions(): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'surface-'))
  try {
    const config = {
      files: { includes: [`${root}src/**/*.ts`] },
      formatter: { enabled: false },
      vcs: { enabled: false },
      linter: { rules: { recommended: false, complexity: { noExcessiveLinesPerFunction: { level: 'error', options: { maxLines: MAX_FUNCTION_LINES } } } } },
    }
    writeFileSync(join(folder, 'biome.json'), JSON.stringify(config))
    let out: string
    try {
      out = execFileSync(join(root, 'node_modules/.bin/biome'), ['lint', `--config-path=${folder}`, '--reporter=json', '--max-diagnostics=none', 'src'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
    } catch (error) {
      out = (error as { stdout: string }).stdout // biome exits 1 when it finds any
    }
    const report = JSON.parse(out) as { diagnostics: { category: string; message: string; location: { path: string; start: { line: number } } }[] }
    return report.diagnostics
      .filter((d) => d.category === 'lint/complexity/noExcessiveLinesPerFunction')
      .map((d) => `${d.location.path}:${d.location.start.line} (${/\((\d+)\)/.exec(d.message)?.[1] ?? '?'} lines)`)
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

interface LayerRow {
  folder: string
  imports: string[]
}
const layers = (JSON.parse(readFileSync(`${root}docs/layers.json`, 'utf8')) as { layers: LayerRow[] }).layers

/** `imports` entries that name one file rather than a layer. */
function layerExceptions(): string[] {
  return layers.flatMap((row) => row.imports.filter((target) => target.endsWith('.ts')).map((target) => `${row.folder} → ${target}`))
}

/** The folders whose subfolders are each a layer of one role (`src/strategies/*`). */
const roleFolders = layers.filter((row) => row.folder.endsWith('/*')).map((row) => row.folder.slice(0, -2))

/** Base names found in two places that are not siblings of one role folder. */
function namesMeaningTwoThings(): string[] {
  const byName = new Map<string, string[]>()
  for (const file of sourceFiles(root, 'src')) {
    const name = basename(file)
    if (name === 'index.ts') continue
    byName.set(name, [...(byName.get(name) ?? []), file])
  }
  // A file in a role folder's subfolder (at any depth) stands for the role folder itself.
  const place = (file: string) => {
    const folder = dirname(file)
    const role = roleFolders.find((r) => folder.startsWith(`${r}/`))
    return role ? `${role}/*` : folder
  }
  const inRoleFolder = (file: string) => place(file).endsWith('/*')
  return [...byName]
    // The role a name plays in every role folder it sits in (a strategy's options.ts, an adapter family's) is one meaning.
    .filter(([, files]) => new Set(files.map(place)).size > 1 && !files.every(inRoleFolder))
    .map(([name, files]) => `${name}: ${files.map((f) => posix.dirname(f)).join(', ')}`)
    .sort()
}

const exportsPerEntry = exportsByEntry()
const total = [...exportsPerEntry.values()].reduce((sum, names) => sum + names.size, 0)
const owners = new Map<string, string[]>()
for (const [entry, names] of exportsPerEntry) for (const name of names) owners.set(name, [...(owners.get(name) ?? []), entry])
const onTwoEntries = [...owners].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name} (${entries.join(', ')})`)

const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, unknown> }
const entries = new Set(entrySources(pkg.exports).values())
const fromTests = importGraph(root, 'test').filter(({ to, lazy }) => !lazy && to.startsWith('src/'))
const internal = fromTests.filter(({ to }) => !entries.has(to))
const long = longFunctions()
const exceptions = layerExceptions()
const doubleNames = namesMeaningTwoThings()
const percent = (part: number, whole: number) => `${Math.round((100 * part) / Math.max(whole, 1))}%`

const rows: [what: string, now: string, target: string][] = [
  ['public exports, all entry points', String(total), '≤ 250'],
  ['exports of the root entry', String(exportsPerEntry.get('index')?.size ?? 0), '≤ 45'],
  ['names exported from two entry points', String(onTwoEntries.length), '0'],
  [`functions over ${MAX_FUNCTION_LINES} lines in src/`, String(long.length), '0'],
  ['test imports reaching internals', `${internal.length} of ${fromTests.length} (${percent(internal.length, fromTests.length)})`, '≤ 20%'],
  ['layer-table exceptions', String(exceptions.length), '≤ 5'],
  ['file names meaning two things', String(doubleNames.length), '0'],
]

console.log('Exports per entry point (api/*.api.md):')
for (const [entry, names] of exportsPerEntry) console.log(`  ${entry.padEnd(12)} ${names.size}`)
console.log(`  ${'total'.padEnd(12)} ${total}\n`)
for (const [what, now, target] of rows) console.log(`${what.padEnd(40)} ${now.padEnd(18)} target ${target}`)

if (list) {
  const show = (title: string, items: string[]) => items.length && console.log(`\n${title}:\n${items.map((item) => `  ${item}`).join('\n')}`)
  show('Names on two entry points', onTwoEntries)
  show(`Functions over ${MAX_FUNCTION_LINES} lines`, long)
  show('Layer-table exceptions', exceptions)
  show('File names meaning two things', doubleNames)
  const byModule = new Map<string, number>()
  for (const { to } of internal) byModule.set(to, (byModule.get(to) ?? 0) + 1)
  show(
    'Internal modules tests import',
    [...byModule].sort((a, b) => b[1] - a[1]).map(([module, count]) => `${String(count).padStart(3)}  ${module}`),
  )
}

/** `doc` with its layer table (the one test/architecture/layers.test.ts compares) rebuilt from docs/layers.json. */
function withLayerTable(doc: string): string {
  const cell = (entries: string[]) => (entries.length ? entries.map((entry) => `\`${entry}\``).join(', ') : 'nothing')
  const header = '| folder | job | may import |'
  const rows = (layers as (LayerRow & { job: string })[]).map(({ folder, job, imports }) => `| \`${folder}\` | ${job} | ${cell(imports)} |`)
  const lines = doc.split('\n')
  const at = lines.indexOf(header)
  if (at < 0) return doc
  let end = at + 1
  while (end < lines.length && lines[end]?.startsWith('|')) end++
  return [...lines.slice(0, at), header, '|---|---|---|', ...rows, ...lines.slice(end)].join('\n')
}

const START = '<!-- surface:start (npm run surface -- --write) -->'
const END = '<!-- surface:end -->'
const table = ['| what | now | target |', '|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n')
const docPath = `${root}docs/architecture.md`
const doc = readFileSync(docPath, 'utf8')
const [start, end] = [doc.indexOf(START), doc.indexOf(END)]
if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${START} … ${END} block`)
const current = doc.slice(start + START.length, end).trim()
if (process.argv.includes('--write')) {
  writeFileSync(docPath, withLayerTable(`${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`))
  console.log('\ndocs/architecture.md: tables rewritten (the measured shape, and the layers of docs/layers.json)')
} else if (process.argv.includes('--check') && current !== table) {
  console.error('\ndocs/architecture.md: the measured table is stale; run `npm run surface -- --write` and commit it')
  process.exit(1)
}
