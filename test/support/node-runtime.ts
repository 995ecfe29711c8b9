/**
 * Tests run on Node as a user of the Node builds does: with Node's parts installed (the
 * extraction pool, the DNS-pinned guard, folder and file readers). Tests import the Web-standard
 * sources directly, so this does what `laconic-research/adapters`' `node` export condition does
 * for a user; test/node/runtime.test.ts checks the sources without it, and
 * test/package/exports.test.ts the built package's conditions.
 */
import { installNodeRuntime } from '../../src/node/runtime.js'

installNodeRuntime()
