/**
 * A project in a temporary folder that sees this repository's sources and packages, but for the
 * ones named: they are really missing, for the worker threads too (Node 20's module hooks do
 * not reach a worker, so a resolve hook cannot hide a package from the extraction pool). Its
 * `node_modules` links every other package, and Node runs with `--preserve-symlinks` so that
 * imports resolve from the project, not from where the links point.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const REPO = new URL('../../', import.meta.url)
const run = promisify(execFile)

export interface ProjectWithout {
  dir: string
  /** Runs an ES module script in the project, from its sources (through tsx); resolves with its stdout. */
  script(code: string): Promise<string>
  remove(): Promise<void>
}

export async function projectWithout(missing: readonly string[]): Promise<ProjectWithout> {
  const repo = await realpath(REPO)
  const dir = await mkdtemp(join(tmpdir(), 'laconic-without-'))
  await mkdir(join(dir, 'node_modules'))
  const modules = join(repo, 'node_modules')
  for (const name of await readdir(modules)) {
    if (missing.includes(name)) continue
    await symlink(await realpath(join(modules, name)), join(dir, 'node_modules', name))
  }
  for (const name of ['src', 'package.json', 'tsconfig.json']) await symlink(join(repo, name), join(dir, name))
  return {
    dir,
    async script(code) {
      const flags = ['--preserve-symlinks', '--preserve-symlinks-main', '--import', 'tsx', '--input-type=module', '-e', code]
      return (await run(process.execPath, flags, { cwd: dir })).stdout
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  }
}
