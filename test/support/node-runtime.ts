/**
 * Tests run on Node as a user of the Node builds does: with Node's parts installed (the
 * extraction pool, the DNS-pinned guard, folder and file readers). Tests import the Web-standard
 * sources directly, so this does the one line a user adds when their bundler picked the Web
 * builds, `import 'laconic-research/node'` (the entry installs the parts on import, as the `node`
 * export condition of `laconic-research/adapters` does for a user); test/node/runtime.test.ts
 * checks the sources without it, and test/package/exports.test.ts the built package's conditions.
 */
import '../../src/node/index.js'
