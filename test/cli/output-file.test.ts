import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mammoth from 'mammoth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeOutput } from '../../src/cli/output-file.js'
import type { ResearchResult } from '../../src/index.js'
import { reportResult } from '../export/fixture.js'

const result = { ...reportResult(), facts: [], knowledge: '', reason: 'answered', cost: {} } as unknown as ResearchResult

describe('--output picks the format by the extension', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-output-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('.md: a report run writes the report; .html: the page; .docx: a Word file', async () => {
    await writeOutput(join(dir, 'r.md'), 'q', result)
    expect(await readFile(join(dir, 'r.md'), 'utf8')).toMatch(/^# Tides & <script>.*\n\n## Introduction\n/)
    await writeOutput(join(dir, 'r.HTML'), 'q', result)
    expect(await readFile(join(dir, 'r.HTML'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<nav aria-label="Contents">/)
    await writeOutput(join(dir, 'r.docx'), 'q', result)
    const { value } = await mammoth.extractRawText({ path: join(dir, 'r.docx') })
    expect(value).toContain('Why tides rise')
  })

  it('any other extension is the answer as Markdown, as before', async () => {
    const plain = { ...result, report: undefined, answer: 'Plain [1].' } as ResearchResult
    await writeOutput(join(dir, 'a.txt'), 'Why?', plain)
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toMatch(/^# Why\?\n\nPlain \[1\]\./)
  })
})
