// `laconic-research/mcp`: research as an MCP tool. Needs the optional peers `@modelcontextprotocol/sdk` and `zod`.
export { createMcpServer, MAX_MCP_QUESTION_CHARS, type McpServerOptions } from './server.js'
