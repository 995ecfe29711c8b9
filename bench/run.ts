/**
 * `npm run bench`: runs every benchmark module that exists, one after another, prints one table
 * each and writes bench/results/<name>.json. `npm run bench -- overhead soak` runs only those.
 * Modules land independently, so a missing one is reported and skipped, not an error.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { targetLines, type BenchResult } from './stats.js'

/** In issue order: 1, 2, 6 (notebook, graph-reader), 3, 4, 5, 7, 8, 9. */
const MODULES = [
  'graph-reader',
  'graph-reader-context',
  'graph-reader-scale',
  'notebook',
  'parsers',
  'huge-line',
  'first-token',
  'flat-prompts',
  'overhead',
  'fanout',
  'soak',
  'local-corpus',
  'redis',
  'react-context',
  'checkpoints',
  'prefix-reuse',
  'pipelining',
  'documents',
  'document-bombs',
  'knowledge-base',
  'eval-replay',
  'verification',
  'evidence',
  'report',
  'scifact',
]

interface BenchModule {
  run(): Promise<BenchResult & { details?: unknown }>
}

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url))

async function main(): Promise<void> {
  const only = process.argv.slice(2)
  const selected = only.length > 0 ? MODULES.filter((name) => only.includes(name)) : MODULES
  if (!(globalThis as { gc?: unknown }).gc) console.warn('note: run with node --expose-gc (npm run bench does) for heap numbers')
  const machine = { node: process.version, cores: os.availableParallelism(), cpu: os.cpus()[0]?.model ?? 'unknown', platform: `${os.platform()} ${os.arch()}` }
  console.log(`laconic benchmarks: node ${machine.node}, ${machine.cores} cores (${machine.cpu})\n`)
  await mkdir(resultsDir, { recursive: true })
  let failed = 0
  const summary: string[] = []

  for (const name of selected) {
    const file = new URL(`./${name}.ts`, import.meta.url)
    if (!existsSync(file)) {
      console.log(`-- ${name}: bench/${name}.ts does not exist yet, skipped\n`)
      continue
    }
    const started = performance.now()
    try {
      const module = (await import(file.href)) as BenchModule
      const result = await module.run()
      const seconds = Math.round((performance.now() - started) / 100) / 10
      console.log(`== ${result.name} (${seconds} s)`)
      console.table(result.rows)
      console.log()
      summary.push(...targetLines(result.name, result.rows))
      const record = {
        name: result.name,
        date: new Date().toISOString(),
        ...machine,
        seconds,
        rows: result.rows,
        ...(result.details !== undefined ? { details: result.details } : {}),
      }
      await writeFile(`${resultsDir}${result.name}.json`, `${JSON.stringify(record, null, 2)}\n`)
    } catch (error) {
      failed++
      console.error(`!! ${name} failed:`, error)
      console.log()
      summary.push(`FAIL  ${name}: the benchmark threw`)
    }
  }
  console.log('== summary: every target')
  console.log(summary.length ? summary.join('\n') : '(no targets in the benchmarks run)')
  if (failed > 0) process.exitCode = 1
}

await main()
