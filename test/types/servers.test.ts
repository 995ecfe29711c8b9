/**
 * Type-level tests of the MCP server and the Node live server: what they are built from.
 * Imported as types only, so nothing here loads an optional peer dependency.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { Agent, ResearchResult, SessionStore, AgentOptions } from '../../src/index.js'
import type { McpServerOptions, McpServerSpec, McpToolsOptions, createMcpServer, mcpTools } from '../../src/mcp/index.js'
import type { createLiveServer } from '../../src/node/index.js'
import type { createResearchHandler } from '../../src/server/index.js'

type LiveServerLimits = NonNullable<Parameters<typeof createLiveServer>[0]['limits']>
type ResearchHandlerLimits = NonNullable<Parameters<typeof createResearchHandler>[0]['limits']>

type LiveServerOptions = NonNullable<Parameters<typeof createLiveServer>[0]>

type ReactOptions = NonNullable<AgentOptions['react']>
type ReactTool = Extract<NonNullable<NonNullable<AgentOptions['react']>['tools']>[number], { execute: unknown }>
/** What `react.tools` takes beside plain tools: a source of tools each run opens. */
type ReactToolSource = Extract<NonNullable<ReactOptions['tools']>[number], { open: unknown }>
type OpenToolSource = Awaited<ReturnType<ReactToolSource['open']>>

describe('MCP tools for react', () => {
  it('mcpTools makes a tool source that react.tools takes beside plain tools', () => {
    expectTypeOf<typeof mcpTools>().parameters.toEqualTypeOf<[server: McpServerSpec, options?: McpToolsOptions]>()
    expectTypeOf<ReturnType<typeof mcpTools>>().toEqualTypeOf<ReactToolSource>()
    expectTypeOf<{ command: string; args: string[] }>().toMatchTypeOf<McpServerSpec>()
    expectTypeOf<{ url: string }>().toMatchTypeOf<McpServerSpec>()
    expectTypeOf<McpToolsOptions['needsApproval']>().toEqualTypeOf<boolean | readonly string[] | undefined>()
    expectTypeOf<ReactToolSource['name']>().toEqualTypeOf<string>()
    expectTypeOf<ReactToolSource['open']>().parameters.toEqualTypeOf<[options: { signal: AbortSignal }]>()
    expectTypeOf<ReactToolSource['open']>().returns.toEqualTypeOf<Promise<OpenToolSource>>()
    expectTypeOf<OpenToolSource['close']>().returns.toEqualTypeOf<Promise<void>>()
    expectTypeOf<OpenToolSource['tools']>().toEqualTypeOf<readonly ReactTool[]>()
    expectTypeOf<ReactToolSource>().toMatchTypeOf<NonNullable<ReactOptions['tools']>[number]>()
  })
})

describe('servers', () => {
  it('createMcpServer serves an agent, or one per strategy', () => {
    expectTypeOf<typeof createMcpServer>().parameters.toEqualTypeOf<[options: McpServerOptions]>()
    expectTypeOf<McpServerOptions['agent']>().toEqualTypeOf<Agent | ((strategy: string | undefined) => Agent)>()
    expectTypeOf<McpServerOptions['onRunEnd']>().toEqualTypeOf<((question: string, result: ResearchResult) => void) | undefined>()
    expectTypeOf<McpServerOptions['sessions']>().toEqualTypeOf<SessionStore | undefined>()
  })

  it('createLiveServer takes limits on what it retains', () => {
    expectTypeOf<typeof createLiveServer>().parameters.toEqualTypeOf<[options: LiveServerOptions]>()
    expectTypeOf<LiveServerLimits>().toExtend<ResearchHandlerLimits>()
    expectTypeOf<LiveServerLimits['maxRetainedRuns']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<LiveServerLimits['maxRetainedBytes']>().toEqualTypeOf<number | undefined>()
  })
})
