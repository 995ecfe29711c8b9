/**
 * The size of the public surface, for before/after notes:
 *   - the exports of each entry point, counted in its API report (api/<entry>.api.md, written by
 *     `npm run api`), one per exported name (overloads count once);
 *   - the test imports of src/: how many reach an entry point of package.json `exports`, and how
 *     many an internal module instead.
 *
 *   npm run surface
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { entrySources, importGraph } from './import-graph.js'

const root = fileURLToPath(new URL('../', import.meta.url))

/** The names an API report exports. */
function exportedNames(report: string): Set<string> {
  const names = new Set<string>()
  for (const [, name] of report.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|interface|type|const|let|enum|namespace) (\w+)/gm)) names.add(name as string)
  for (const [, list] of report.matchAll(/^export \{([^}]+)\}/gm)) for (const item of (list as string).split(',')) names.add(item.split(' as ').at(-1)?.trim() as string)
  return names
}

const reports = readdirSync(`${root}api`).filter((file) => file.endsWith('.api.md'))
let total = 0
console.log('Exports per entry point (api/*.api.md):')
for (const file of reports.sort()) {
  const count = exportedNames(readFileSync(`${root}api/${file}`, 'utf8')).size
  total += count
  console.log(`  ${file.replace(/\.api\.md$/, '').padEnd(12)} ${count}`)
}
console.log(`  ${'total'.padEnd(12)} ${total}`)

const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, unknown> }
const entries = new Set(entrySources(pkg.exports).values())
const fromTests = importGraph(root, 'test').filter(({ to, lazy }) => !lazy && to.startsWith('src/'))
const internal = fromTests.filter(({ to }) => !entries.has(to))
console.log(`\nTest imports of src/ (static): ${fromTests.length}, of which ${internal.length} reach internals (not an entry point).`)
if (process.argv.includes('--list')) {
  const byModule = new Map<string, number>()
  for (const { to } of internal) byModule.set(to, (byModule.get(to) ?? 0) + 1)
  for (const [module, count] of [...byModule].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(3)}  ${module}`)
}
