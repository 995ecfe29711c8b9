/**
 * The optional peers (`ai`, `@ai-sdk/*`, `@modelcontextprotocol/sdk`, `@opentelemetry/api`,
 * `mammoth`) stay optional: with every one of them made unresolvable, the entries that do not
 * need them import.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
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
      // laconic-research/adapters as Node resolves it (its node export condition).
      const { localCorpus } = await import('./src/node/adapters-entry.ts')
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

it('laconic-research/mcp imports without the MCP SDK and zod; createMcpServer and mcpTools then say what to install', { timeout: 120_000 }, async () => {
  // Really missing (not hidden by a hook): the project's node_modules has neither package.
  const project = await projectWithout(['@modelcontextprotocol', 'zod'])
  try {
    const stdout = await project.script(`
      const mcp = await import('./src/mcp/index.ts')
      const { createAgent } = await import('./src/index.ts')
      const { scriptedLLM } = await import('./src/testing/index.ts')
      const agent = createAgent({ llm: scriptedLLM({ replies: [] }) })
      const info = (error) => ({ name: error.name, code: error.code, message: error.message, hint: error.hint })
      const server = await Promise.resolve().then(() => mcp.createMcpServer({ agent })).then(() => 'served', info)
      const tools = await mcp.mcpTools({ command: 'true' }).open({ signal: new AbortController().signal }).then(() => 'opened', info)
      console.log(JSON.stringify({ exports: Object.keys(mcp).sort(), server, tools }))
    `)
    const hint = 'npm install @modelcontextprotocol/sdk zod'
    expect(JSON.parse(stdout)).toEqual({
      exports: ['createMcpServer', 'mcpTools'],
      server: { name: 'LaconicError', code: 'config', message: `createMcpServer needs the MCP SDK (${hint})`, hint },
      tools: { name: 'LaconicError', code: 'config', message: `mcpTools needs the MCP SDK (${hint})`, hint },
    })
  } finally {
    await project.remove()
  }
})

it('laconic --mcp without the MCP SDK says what to install, as a usage error', { timeout: 60_000 }, async () => {
  const failure = await run(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      '--import',
      'tsx',
      'src/cli/main.ts',
      '--mcp',
      'some-server',
      '--backend',
      'openai',
      '--endpoint',
      'http://127.0.0.1:9',
      '-m',
      'x',
      'q',
    ],
    { cwd: new URL('../../', import.meta.url), env: { PATH: process.env.PATH ?? '', HOME: tmpdir() } },
  ).catch((error: { code: number; stderr: string }) => error)
  expect(failure).toMatchObject({ code: 2, stderr: 'laconic: --mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk zod\n' })
})

/** A resolve hook, registered with `--import`, that fails for the packages `pattern` matches as a missing package would. */
const hiding = (pattern: string) => {
  const hooks = `export async function resolve(specifier, context, next) {
    if (new RegExp(${JSON.stringify(pattern)}).test(specifier)) throw Object.assign(new Error('Cannot find package ' + specifier), { code: 'ERR_MODULE_NOT_FOUND' })
    return next(specifier, context)
  }`
  return `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));`)}`
}

it('laconic index, --kb and --memory without LanceDB say what to install, on one line', { timeout: 60_000 }, async () => {
  const install = 'LanceDB (@lancedb/lancedb and apache-arrow): npm install @lancedb/lancedb@0.31.0 apache-arrow@18.1.0'
  const folder = await mkdtemp(join(tmpdir(), 'laconic-no-lancedb-'))
  try {
    const embed = ['--embed-backend', 'openai', '--embed-endpoint', 'http://127.0.0.1:9', '--embed-model', 'e']
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', hiding('^@lancedb/lancedb$'), '--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: new URL('../../', import.meta.url),
        env: { PATH: process.env.PATH ?? '', HOME: folder },
      }).catch((error: { code: number; stderr: string }) => error)
    expect(await cli('index', folder, '--kb', join(folder, 'kb'), ...embed)).toMatchObject({ code: 2, stderr: `laconic: a knowledge base needs ${install}\n` })
    const memory = await cli('--backend', 'openai', '--endpoint', 'http://127.0.0.1:9', '-m', 'x', '--memory', join(folder, 'memory'), ...embed, 'q')
    expect(memory).toMatchObject({ code: 2, stderr: expect.stringContaining(`laconic: --memory needs ${install}\n`) })
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
})

it('LanceDB and its apache-arrow are optional dependencies, installed by default, pinned to versions that work together', async () => {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, string> | undefined>
  expect(manifest.optionalDependencies).toMatchObject({ '@lancedb/lancedb': '0.31.0', 'apache-arrow': '18.1.0' })
  expect(manifest.peerDependencies?.['@lancedb/lancedb']).toBeUndefined()
  expect(manifest.peerDependencies?.['apache-arrow']).toBeUndefined()
})

it('laconic --browser and browserFetch without playwright-core say what to install', { timeout: 60_000 }, async () => {
  const node = (...args: string[]) =>
    run(process.execPath, ['--import', hiding('^playwright-core$'), '--import', 'tsx', ...args], {
      cwd: new URL('../../', import.meta.url),
      env: { PATH: process.env.PATH ?? '', HOME: tmpdir() },
    }).catch((error: { code: number; stderr: string }) => error)
  const cli = await node('src/cli/main.ts', '--browser', '--backend', 'openai', '--endpoint', 'http://127.0.0.1:9', '-m', 'x', 'q')
  expect(cli).toMatchObject({ code: 2, stderr: 'laconic: --browser needs playwright-core: npm install playwright-core\n' })
  const script = `
    const { browserFetch } = await import('./src/browser/index.ts')
    const reader = browserFetch({ allowOrigins: ['http://127.0.0.1:9'] })
    const error = await reader.fetch('http://127.0.0.1:9/').catch((error) => error)
    console.log(JSON.stringify({ code: error.code, message: error.message }))
  `
  const { stdout } = (await node('--input-type=module', '-e', script)) as { stdout: string }
  expect(JSON.parse(stdout)).toEqual({
    code: 'config',
    message: 'browserFetch needs the optional package playwright-core (npm install playwright-core; it drives the system Chromium, no browser is downloaded)',
  })
})
