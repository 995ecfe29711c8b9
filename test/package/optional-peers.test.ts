/**
 * The optional peers (`ai`, `@ai-sdk/*`, `@modelcontextprotocol/sdk`, `@opentelemetry/api`,
 * `mammoth`) stay optional: with every one of them made unresolvable, the entries that do not
 * need them import.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { projectWithout } from '../support/without-packages.js'

const run = promisify(execFile)

// A resolve hook that fails for the optional peers exactly as a missing package would.
const HOOKS = `
export async function resolve(specifier, context, next) {
  if (/^(ai|zod|mammoth)(\\/|$)|^@ai-sdk\\/|^@modelcontextprotocol\\/|^@opentelemetry\\//.test(specifier)) {
    throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' })
  }
  return next(specifier, context)
}`
const REGISTER = `import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}));`

it('the root, adapters, streams, testing, server, node and CLI modules import without any optional peer', { timeout: 60_000 }, async () => {
  const script = `
    const entries = ['./src/index.ts', './src/adapters/index.ts', './src/streams/index.ts', './src/testing/index.ts', './src/node/index.ts', './src/server/index.ts', './src/strategy.ts', './src/cli/cli.ts']
    const loaded = []
    for (const entry of entries) loaded.push(Object.keys(await import(entry)).length)
    let blocked = 'no'
    try { await import('ai') } catch (error) { blocked = error.code }
    console.log(JSON.stringify({ loaded, blocked, aiSdkModel: typeof (await import('./src/adapters/index.ts')).aiSdkModel }))
  `
  const { stdout } = await run(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: new URL('../../', import.meta.url),
    },
  )
  const out = JSON.parse(stdout) as { loaded: number[]; blocked: string; aiSdkModel: string }
  expect(out.blocked).toBe('ERR_MODULE_NOT_FOUND')
  expect(out.loaded.every((n) => n > 0)).toBe(true)
  expect(out.aiSdkModel).toBe('function')
})

it('laconic mcp without the MCP SDK says what to install, as a usage error', { timeout: 60_000 }, async () => {
  const failure = await run(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--import', 'tsx', 'src/cli/main.ts', 'mcp'],
    {
      cwd: new URL('../../', import.meta.url),
    },
  ).catch((error: { code: number; stderr: string }) => error)
  expect(failure).toMatchObject({ code: 2, stderr: 'laconic: laconic mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk zod\n' })
})

it('a corpus folder with a .docx file and no mammoth skips the file with a warning naming the package, and searches the rest', {
  timeout: 120_000,
}, async () => {
  const project = await projectWithout(['mammoth'])
  try {
    const dir = join(project.dir, 'corpus')
    await mkdir(dir)
    await copyFile(new URL('../fixtures/documents/docx/tables.docx', import.meta.url), join(dir, 'tables.docx'))
    await writeFile(join(dir, 'notes.md'), '# Notes\n\nKelp forests shelter otters.\n')
    const stdout = await project.script(`
      const { localCorpus } = await import('./src/adapters/index.ts')
      const warnings = []
      const results = await localCorpus({ dir: 'corpus' }).search('kelp otters', { onWarning: (warning) => warnings.push(warning) })
      console.log(JSON.stringify({ urls: results.map((result) => result.url.replace(/^.*\\//, '')), warnings }))
    `)
    expect(JSON.parse(stdout)).toEqual({
      urls: ['notes.md#notes'],
      warnings: [
        {
          code: 'missing-dependency',
          message: 'localCorpus skipped tables.docx: reading .docx files needs the optional package mammoth: npm install mammoth',
        },
      ],
    })
  } finally {
    await project.remove()
  }
})
