/**
 * The version a user sees is package.json's: what `laconic --version` prints, and what the MCP
 * server tells a client it connects to. Both read one constant (src/version.ts), kept there so
 * the Web-standard entries load it without `node:fs`; here it is checked where it shows.
 */
import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { describe, expect, it } from 'vitest'
import { createAgent } from '../src/index.js'
import { createMcpServer } from '../src/mcp/index.js'
import { scriptedLLM } from '../src/testing/index.js'
import { runCli } from './cli/run-cli.js'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }

describe('the version a user sees is package.json’s', () => {
  it('laconic --version prints it', { timeout: 60_000 }, async () => {
    const shown = await runCli(['--version'])
    expect(shown).toMatchObject({ code: 0, stdout: `${version}\n` })
  })

  it('the MCP server reports it to the client', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await (await createMcpServer({ agent: createAgent({ llm: scriptedLLM({ replies: [] }) }) })).connect(serverSide)
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(clientSide)
    expect(client.getServerVersion()).toMatchObject({ name: 'laconic', version })
    await client.close()
  })
})
