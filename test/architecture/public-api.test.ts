/**
 * Every export is a promise: the API reports (`npm run api`) show none undocumented, and each
 * exported name of each entry point is named in a type-level test under test/types/.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))
const reports = readdirSync(`${root}api`).filter((file) => file.endsWith('.api.md'))

/** The exported names of a top-level `export` line of an API report, e.g. `Report` for `export { Report_2 as Report }`. */
function exportedNames(line: string): string[] {
  const renamed = /^export \{(.*)\}/.exec(line)
  if (renamed?.[1]) return renamed[1].split(',').map((part) => (part.split(' as ').pop() ?? '').trim())
  const declared = /^export (?:declare )?(?:abstract )?(?:function|interface|type|const|let|class|enum|namespace) ([A-Za-z_$][\w$]*)/.exec(line)
  return declared?.[1] ? [declared[1]] : []
}

function reportLines(report: string): string[] {
  return readFileSync(`${root}api/${report}`, 'utf8').split('\n')
}

const typeTests = readdirSync(`${root}test/types`)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => readFileSync(`${root}test/types/${file}`, 'utf8'))
  .join('\n')

/** Exports with no type-level test yet (issue 25): shrink this list, never grow it. */
const KNOWN_UNTESTED = new Set<string>()

describe('the API reports', () => {
  it('are found', () => {
    expect(reports).toContain('index.api.md')
  })

  it('document every top-level export', () => {
    const undocumented = reports.flatMap((report) =>
      reportLines(report).flatMap((line, i, lines) =>
        line.startsWith('export ') && lines[i - 1] === '// (undocumented)' ? exportedNames(line).map((name) => `${report}: ${name}`) : [],
      ),
    )
    expect(undocumented).toEqual([])
  })

  it('name every export in a type-level test under test/types/, but for the listed gaps', () => {
    const untested = reports.flatMap((report) =>
      reportLines(report)
        .filter((line) => line.startsWith('export '))
        .flatMap(exportedNames)
        .filter((name) => !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(typeTests))
        .map((name) => `${report}: ${name}`),
    )
    // A new export needs its type test; a gap that got one leaves the list.
    expect(untested.filter((name) => !KNOWN_UNTESTED.has(name))).toEqual([])
    expect([...KNOWN_UNTESTED].filter((name) => !untested.includes(name))).toEqual([])
  })
})

describe('exportedNames', () => {
  it('reads declarations and renamed re-exports', () => {
    expect(exportedNames('export function createAgent(options: AgentOptions): Agent;')).toEqual(['createAgent'])
    expect(exportedNames('export const EVENT_TYPES: readonly EventType[];')).toEqual(['EVENT_TYPES'])
    expect(exportedNames('export { Report_2 as Report }')).toEqual(['Report'])
  })
})
