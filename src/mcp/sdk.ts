/**
 * The MCP SDK, and zod (the server's tool schema is written in it), are optional peers loaded on
 * first use: `laconic-research/mcp` imports without them, and using it without them is a
 * `config` LaconicError with the one install line. No module this entry loads imports them
 * statically (types only).
 */
import { LaconicError } from '../core/contracts/laconic-error.js'

/** What to install for `laconic-research/mcp`, as the CLI says it too. */
export const MCP_INSTALL = 'npm install @modelcontextprotocol/sdk zod'

/** Whether `error` says the SDK or zod itself cannot be found (not one of their own dependencies). */
function isMissingPeer(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  return typeof message === 'string' && /(^|[\s'"])(@modelcontextprotocol\/sdk|zod)([/'"\s]|$)/.test(message)
}

/** `load()`, or, when a peer is missing, a `config` LaconicError saying `who` needs the SDK and how to install it. */
async function loadPeers<T>(who: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (isMissingPeer(error)) throw new LaconicError(`${who} needs the MCP SDK`, { code: 'config', hint: MCP_INSTALL, cause: error })
    throw error
  }
}

/** The SDK's client side: the client and its two transports. */
export function loadClientSdk(who: string) {
  return loadPeers(who, async () => {
    const [{ Client }, { StdioClientTransport, getDefaultEnvironment }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ])
    return { Client, StdioClientTransport, getDefaultEnvironment, StreamableHTTPClientTransport }
  })
}

/** What `createMcpServer` builds with. */
export interface ServerSdk {
  McpServer: typeof import('@modelcontextprotocol/sdk/server/mcp.js').McpServer
  z: typeof import('zod').z
}

/** The SDK's server, and zod for its tool's schema. */
export function loadServerSdk(who: string): Promise<ServerSdk> {
  return loadPeers(who, async () => {
    const [{ McpServer }, { z }] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod')])
    return { McpServer, z }
  })
}
