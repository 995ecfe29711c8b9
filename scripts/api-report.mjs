// The API report: every public export of every entry point in package.json `exports`, one
// `api/<entry>.api.md` per entry point, written by API Extractor from the built `.d.ts` files.
// TypeScript 7 (our compiler) has no compiler API, so API Extractor reads what it emitted into
// dist/ with the TypeScript it bundles.
//
//   node scripts/api-report.mjs          check: fails if a report differs, is missing or is stale
//   node scripts/api-report.mjs --write  regenerate the reports (then review and commit api/)
//
// Both expect a fresh build; `npm run api` and `npm run api:check` build first.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const reportFolder = join(root, 'api')
const tempFolder = join(root, 'node_modules', '.cache', 'api-report')
const write = process.argv.includes('--write')

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

/** `.` → `index`, `./strategy` → `strategy`: the report's file name for each typed entry point. */
const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && target.types)
  .map(([subpath, target]) => ({
    subpath,
    name: subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-'),
    types: join(root, target.types),
  }))

for (const { subpath, types } of entries) {
  if (!existsSync(types)) fail(`${types} is missing for "${subpath}": build first (npm run build)`)
}

mkdirSync(reportFolder, { recursive: true })
rmSync(tempFolder, { recursive: true, force: true })
mkdirSync(tempFolder, { recursive: true })

function configFor({ name, types }) {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: types,
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2022',
            lib: ['ES2023', 'DOM', 'DOM.Iterable'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: entries.map((entry) => entry.types),
        },
      },
      apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // We publish no release stages (@alpha, @beta): everything exported is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Types shared between entry points (the root's `Strategy` in `/strategy`, say) are not
          // re-exported everywhere they appear; the callback below lists the ones no entry exports.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: false },
          // Undocumented items are marked "(undocumented)" in the report, for review.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        },
        // Our doc comments are prose for editors, not TSDoc for a documentation generator.
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, 'package.json'),
  })
}

// One TypeScript program serves every entry point.
const configs = entries.map((entry) => ({ entry, config: configFor(entry) }))
const compilerState = CompilerState.create(configs[0].config, { additionalEntryPoints: entries.map((entry) => entry.types) })

const changed = []
/** Symbols a public signature uses, by where one is used first. */
const forgotten = new Map()
let problems = 0
for (const { entry, config } of configs) {
  const result = Extractor.invoke(config, {
    localBuild: write,
    compilerState,
    messageCallback(message) {
      if (message.messageId === 'ae-forgotten-export') {
        // API Extractor renames a symbol that clashes with another (`Report` → `Report_2`).
        const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1]?.replace(/_\d+$/, '')
        if (symbol && !forgotten.has(symbol)) forgotten.set(symbol, `${relative(root, message.sourceFilePath ?? '')}:${message.sourceFileLine}`)
        message.handled = true
      }
      // This script says itself which reports changed; the bundled TypeScript being older than
      // ours is fine, since it only reads .d.ts files.
      if (message.messageId.startsWith('console-api-report') || message.logLevel === ExtractorLogLevel.Info) message.handled = true
      if (!message.handled && (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning)) problems++
    },
  })
  if (result.apiReportChanged) changed.push(entry)
}

// A type some signature uses that no entry point exports: users can meet it but not name it.
// Every run writes the current reports to the temp folder, so the names are read from there.
const exported = new Set()
for (const { entry } of configs) {
  const report = readFileSync(join(tempFolder, `${entry.name}.api.md`), 'utf8')
  for (const [, name] of report.matchAll(/^export (?:abstract )?(?:function|class|interface|type|const|let|enum|namespace) (\w+)/gm)) exported.add(name)
  for (const [, names] of report.matchAll(/^export \{ ([^}]+) \}/gm)) for (const name of names.split(',')) exported.add(name.split(' as ').at(-1).trim())
}
const unexported = [...forgotten].filter(([symbol]) => !exported.has(symbol))
if (unexported.length) {
  console.log(`Used in the public API but exported by no entry point (export them, or keep them out of public signatures):`)
  for (const [symbol, where] of unexported) console.log(`  ${symbol}  (${where})`)
}

const expected = new Set(entries.map((entry) => `${entry.name}.api.md`))
const stale = readdirSync(reportFolder).filter((file) => file.endsWith('.api.md') && !expected.has(file))
if (write) {
  for (const file of stale) rmSync(join(reportFolder, file))
  const touched = [...changed.map((entry) => `api/${entry.name}.api.md`), ...stale.map((file) => `api/${file} (removed)`)]
  console.log(touched.length ? `API report updated:\n  ${touched.join('\n  ')}\nReview the diff and commit api/.` : 'API report unchanged.')
  if (problems) fail(`API Extractor reported ${problems} problem(s) above`)
} else {
  for (const entry of changed) {
    const committed = relative(root, join(reportFolder, `${entry.name}.api.md`))
    const current = relative(root, join(tempFolder, `${entry.name}.api.md`))
    console.log(`\nThe public API of "${pkg.name}${entry.subpath.slice(1)}" changed (- committed, + now):`)
    try {
      const before = existsSync(join(root, committed)) ? committed : '/dev/null'
      execFileSync('git', ['diff', '--no-index', '--no-prefix', '--', before, current], { cwd: root, stdio: 'inherit' })
    } catch {
      // git diff exits 1 when the files differ: that is the point.
    }
  }
  for (const file of stale) console.log(`\napi/${file} belongs to no entry point in package.json exports.`)
  if (changed.length || stale.length) {
    fail('The API report is out of date. If the change is intended, run `npm run api` and commit api/.')
  }
  if (problems) fail(`API Extractor reported ${problems} problem(s) above`)
  console.log(`API report up to date (${entries.length} entry points).`)
}

function fail(message) {
  console.error(`\n${message}`)
  process.exit(1)
}
