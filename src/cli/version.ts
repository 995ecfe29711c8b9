import { readFileSync } from 'node:fs'

/** The package version; `src/cli/` and `dist/cli/` both sit two levels below package.json. */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  const version = (pkg as { version?: unknown }).version
  return typeof version === 'string' ? version : 'unknown'
}
