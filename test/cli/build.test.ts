/**
 * The published `bin` is `dist/cli/main.js`: build the package (into a scratch folder, so a
 * concurrent `npm run build` is not disturbed) and run the built CLI as an installed one would be.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { REPO, runCli } from './run-cli.js'

const root = join(REPO, '.scratch', `cli-build-${process.pid}`)
afterAll(() => rm(root, { recursive: true, force: true }))

beforeAll(async () => {
  await mkdir(root, { recursive: true })
  // The CLI reads ../../package.json from dist/cli/, as it does in the published package.
  await copyFile(join(REPO, 'package.json'), join(root, 'package.json'))
  const tsc = join(REPO, 'node_modules', '.bin', 'tsc')
  // Type errors elsewhere in the tree must not hide whether the CLI itself builds and runs.
  await promisify(execFile)(tsc, ['-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(root, 'dist')], { cwd: REPO }).catch(() => undefined)
}, 120_000)

it('the built CLI starts with a shebang and answers --version, --help and a usage error', { timeout: 120_000 }, async () => {
  const entry = join(root, 'dist', 'cli', 'main.js')
  expect((await readFile(entry, 'utf8')).split('\n', 1)[0]).toBe('#!/usr/bin/env node')

  const { version } = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string }
  const shown = await runCli(['--version'], { entry })
  expect(shown).toMatchObject({ code: 0, stdout: `${version}\n` })
  const help = await runCli(['--help'], { entry })
  expect(help.stdout).toContain('laconic [options] QUESTION...')
  const usage = await runCli(['--format', 'yaml', 'q'], { entry })
  expect(usage.code).toBe(2)
})

it('the built package reads pages in its compiled worker thread (plain node, no TypeScript loader)', { timeout: 60_000 }, async () => {
  const module = pathToFileURL(join(root, 'dist', 'adapters', 'fetch', 'readable-text.js')).href
  // The pool is Node's part, installed as Node's build of laconic-research/adapters installs it.
  const runtime = pathToFileURL(join(root, 'dist', 'node', 'runtime.js')).href
  const html = `<html><head><title>Built</title></head><body><article><h1>Built</h1>${'<p>The worker thread read this article from the compiled sources.</p>'.repeat(8)}</article></body></html>`
  const script = `(await import(${JSON.stringify(runtime)})).installNodeRuntime(); const { readableText } = await import(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(await readableText(${JSON.stringify(html)})))`
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root })
  const page = JSON.parse(stdout) as { title?: string; text: string }
  // A title and paragraph breaks only come from the DOM walk in the worker (the fallback has neither).
  expect(page.title).toBe('Built')
  expect(page.text).toContain('compiled sources.\n\nThe worker thread')
})
