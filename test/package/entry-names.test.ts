/**
 * A name means one thing: no two entry points export the same name (issue 37). Read from the API
 * reports (`api/*.api.md`, kept current by `npm run api:check`), which list types as well as values.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { expect, it } from 'vitest'

const API = resolve(import.meta.dirname, '..', '..', 'api')

function exportedNames(report: string): Set<string> {
  const names = new Set<string>()
  for (const [, name] of report.matchAll(/^export (?:declare )?(?:abstract )?(?:function|class|interface|type|const|let|enum|namespace) (\w+)/gm))
    names.add(name as string)
  for (const [, list] of report.matchAll(/^export \{([^}]+)\}/gm))
    for (const item of (list as string).split(',')) names.add(item.split(' as ').at(-1)?.trim() as string)
  return names
}

it('no name is exported from two entry points', () => {
  const entries = new Map<string, string[]>()
  for (const file of readdirSync(API).filter((name) => name.endsWith('.api.md'))) {
    for (const name of exportedNames(readFileSync(join(API, file), 'utf8'))) entries.set(name, [...(entries.get(name) ?? []), file.replace(/\.api\.md$/, '')])
  }
  expect(entries.size).toBeGreaterThan(100)
  expect([...entries].filter(([, where]) => where.length > 1)).toEqual([])
})
