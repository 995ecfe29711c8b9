import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { questionFrom, substituteVars } from '../../src/cli/question.js'
import { UsageError } from '../../src/cli/usage-error.js'

const noStdin = () => Promise.reject(new Error('stdin was not expected'))
let folder: string
beforeAll(async () => (folder = await mkdtemp(join(tmpdir(), 'laconic-q-'))))
afterAll(() => rm(folder, { recursive: true, force: true }))

describe('substituteVars', () => {
  it('fills every {{KEY}}, spaces inside the braces allowed, values taken literally', () => {
    expect(substituteVars('{{A}} and {{ B }} and {{A}}', { A: 'x', B: '$1 {{A}}' })).toBe('x and $1 {{A}} and x')
  })

  it('names every placeholder that has no value', () => {
    expect(() => substituteVars('{{CITY}} in {{YEAR}}', {})).toThrow('the prompt uses {{CITY}}, {{YEAR}}: pass --var CITY=... --var YEAR=...')
  })

  it('text without placeholders is unchanged, whatever the vars', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{')),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (text, vars) => {
          expect(substituteVars(text, vars)).toBe(text)
        },
      ),
    )
  })
})

describe('questionFrom', () => {
  it('joins the words', async () => {
    expect(await questionFrom({ words: ['why', 'is', 'it?'], vars: {} }, noStdin)).toBe('why is it?')
  })

  it('reads --prompt FILE, or stdin for -', async () => {
    const file = join(folder, 'q.txt')
    await writeFile(file, '  What is {{X}}?\n')
    expect(await questionFrom({ words: [], prompt: file, vars: { X: 'RAG' } }, noStdin)).toBe('What is RAG?')
    expect(await questionFrom({ words: [], prompt: '-', vars: {} }, async () => 'from stdin\n')).toBe('from stdin')
  })

  it('an empty question or prompt file is a usage error', async () => {
    const file = join(folder, 'empty.txt')
    await writeFile(file, '\n \n')
    await expect(questionFrom({ words: [], vars: {} }, noStdin)).rejects.toThrow(UsageError)
    await expect(questionFrom({ words: [], prompt: file, vars: {} }, noStdin)).rejects.toThrow(`the prompt file ${file} is empty`)
    await expect(questionFrom({ words: [], prompt: folder, vars: {} }, noStdin)).rejects.toThrow('it is a folder')
  })
})
