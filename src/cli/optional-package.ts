/**
 * The optional packages a command needs, loaded when it needs them: a missing one is a usage
 * error with a one-line install hint (`npm install …`), whichever command found it missing.
 */
import { UsageError } from './usage-error.js'

/** What each feature needs, as one install line: versions pinned where only some work together. */
export const OPTIONAL_PACKAGES = {
  lancedb: { what: 'LanceDB (@lancedb/lancedb and apache-arrow)', install: ['@lancedb/lancedb@0.31.0', 'apache-arrow@18.1.0'] },
  browser: { what: 'playwright-core', install: ['playwright-core'] },
  mcp: { what: 'the MCP SDK', install: ['@modelcontextprotocol/sdk', 'zod'] },
  redis: { what: 'the packages bullmq and ioredis', install: ['bullmq', 'ioredis'] },
} as const

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES

/** The install line for `feature`: `npm install @lancedb/lancedb@0.31.0 apache-arrow@18.1.0`. */
export const installLine = (feature: OptionalPackage): string => `npm install ${OPTIONAL_PACKAGES[feature].install.join(' ')}`

/** Whether `error` says one of `feature`'s packages cannot be found (not some other module). */
function isMissing(error: unknown, feature: OptionalPackage): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  const names = OPTIONAL_PACKAGES[feature].install.map((spec) => spec.replace(/(?<=.)@.*$/, ''))
  return typeof message === 'string' && names.some((name) => message.includes(`'${name}'`) || message.includes(` ${name}`))
}

/** `load()`, or, when a package of `feature` is missing, a usage error saying `who` needs it and how to install it. */
export async function loadOptional<T>(who: string, feature: OptionalPackage, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (isMissing(error, feature)) throw new UsageError(`${who} needs ${OPTIONAL_PACKAGES[feature].what}: ${installLine(feature)}`)
    throw error
  }
}
