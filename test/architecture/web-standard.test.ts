/**
 * Every entry point but the Node-only ones loads in a runtime without Node: each is bundled from
 * its source for esbuild's `neutral` platform, where a `node:` module (or a package that needs
 * one) cannot resolve, and the bundle is run in a fresh V8 context that has the Web globals
 * only (no `process`, `Buffer` or `require`).
 *
 * A lazy `import('…')` stays out of the bundle: that is how an entry loads a heavy or optional
 * package on first use (the HTML parser, an optional peer). Never Node code: no lazy import of
 * a Web-standard entry names a `node:` module or a file of src/node. Node's parts (the
 * extraction pool, the DNS-pinned fetch, folder and file readers, the GGUF loader) are installed
 * into these modules by src/node/runtime.ts instead (docs/architecture.md, "Documents, and
 * Node's parts").
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createContext, Script } from 'node:vm'
import { build, type Metafile, type Plugin } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { entrySources } from '../../scripts/import-graph.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, unknown> }

/** Entry points made for Node, and why; every other one must load without it. */
const NODE_ONLY: Record<string, string> = {
  './node': 'file checkpoints (node:fs) and the node:http server',
  './redis': 'ioredis and BullMQ speak to Redis over node:net',
  './lancedb': 'LanceDB is a native Node addon over the file system',
  './browser': 'a headless Chromium process driven by playwright-core, its requests served by the DNS-pinned fetch (undici)',
  './eval': 'results folders and cassettes are files (node:fs), cassette keys are node:crypto hashes',
}

const entries = [...entrySources(pkg.exports)]
const webEntries = entries.filter(([subpath]) => !(subpath in NODE_ONLY))

/** What a Web-standard runtime (a browser, a worker, Deno, Bun) has: none of Node's own globals. */
const WEB_GLOBALS = [
  'AbortController',
  'AbortSignal',
  'atob',
  'Blob',
  'btoa',
  'clearInterval',
  'clearTimeout',
  'console',
  'crypto',
  'DOMException',
  'Event',
  'EventTarget',
  'fetch',
  'FormData',
  'Headers',
  'performance',
  'queueMicrotask',
  'ReadableStream',
  'Request',
  'Response',
  'setInterval',
  'setTimeout',
  'structuredClone',
  'TextDecoder',
  'TextDecoderStream',
  'TextEncoder',
  'TextEncoderStream',
  'TransformStream',
  'URL',
  'URLSearchParams',
  'WritableStream',
] as const

/** A lazy import is left for the runtime to resolve when (and if) it is called. */
const lazyImportsStayOut: Plugin = {
  name: 'lazy-imports-stay-out',
  setup(plugin) {
    plugin.onResolve({ filter: /.*/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined))
  },
}

async function bundle(source: string): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [`${root}${source}`],
    bundle: true,
    platform: 'neutral',
    // `neutral` reads no package.json fields by default; these are the ones a Web bundler reads.
    mainFields: ['module', 'main'],
    format: 'iife',
    globalName: 'entry',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [lazyImportsStayOut],
  })
  return { code: result.outputFiles[0]?.text ?? '', metafile: result.metafile }
}

describe('the Web-standard entry points', () => {
  it('cover every entry point of package.json but the Node-only ones', () => {
    expect(webEntries.map(([subpath]) => subpath)).toEqual(
      expect.arrayContaining(['.', './strategy', './adapters', './streams', './testing', './otel', './mcp', './server']),
    )
    for (const subpath of Object.keys(NODE_ONLY)) expect(entries.map(([entry]) => entry)).toContain(subpath)
  })

  it.each(webEntries)('%s loads without Node (%s)', async (_subpath, source) => {
    const { code, metafile } = await bundle(source)
    // Everything it imports at load time is in the bundle: only lazy imports stayed out.
    const loadTime = Object.entries(metafile.inputs).flatMap(([file, { imports }]) =>
      imports.filter((found) => found.external && found.kind !== 'dynamic-import').map((found) => `${file} → ${found.path}`),
    )
    expect(loadTime).toEqual([])
    const lazyNode = Object.entries(metafile.inputs).flatMap(([file, { imports }]) =>
      imports.filter((found) => found.kind === 'dynamic-import' && /^node:|(^|\/)node\//.test(found.path)).map((found) => `${file} → ${found.path}`),
    )
    expect(lazyNode).toEqual([])

    const context = createContext(Object.fromEntries(WEB_GLOBALS.map((name) => [name, globalThis[name]])))
    new Script(code, { filename: `${source} (bundled)` }).runInContext(context)
    const loaded = Object.keys((context as { entry: object }).entry).sort()
    const expected = Object.keys(await import(`${root}${source}`)).sort()
    expect(loaded).toEqual(expected)
  })

  it('would catch a Node module loaded at import time', async () => {
    await expect(bundle('src/node/index.ts')).rejects.toThrow(/Could not resolve "node:/)
  })
})
