/**
 * `createMcpServer({ agent })`: research as an MCP tool, on the official SDK. One tool,
 * `research`, returns the cited answer (text, then each source as a resource link), reports
 * the run as progress notifications while it goes, and stops the run when the client cancels.
 * Connect it to any transport: `StdioServerTransport` (what `laconic mcp` does), or
 * `StreamableHTTPServerTransport` (`laconic mcp --http PORT`).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { strategyNames, type Agent } from '../agent.js'
import type { ResearchEvent } from '../core/contracts/events.js'
import type { InterruptRequest } from '../core/contracts/interruption.js'
import type { ResearchResult } from '../core/contracts/result.js'
import { memorySessions, SAFE_CHAT_ID, type SessionStore } from '../conversations/session-store.js'
import { VERSION } from '../version.js'
import { loadServerSdk } from './sdk.js'

/** What `createMcpServer` serves: the agent (or agents by strategy) behind the `research` tool. */
export interface McpServerOptions {
  /**
   * The agent every call uses. Or a function of a strategy name giving the agent for it: then
   * the tool takes an optional `strategy` argument (undefined when the client gives none).
   */
  agent: Agent | ((strategy: string | undefined) => Agent)
  /** The strategies the tool offers when `agent` is a function. @defaultValue every registered strategy */
  strategies?: readonly string[] | undefined
  /** The server's name in the MCP handshake. @defaultValue `laconic` */
  name?: string | undefined
  /** Called when a call ends (for a log line): the question and the run's result. */
  onRunEnd?: ((question: string, result: ResearchResult) => void) | undefined
  /**
   * Where the conversations of calls that pass a `conversationId` live: calls with the same id
   * build on each other's findings, answers and citation numbers (see docs/sessions.md).
   * @defaultValue this server's memory, the 1,000 conversations used last
   */
  sessions?: SessionStore | undefined
}

/** The longest question the tool takes (the same bound as the live server). */
export const MAX_MCP_QUESTION_CHARS = 2000

const DESCRIPTION =
  'Research a question on the web (or the configured corpus) and answer it with numbered citations. ' +
  'Takes from seconds to minutes; sends progress notifications (plan, searches, facts) as it goes.'

/**
 * A new MCP server with the `research` tool; connect it to a transport with `server.connect(transport)`.
 * Async because it loads the optional peers `@modelcontextprotocol/sdk` and `zod` on first use:
 * without them it rejects with a `config` LaconicError saying what to install.
 */
export async function createMcpServer(options: McpServerOptions): Promise<McpServer> {
  const { McpServer, z } = await loadServerSdk('createMcpServer')
  const server = new McpServer({ name: options.name ?? 'laconic', version: VERSION }, { capabilities: { tools: {} } })
  const question = z.string().trim().min(1).max(MAX_MCP_QUESTION_CHARS).describe('The question to research, in plain words')
  const conversationId = z
    .string()
    .regex(SAFE_CHAT_ID, 'letters, digits, - and _ (up to 128), starting with a letter or digit')
    .optional()
    .describe(
      'Your id for a conversation (letters, digits, - and _): calls with the same id build on what earlier calls found. Leave it out for a question on its own.',
    )
  const agentFor = options.agent
  const sessions = options.sessions ?? memorySessions({ maxChats: 1000 })

  const research = async (
    args: { question: string; strategy?: string | undefined; conversationId?: string | undefined },
    extra: ToolExtra,
  ): Promise<CallToolResult> => {
    const agent = typeof agentFor === 'function' ? agentFor(args.strategy) : agentFor
    const researcher = args.conversationId === undefined ? agent : agent.session(args.conversationId, { store: sessions })
    const run = researcher.research(args.question, { signal: extra.signal })
    const progressToken = extra._meta?.progressToken
    let progress = 0
    for await (const event of run) {
      const message = progressMessage(event)
      if (message === undefined || progressToken === undefined) continue
      progress += 1
      // A client that went away cannot be told; the run goes on to its end (or its abort).
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }).catch(() => {})
    }
    const result = await run.result
    options.onRunEnd?.(args.question, result)
    return toolResult(result)
  }

  if (typeof agentFor === 'function') {
    const names = [...(options.strategies ?? strategyNames())]
    const strategy = z
      .enum(names as [string, ...string[]])
      .optional()
      .describe('How to research: a strategy name (leave it out for the default)')
    server.registerTool('research', { title: 'Research', description: DESCRIPTION, inputSchema: { question, strategy, conversationId } }, research)
  } else {
    server.registerTool('research', { title: 'Research', description: DESCRIPTION, inputSchema: { question, conversationId } }, research)
  }
  return server
}

