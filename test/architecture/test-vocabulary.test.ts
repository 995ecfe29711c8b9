/**
 * One test vocabulary: every test is an `it` (inside a `describe` where it helps). A file that
 * imports vitest's `test` alias brings the second spelling back.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : testFiles(path)
    return /\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

it('no test file imports vitest’s `test` alias of `it`', () => {
  const importsTest = /import\s*\{[^}]*\btest\b[^}]*\}\s*from\s*'vitest'/
  const files = [...testFiles('test'), ...testFiles('examples')]
  expect(files.length).toBeGreaterThan(100)
  expect(files.filter((file) => importsTest.test(readFileSync(join(root, file), 'utf8')))).toEqual([])
})
