/**
 * Code blocks of the docs, run as a reader pastes them (issue 35, item 6): the package's imports
 * point at the source, the model and search line is the scripted demo agent (no network), and
 * nothing else is changed.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const REPO = fileURLToPath(new URL('../../', import.meta.url))

/** The first ```ts block of a doc. */
async function firstTsBlock(doc: string): Promise<string> {
  const text = await readFile(join(REPO, doc), 'utf8')
  const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1]
  if (block === undefined) throw new Error(`${doc} has no ts block`)
  return block
}

/** The block with the package's entry points read from `src/`, and its agent the scripted demo. */
function runnable(block: string): string {
  const entry = (path: string) => `'${join(REPO, 'src', path)}'`
  const swapped = block
    .replace(/'laconic-research'/g, entry('index.ts'))
    .replace(/'laconic-research\/(\w+)'/g, (_, sub: string) => entry(`${sub}/index.ts`))
    .replace(/^const agent = createAgent\(.*\)$/m, 'const agent = demoAgent({ tokenDelayMs: 0 })')
  if (!swapped.includes('demoAgent(')) throw new Error('the block makes no agent with createAgent on one line')
  return `import { demoAgent } from '${join(REPO, 'examples/sse-server/demo.ts')}'\n${swapped}`
}

describe('docs/checkpoints.md', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'laconic-doc-snippet-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('the resume example works as pasted: the run is read, so a checkpoint is saved, and the resumed run answers', { timeout: 60_000 }, async () => {
    const file = join(dir, 'resume.mts')
    await writeFile(file, runnable(await firstTsBlock('docs/checkpoints.md')))
    // Run from the temporary folder (the block writes .laconic/runs where it runs), with the repository's tsx.
    const { stdout } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), file], { cwd: dir, timeout: 50_000 })
    const lines = stdout.trim().split('\n')
    // The first run, cut off after a result; then the resumed run from run-start to its answer.
    const resumedStart = lines.lastIndexOf('run-start')
    expect(resumedStart).toBeGreaterThan(0)
    expect(lines.slice(0, resumedStart)).toContain('fact')
    expect(lines.slice(resumedStart)).toContain('run-end')
    expect(lines.at(-1)).toMatch(/^The 2024 Nobel Prize in Chemistry went to David Baker/)
  })
})
