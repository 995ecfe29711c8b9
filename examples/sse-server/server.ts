/**
 * The live research page: `npx tsx examples/sse-server/server.ts --demo` on the scripted demo,
 * or without `--demo` on a local Ollama (OLLAMA_MODEL, OLLAMA_HOST) with DuckDuckGo.
 * The server itself is `createLiveServer` from `laconic-research/node` (the CLI's `--serve` uses it too);
 * this program only gives it an agent and a port.
 */
import { pathToFileURL } from 'node:url'
import { createLiveServer } from '../../src/node/index.js'
import { exampleAgent } from '../shared/agent.js'

const LOOPBACK = '127.0.0.1'

export const DEMO_LABEL = 'Scripted demo: canned model replies and an in-memory search corpus, no network.'

function main(argv: readonly string[]): void {
  const portFlag = argv.indexOf('--port')
  const port = Number(portFlag >= 0 ? argv[portFlag + 1] : (process.env.PORT ?? 8787))
  const { agent, demo, label } = exampleAgent(argv, { demoTokenDelayMs: 40 })
  // Loopback only, and only requests addressed to it (against DNS rebinding): every run spends
  // the model's time, or a provider's money.
  const server = createLiveServer({ agent, host: LOOPBACK, ...(demo ? { label: DEMO_LABEL } : {}) })
  server.listen(port, LOOPBACK, () => console.log(`laconic live page (${label}) on http://${LOOPBACK}:${port}/`))
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2))
}
