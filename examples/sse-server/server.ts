/**
 * The live research page on the scripted demo: `npx tsx examples/sse-server/server.ts --demo`.
 * The server itself is `createLiveServer` from `laconic/node` (the CLI's `--serve` uses it with
 * a real model); this program only gives it the demo agent and a port.
 */
import { pathToFileURL } from 'node:url'
import { createLiveServer } from '../../src/node/index.js'
import { demoAgent } from './demo.js'

export const DEMO_LABEL = 'Scripted demo: canned model replies and an in-memory search corpus, no network.'

function main(argv: readonly string[]): void {
  const portFlag = argv.indexOf('--port')
  const port = Number(portFlag >= 0 ? argv[portFlag + 1] : (process.env.PORT ?? 8787))
  if (!argv.includes('--demo')) {
    console.error('No research backend is configured here. Run with --demo for the scripted demo, or use `laconic --serve` with a real model.')
    process.exitCode = 2
    return
  }
  const server = createLiveServer({ agent: demoAgent(), label: DEMO_LABEL })
  server.listen(port, () => console.log(`laconic live page (scripted demo) on http://localhost:${port}/`))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2))
}
