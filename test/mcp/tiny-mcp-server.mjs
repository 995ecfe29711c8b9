// A small MCP server over stdio for test/mcp/mcp-tools.test.ts: `add`, `lookup` (a token argument
// the run must redact) and `broken` (a tool error). It writes its pid to the file named by
// TINY_MCP_PID_FILE, so the test can check the run closed it, and appends a line per tool call
// to the file named by TINY_MCP_CALLS_FILE, so the test sees which calls really ran.
import { appendFileSync, writeFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

if (process.env.TINY_MCP_PID_FILE) writeFileSync(process.env.TINY_MCP_PID_FILE, String(process.pid))
/** Notes that a tool ran, with its arguments. */
function ran(name, args) {
  if (process.env.TINY_MCP_CALLS_FILE) appendFileSync(process.env.TINY_MCP_CALLS_FILE, `${JSON.stringify({ name, args })}\n`)
}
const server = new McpServer({ name: 'tiny', version: '1.0.0' })
server.registerTool('add', { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
  ran('add', { a, b })
  return { content: [{ type: 'text', text: `The sum is ${a + b}.` }] }
})
server.registerTool('lookup', { description: 'Looks a key up with an access token.', inputSchema: { key: z.string(), token: z.string() } }, async ({ key }) => {
  ran('lookup', { key })
  return { content: [{ type: 'text', text: `value of ${key}: ${'x'.repeat(10_000)}` }] }
})
server.registerTool('broken', { description: 'Always fails.', inputSchema: {} }, async () => {
  ran('broken', {})
  return { content: [{ type: 'text', text: 'the disk is on fire' }], isError: true }
})
await server.connect(new StdioServerTransport())
