/**
 * Type-level tests of the MCP server and the Node live server: what they are built from.
 * Imported as types only, so nothing here loads an optional peer dependency.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { Agent, ResearchResult, SessionStore } from '../../src/index.js'
import type { McpServerOptions, createMcpServer } from '../../src/mcp/index.js'
import type { LiveServerLimits, LiveServerOptions, createLiveServer } from '../../src/node/index.js'
import type { ResearchHandlerLimits } from '../../src/server/index.js'

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
