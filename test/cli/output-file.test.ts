/** `--output FILE`: the format is the extension's; written from a run of the command. */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mammoth from 'mammoth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { roleOf } from '../support/roles.js'
import { cliFlags, type FakeBackend, startFakeBackend } from './fake-backend.js'
import { laconic } from './laconic.js'

/** A report whose title is hostile markup; a one-section outline; the scratchpad answers "Plain [1]." */
const outline = { title: 'Tides & <script>alert(1)</script>', sections: [{ title: 'Why tides rise', goal: 'explain', questions: ['why do tides rise'] }] }

describe('--output picks the format by the extension', { timeout: 60_000 }, () => {
  let dir = ''
  let backend: FakeBackend
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-output-'))
    backend = await startFakeBackend({
      reply: (turn) => {
        switch (roleOf(turn.system)) {
          case 'report outline':
            return JSON.stringify(outline)
          case 'report facts':
            return JSON.stringify({ facts: [{ text: 'The moon pulls the sea', sources: [1] }] })
          case 'report section':
            return 'The moon pulls the sea [1].'
          case 'report introduction':
            return 'Tides are the rise and fall of the sea.'
          case 'report conclusion':
            return 'The moon makes tides.'
          case 'scratchpad planner':
            return turn.prompt.includes('(none yet)') ? 'Action: Search\nQuery: tides' : 'Action: Answer'
          default:
            return 'Plain [1].'
        }
      },
      results: () => [{ title: 'Tides', url: 'https://ocean.example/tides', snippet: 'The moon pulls the sea.' }],
    })
  })
  afterAll(async () => {
    await backend.close()
    await rm(dir, { recursive: true, force: true })
  })

  const writes = async (file: string, argv: string[]) => {
    const { code, stderr } = await laconic([...cliFlags(backend), '--output', join(dir, file), ...argv])
    expect(code).toBe(0)
    expect(stderr).toContain(`laconic: answer written to ${join(dir, file)}\n`)
  }

  it('.md: a report run writes the report; .html: the page; .docx: a Word file', async () => {
    await writes('r.md', ['-s', 'report', 'Why do tides rise?'])
    expect(await readFile(join(dir, 'r.md'), 'utf8')).toMatch(/^# Tides & <script>.*\n\n## Introduction\n/)
    await writes('r.HTML', ['-s', 'report', 'Why do tides rise?'])
    expect(await readFile(join(dir, 'r.HTML'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<nav aria-label="Contents">/)
    await writes('r.docx', ['-s', 'report', 'Why do tides rise?'])
    const { value } = await mammoth.extractRawText({ path: join(dir, 'r.docx') })
    expect(value).toContain('Why tides rise')
  })

  it('any other extension is the answer as Markdown, as before', async () => {
    await writes('a.txt', ['Why?'])
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toMatch(/^# Why\?\n\nPlain \[1\]\./)
  })
})