type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** A short line for a progress notification, or undefined for events too fine to report. */
export function progressMessage(event: ResearchEvent): string | undefined {
  switch (event.type) {
    case 'run-start':
      return `researching with ${event.strategy}`
    case 'recall':
      return `recalled ${event.findings.length} earlier finding${event.findings.length === 1 ? '' : 's'}`
    case 'plan':
      return `plan: ${clip(event.text)}`
    case 'query':
      return `searching: ${clip(event.query)}`
    case 'result':
      return event.error ? `search failed: ${clip(event.error.message)}` : `${event.results.length} result${event.results.length === 1 ? '' : 's'}`
    case 'fact':
      return `fact: ${clip(event.fact.text)}`
    case 'tool-call':
      return `calling ${clip(event.name, 60)}`
    case 'tool-result':
      return `${event.ok ? 'tool result' : 'tool failed'}: ${clip(event.summary)}`
    case 'answer':
      return event.revised ? 'answer revised without its unsupported sentences' : 'answer written'
    case 'claim':
      return `claim ${event.index + 1}: ${event.verdict}`
    case 'warning':
      return `warning: ${clip(event.message)}`
    default:
      return undefined
  }
}

/** What a paused run waits for, in words. */
function waitingOn(request: InterruptRequest | undefined): string {
  if (request?.kind === 'plan') return `its plan (${clip(request.queries.join(' | '))})`
  if (request?.kind === 'tool-call') return `a call of the tool \`${clip(request.name, 60)}\``
  return 'what it paused for'
}

function clip(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * What claim verification found (`verify`), as lines after the sources: the counts and support
 * rate, then each sentence its sources do not (fully) support, with the passage it was checked
 * against, so the client's model can say so.
 */
function checkedClaims(result: ResearchResult): string[] {
  const claims = result.claims ?? []
  if (claims.length === 0) return []
  const count = (verdict: string) => claims.filter((c) => c.verdict === verdict).length
  const rate = result.supportRate !== undefined ? `, support rate ${Math.round(result.supportRate * 100)}%` : ''
  const doubtful = claims
    .filter((c) => c.verdict === 'unsupported' || c.verdict === 'partial')
    .map((c) => `- ${c.verdict}: ${clip(c.text, 300)}${c.evidence ? `\n  source says: ${clip(c.evidence, 300)}` : ''}`)
  return [
    '',
    `Claims checked against their sources: ${claims.length} (${count('supported')} supported, ${count('partial')} partly, ${count('unsupported')} unsupported${rate})`,
    ...(result.draft !== undefined
      ? ['The answer above was rewritten without the unsupported sentences; they were:']
      : doubtful.length
        ? ['Not supported by what they cite:']
        : []),
    ...doubtful,
  ]
}

/** The answer as text with its numbered sources, and each source as a resource link. */
export function toolResult(result: ResearchResult): CallToolResult {
  if (result.reason === 'error' || result.reason === 'aborted' || result.reason === 'paused') {
    const why =
      result.reason === 'aborted'
        ? 'the research was cancelled'
        : result.reason === 'paused'
          ? `the research paused: it waits for a decision on ${waitingOn(result.request)}, which this tool cannot give (use an agent without plan review or tool approval)`
          : `the research failed: ${result.error?.message ?? 'unknown error'}`
    const partial = result.answer ? `\n\nWhat it had so far:\n${result.answer}` : ''
    return { isError: true, content: [{ type: 'text', text: `${why}${partial}` }] }
  }
  const sources = result.citations.map((c) => `[${c.index}] ${c.title ? `${c.title} ` : ''}${c.url}`)
  const text = [result.answer || '(no answer)', ...(sources.length ? ['', 'Sources:', ...sources] : []), ...checkedClaims(result)].join('\n')
  return {
    content: [
      { type: 'text', text },
      ...result.citations.map((c) => ({
        type: 'resource_link' as const,
        uri: c.url,
        name: c.title || c.url,
        description: `source [${c.index}] of the answer`,
      })),
    ],
  }
}
