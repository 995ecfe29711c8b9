/**
 * Every export is a promise: the API reports (`npm run api`) show none undocumented.
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
})

describe('exportedNames', () => {
  it('reads declarations and renamed re-exports', () => {
    expect(exportedNames('export function createAgent(options: AgentOptions): Agent;')).toEqual(['createAgent'])
    expect(exportedNames('export const EVENT_TYPES: readonly EventType[];')).toEqual(['EVENT_TYPES'])
    expect(exportedNames('export { Report_2 as Report }')).toEqual(['Report'])
  })
})
