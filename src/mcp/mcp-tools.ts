/**
 * `mcpTools()`: the tools of any MCP server, for the `react` strategy. Each run starts (stdio) or
 * connects to (Streamable HTTP) the server, lists its tools, and closes it when the run ends.
 * Its tools go through react's own gates: argument validation against their schema, approval
 * (`needsApproval`, and the run's `review.tools` and `decide`), redaction of `sensitive` fields and the `resultChars` bound.
 */
import { LaconicError } from '../core/contracts/laconic-error.js'
import type { OpenToolSource, ReactTool, ReactToolSource } from '../strategies/react/tools.js'
import { VERSION } from '../version.js'
import { loadClientSdk } from './sdk.js'

/** Where an MCP server is: a command to start (stdio), or the URL of a Streamable HTTP endpoint. */
export type McpServerSpec =
  | { command: string; args?: readonly string[]; env?: Readonly<Record<string, string>>; cwd?: string }
  | { url: string; headers?: Readonly<Record<string, string>> }

/** Options of `mcpTools()`: which tools, their approval and redaction, and time limits. */
export interface McpToolsOptions {
  /** Named in warnings, and the prefix of nothing: tool names stay the server's. @defaultValue the command or the URL's host */
  name?: string
  /** Only these tools of the server (by the server's names). @defaultValue all */
  include?: readonly string[]
  /** Every tool's calls wait for a decision (`true`), or these tools' by name: put to the run's `decide`, or pausing the run. @defaultValue false */
  needsApproval?: boolean | readonly string[]
  /** Argument fields shown as `[redacted]` in `tool-call` events, by tool name. */
  sensitive?: Readonly<Record<string, readonly string[]>>
  /** Time to start or connect and list the tools, and for each call. @defaultValue 30_000 */
  timeoutMs?: number
}

/** Tools listed at most, and characters kept of a description and of a result before react's own bound. */
const MAX_TOOLS = 128
const MAX_DESCRIPTION = 2_000
const MAX_RESULT_CHARS = 200_000

type SdkClient = import('@modelcontextprotocol/sdk/client/index.js').Client

/** A name react accepts (letters, digits, `_`, `-`, at most 64): other characters become `_`. */
function toolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || '_'
}

/** What a tool call returned, as the text the model sees: its text parts, or its structured content as JSON. */
function resultText(result: unknown): string {
  const record = (result ?? {}) as { content?: unknown; structuredContent?: unknown; toolResult?: unknown }
  const parts = Array.isArray(record.content) ? record.content : []
  const texts: string[] = []
  for (const part of parts) {
    const item = part as { type?: unknown; text?: unknown; resource?: { text?: unknown; uri?: unknown } }
    if (item.type === 'text' && typeof item.text === 'string') texts.push(item.text)
    else if (item.type === 'resource' && typeof item.resource?.text === 'string') texts.push(item.resource.text)
    else if (typeof item.type === 'string') texts.push(`[${item.type} content left out]`)
  }
  let text = texts.join('\n')
  if (!text && record.structuredContent !== undefined) text = JSON.stringify(record.structuredContent)
  if (!text && record.toolResult !== undefined) text = JSON.stringify(record.toolResult)
  return text.length > MAX_RESULT_CHARS ? text.slice(0, MAX_RESULT_CHARS) : text
}

function sourceName(server: McpServerSpec): string {
  if ('url' in server) {
    try {
      return `mcp ${new URL(server.url).host}`
    } catch {
      return 'mcp'
    }
  }
  return `mcp ${server.command}`
}

/**
 * The tools of an MCP server, for `react.tools`: `mcpTools({ command: 'npx', args: ['-y',
 * 'some-mcp-server'] })` or `mcpTools({ url: 'http://localhost:3001/mcp' })`. Needs the optional
 * peer `@modelcontextprotocol/sdk`. The server is started or connected to by each run, and closed
 * when the run ends (an abort too).
 */
export function mcpTools(server: McpServerSpec, options: McpToolsOptions = {}): ReactToolSource {
  if (!server || typeof server !== 'object' || (!('url' in server) && !('command' in server))) {
    throw new LaconicError('mcpTools needs { command, args } or { url }', { code: 'config' })
  }
  if ('url' in server) {
    let protocol = ''
    try {
      protocol = new URL(server.url).protocol
    } catch {
      // reported below
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new LaconicError(`mcpTools: not an http(s) URL: ${server.url}`, { code: 'config' })
  } else if (typeof server.command !== 'string' || !server.command.trim()) {
    throw new LaconicError('mcpTools: `command` is empty', { code: 'config' })
  }
  const timeoutMs = options.timeoutMs ?? 30_000
  const name = options.name ?? sourceName(server)
  const approval = (tool: string) => (Array.isArray(options.needsApproval) ? options.needsApproval.includes(tool) : options.needsApproval === true)

  return {
    name,
    async open({ signal }): Promise<OpenToolSource> {
      const sdk = await loadClientSdk('mcpTools')
      const client: SdkClient = new sdk.Client({ name: 'laconic-research', version: VERSION })
      const transport =
        'url' in server
          ? new sdk.StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { ...server.headers } } })
          : new sdk.StdioClientTransport({
              command: server.command,
              args: [...(server.args ?? [])],
              // The SDK's default environment (PATH, HOME, ...) plus what the caller gives.
              ...(server.env ? { env: { ...sdk.getDefaultEnvironment(), ...server.env } } : {}),
              ...(server.cwd ? { cwd: server.cwd } : {}),
              stderr: 'ignore',
            })
      const close = async () => {
        await client.close().catch(() => undefined)
      }
      try {
        await client.connect(transport, { signal, timeout: timeoutMs })
        const listed: { name: string; description?: string; inputSchema?: unknown }[] = []
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs })
          listed.push(...page.tools)
          cursor = page.nextCursor
        } while (cursor && listed.length < MAX_TOOLS)
        const chosen = listed.filter((tool) => !options.include || options.include.includes(tool.name)).slice(0, MAX_TOOLS)
        const tools: ReactTool[] = chosen.map((tool) => ({
          name: toolName(tool.name),
          description: String(tool.description ?? '').slice(0, MAX_DESCRIPTION),
          parameters: (tool.inputSchema as ReactTool['parameters'] | undefined) ?? { type: 'object' },
          ...(approval(tool.name) ? { needsApproval: true } : {}),
          ...(options.sensitive?.[tool.name] ? { sensitive: options.sensitive[tool.name] } : {}),
          async execute(args, { signal: callSignal }) {
            const result = await client.callTool({ name: tool.name, arguments: args }, undefined, { signal: callSignal, timeout: timeoutMs })
            const text = resultText(result)
            // A tool's own failure goes back to the model as a failed call.
            if ((result as { isError?: unknown }).isError === true) throw new Error(text || `${tool.name} failed`)
            return text
          },
        }))
        return { tools, close }
      } catch (error) {
        await close()
        throw error
      }
    },
  }
}
