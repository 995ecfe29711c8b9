// `laconic-research/mcp`: research as an MCP tool. Needs the optional peers `@modelcontextprotocol/sdk` and `zod`.
export { createMcpServer, type McpServerOptions } from './server.js'
export { mcpTools, type McpServerSpec, type McpToolsOptions } from './mcp-tools.js'
