/**
 * Where the Node-only parts come from. Web-standard modules never import Node code: the Node
 * builds of `laconic-research/adapters` and `/kb` (picked by the `node` export condition), the
 * `laconic` command and `laconic-research/node` install it (src/node/runtime.ts). On Node a
 * missing part is a setup mistake, never a quiet fallback: it fails with a `config` error whose
 * hint is the one line to add.
 */

/** True in Node (and in runtimes that run Node's builds: Bun, Deno's npm: packages). */
export function runsOnNode(): boolean {
  const process = (globalThis as { process?: { versions?: { node?: unknown } } }).process
  return typeof process?.versions?.node === 'string'
}

/** The hint of a `config` error for a Node part that was not installed. */
export const NODE_SETUP_HINT =
  "add `import 'laconic-research/node'` once at startup (Node's builds of laconic-research/adapters and /kb do it themselves, unless a bundler picked the Web build)"
