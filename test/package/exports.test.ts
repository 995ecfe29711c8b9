/**
 * The `exports` map points at built files: build the package into a scratch folder and import
 * every entry point by its package name, as a user's code would, then run a research on it.
 */
import { execFile } from 'node:child_process'
import { access, copyFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, expect, it } from 'vitest'

const run = promisify(execFile)
const REPO = resolve(import.meta.dirname, '..', '..')
const root = join(REPO, '.scratch', `package-${process.pid}`)
afterAll(() => rm(root, { recursive: true, force: true }))

const USER_CODE = `
import { createAgent } from 'laconic-research'
import { localCorpus, openai, cached } from 'laconic-research/adapters'
import { toNDJSON, fromNDJSON } from 'laconic-research/streams'
import { scriptedLLM, assertEventInvariants } from 'laconic-research/testing'
import { createLiveServer } from 'laconic-research/node'
import { createResearchHandler, inProcessRuns } from 'laconic-research/server'
import { Notebook } from 'laconic-research/strategy'
import { createMcpServer } from 'laconic-research/mcp'
import { toUIMessageStream } from 'laconic-research/streams'
import { aiSdkModel } from 'laconic-research/adapters'

const corpus = localCorpus({ documents: [{ title: 'Sky', text: 'The sky is blue because air scatters blue light most (Rayleigh scattering).' }] })
const llm = scriptedLLM({ replies: ['Action: Search\\nQuery: why is the sky blue', 'Air scatters blue light most.', 'Action: Answer', 'Because air scatters blue light most.'] })
const agent = createAgent({ llm, search: cached(corpus), fetch: corpus })
const events = []
for await (const event of fromNDJSON(toNDJSON(agent.research('Why is the sky blue?')))) events.push(event)
assertEventInvariants(events)
console.log(JSON.stringify({ end: events.at(-1), openai: typeof openai, live: typeof createLiveServer, handler: typeof createResearchHandler({ runs: inProcessRuns({ agent }) }), notebook: typeof Notebook, mcp: typeof createMcpServer, ui: typeof toUIMessageStream, aiSdk: typeof aiSdkModel }))
`

/** A Node user who imports only /adapters: its Node build reads folders and guards fetches, with no step of theirs. */
const NODE_USER_CODE = `
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { httpFetch, localCorpus } from 'laconic-research/adapters'

const dir = mkdtempSync(join(tmpdir(), 'laconic-user-'))
writeFileSync(join(dir, 'sky.html'), '<html><head><title>Sky</title></head><body><p>Air scatters blue light most (Rayleigh scattering).</p></body></html>')
const [hit] = await localCorpus({ dir }).search('Rayleigh scattering')
// The Web build throws a config error here on Node: no DNS-pinned guard installed.
const fetcher = httpFetch()
console.log(JSON.stringify({ title: hit?.title, fetch: typeof fetcher.fetch }))
`

/** The same user's code bundled for Node: the entry that installs Node's parts must survive tree-shaking (`sideEffects`). */
const BUNDLED_USER_CODE = `
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { httpFetch, localCorpus } from 'laconic-research/adapters'

const dir = mkdtempSync(join(tmpdir(), 'laconic-bundled-'))
writeFileSync(join(dir, 'sky.md'), '# Sky\\n\\nAir scatters blue light most (Rayleigh scattering).\\n')
const [hit] = await localCorpus({ dir }).search('Rayleigh scattering')
console.log(JSON.stringify({ title: hit?.title, fetch: typeof httpFetch().fetch }))
`

it('every entry point imports by name from the build, with types, and runs', { timeout: 120_000 }, async () => {
  await mkdir(root, { recursive: true })
  await copyFile(join(REPO, 'package.json'), join(root, 'package.json'))
  await symlink(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir')
  await run(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(root, 'dist')], { cwd: REPO }).catch(
    () => undefined, // type errors are the typecheck's business; what matters here is what was emitted
  )
  const { exports } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types: string; default: string }>
  }
  for (const target of Object.values(exports)) {
    if (typeof target === 'string') continue
    await access(join(root, target.types))
    await access(join(root, target.default))
  }
  for (const entry of ['./adapters', './kb']) await access(join(root, (exports[entry] as { node?: string }).node ?? 'missing'))
  await writeFile(join(root, 'node-user.mjs'), NODE_USER_CODE)
  const nodeUser = await run(process.execPath, ['node-user.mjs'], { cwd: root })
  expect(JSON.parse(nodeUser.stdout)).toEqual({ title: 'Sky', fetch: 'function' })
  await writeFile(join(root, 'bundled-user.mjs'), BUNDLED_USER_CODE)
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
  const dependencies = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(pkg[field] ?? {}))
  await build({
    entryPoints: [join(root, 'bundled-user.mjs')],
    outfile: join(root, 'bundled.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: dependencies,
    logLevel: 'silent',
  })
  const bundled = await run(process.execPath, ['bundled.mjs'], { cwd: root })
  expect(JSON.parse(bundled.stdout)).toEqual({ title: 'Sky', fetch: 'function' })
  await writeFile(join(root, 'user.mjs'), USER_CODE)
  const { stdout } = await run(process.execPath, ['user.mjs'], { cwd: root })
  const output = JSON.parse(stdout) as {
    end: { type: string; reason: string; answer: string }
    openai: string
    live: string
    handler: string
    notebook: string
    mcp: string
    ui: string
    aiSdk: string
  }
  expect(output.end).toMatchObject({ type: 'run-end', reason: 'answered', answer: 'Because air scatters blue light most.' })
  expect([output.openai, output.live, output.handler, output.notebook, output.mcp, output.ui, output.aiSdk]).toEqual([
    'function',
    'function',
    'function',
    'function',
    'function',
    'function',
    'function',
  ])
})
