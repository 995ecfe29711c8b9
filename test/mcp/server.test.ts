/** `createMcpServer` in process, through the SDK's in-memory transport and its real `Client`. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { demoAgent } from '../../examples/sse-server/demo.js'
import { citedAnswer, type Strategy } from '../../src/strategy.js'
import { createAgent, memorySessions, type Agent } from '../../src/index.js'
import { createMcpServer, type McpServerOptions } from '../../src/mcp/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

async function connected(options: McpServerOptions): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await (await createMcpServer(options)).connect(serverSide)
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(clientSide)
  return client
}

type Content = { type: string; text?: string; uri?: string; name?: string; description?: string }

describe('createMcpServer', () => {
  it('with one agent: the tool takes a question (and a conversation id), and answers with numbered sources and resource links', async () => {
    const client = await connected({ agent: demoAgent({ tokenDelayMs: 0 }) })
    const { tools } = await client.listTools()
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(['question', 'conversationId'])
    const result = await client.callTool({ name: 'research', arguments: { question: 'Who won the 2024 Nobel Prize in Chemistry?' } })
    const content = result.content as Content[]
    expect(content[0]?.text).toContain('went to David Baker, Demis Hassabis and John Jumper [1]')
    expect(content[0]?.text).toContain('\n\nSources:\n[1] The Nobel Prize in Chemistry 2024 https://www.nobelprize.org/prizes/chemistry/2024/summary/')
    expect(content.slice(1)).toEqual([
      {
        type: 'resource_link',
        uri: 'https://www.nobelprize.org/prizes/chemistry/2024/summary/',
        name: 'The Nobel Prize in Chemistry 2024',
        description: 'source [1] of the answer',
      },
      {
        type: 'resource_link',
        uri: 'https://www.ipd.uw.edu/2024/10/david-baker-nobel-prize/',
        name: 'David Baker wins Nobel Prize',
        description: 'source [2] of the answer',
      },
      {
        type: 'resource_link',
        uri: 'https://deepmind.google/technologies/alphafold/',
        name: 'AlphaFold – Google DeepMind',
        description: 'source [3] of the answer',
      },
    ])
    // No progress token asked for: none sent, and the call still works.
    await client.close()
  })

  it('with verify: the reply says how many claims were checked, the support rate, and each unsupported one with what its source says', async () => {
    const source = 'Rayleigh scattering makes the sky blue. It was explained in 1871.'
    const strategy: Strategy = {
      name: 'cited',
      async *run(_q, ctx) {
        yield* citedAnswer(ctx, {
          from: { request: { prompt: 'answer' } },
          source: () => ({ url: 'https://a.example/sky', title: 'Sky', text: source }),
          empty: {},
        })
      },
    }
    const llm = scriptedLLM({ replies: ['Rayleigh scattering makes the sky blue [1]. It was explained in 1899 [1].'] })
    const client = await connected({ agent: createAgent({ llm, strategy, verify: 'annotate' }) })
    const result = await client.callTool({ name: 'research', arguments: { question: 'Why is the sky blue?' } })
    const text = (result.content as Content[])[0]?.text ?? ''
    expect(text).toContain('Sources:\n[1] Sky https://a.example/sky')
    expect(text).toContain('Claims checked against their sources: 2 (1 supported, 0 partly, 1 unsupported, support rate 50%)')
    expect(text).toContain('- unsupported: It was explained in 1899 [1].\n  source says: the source does not give the number 1899: ')
    await client.close()
  })

  it('with a function of the strategy: the tool offers the strategies, and the chosen one runs', async () => {
    const asked: (string | undefined)[] = []
    const client = await connected({
      agent: (strategy) => {
        asked.push(strategy)
        return demoAgent({ tokenDelayMs: 0 })
      },
      strategies: ['graph-reader', 'deep'],
    })
    const { tools } = await client.listTools()
    expect(tools[0]?.inputSchema.properties?.strategy).toMatchObject({ enum: ['graph-reader', 'deep'] })
    await client.callTool({ name: 'research', arguments: { question: 'Q?', strategy: 'deep' } })
    await client.callTool({ name: 'research', arguments: { question: 'Q?' } })
    const refused = await client.callTool({ name: 'research', arguments: { question: 'Q?', strategy: 'nope' } })
    expect(refused.isError).toBe(true)
    expect(asked).toEqual(['deep', undefined])
    await client.close()
  })

  it('a run that fails is a tool error naming why, with what it had', async () => {
    const strategy: Strategy = {
      name: 'failing',
      async *run() {
        yield { type: 'answer-token', text: 'Partly: ' }
        throw new Error('the index is corrupt')
      },
    }
    const client = await connected({ agent: createAgent({ llm: scriptedLLM({ replies: [] }), strategy }) })
    const result = await client.callTool({ name: 'research', arguments: { question: 'Q?' } })
    expect(result.isError).toBe(true)
    expect((result.content as Content[])[0]?.text).toMatch(/^the research failed: .*the index is corrupt.*\n\nWhat it had so far:\nPartly: $/s)
    await client.close()
  })

  it('a run that pauses is a tool error naming what it waits for, from its request', async () => {
    const strategy: Strategy = {
      name: 'pausing',
      // biome-ignore lint/correctness/useYield: a strategy with no events, only an outcome
      async *run() {
        return { reason: 'paused', request: { kind: 'tool-call', callId: 'c1', name: 'pay', args: { amount: 5 } } }
      },
    }
    const client = await connected({ agent: createAgent({ llm: scriptedLLM({ replies: [] }), strategy }) })
    const result = await client.callTool({ name: 'research', arguments: { question: 'Q?' } })
    expect(result.isError).toBe(true)
    expect((result.content as Content[])[0]?.text).toBe(
      'the research paused: it waits for a decision on a call of the tool `pay`, which this tool cannot give (use an agent without plan review or tool approval)',
    )
    await client.close()
  })

  it('refuses a question over the limit', async () => {
    const client = await connected({ agent: demoAgent({ tokenDelayMs: 0 }) })
    // The limit the tool advertises to clients, in its input schema.
    const { tools } = await client.listTools()
    const question = tools.find((tool) => tool.name === 'research')?.inputSchema.properties?.question as { maxLength?: unknown } | undefined
    expect(question?.maxLength).toEqual(expect.any(Number))
    const result = await client.callTool({ name: 'research', arguments: { question: 'x'.repeat((question?.maxLength as number) + 1) } })
    expect(result.isError).toBe(true)
    await client.close()
  })

  it('types', () => {
    expectTypeOf(createMcpServer).parameters.toEqualTypeOf<[McpServerOptions]>()
    expectTypeOf(createMcpServer).returns.toEqualTypeOf<Promise<McpServer>>()
    expectTypeOf<Agent>().toExtend<McpServerOptions['agent']>()
    expectTypeOf<(strategy: string | undefined) => Agent>().toExtend<McpServerOptions['agent']>()
  })
})

describe('the research tool with a conversation id', () => {
  const corpus = [
    { title: 'France', url: 'https://fr.example', snippet: 'capital of France is Paris' },
    { title: 'Paris', url: 'https://paris.example', snippet: 'Paris has about 2.1 million people' },
  ]
  const agentWith = (planner: ReturnType<typeof scriptedLLM>, synthesizer: ReturnType<typeof scriptedLLM>) =>
    createAgent({ models: { planner, synthesizer }, search: mockSearch({ corpus }) })

  it('builds a follow-up on what the earlier call found: its planner prompt holds the first findings', async () => {
    const planner = scriptedLLM({ replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Answer'] })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris.', 'About 2.1 million, if the notes hold.'] })
    const client = await connected({ agent: agentWith(planner, synthesizer) })
    const { tools } = await client.listTools()
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(['question', 'conversationId'])
    await client.callTool({ name: 'research', arguments: { question: 'What is the capital of France?', conversationId: 'trip-1' } })
    const second = await client.callTool({ name: 'research', arguments: { question: 'How many people live there?', conversationId: 'trip-1' } })
    expect((second.content as Content[])[0]?.text).toContain('About 2.1 million')
    expect(planner.calls[2]?.prompt).toContain('Paris is the capital of France.')
    await client.close()
  })

  it('keeps conversations apart, and a call without an id on its own; a store passed in holds them', async () => {
    const planner = scriptedLLM({
      replies: ['Action: Search\nQuery: capital of France', 'Action: Answer', 'Action: Search\nQuery: Paris people', 'Action: Answer'],
    })
    const synthesizer = scriptedLLM({ replies: ['Paris is the capital of France.', 'Paris.', 'Paris has 2.1 million people.', '2.1 million.'] })
    const sessions = memorySessions()
    const client = await connected({ agent: agentWith(planner, synthesizer), sessions })
    await client.callTool({ name: 'research', arguments: { question: 'What is the capital of France?', conversationId: 'a' } })
    await client.callTool({ name: 'research', arguments: { question: 'How many people live in Paris?', conversationId: 'b' } })
    expect(planner.calls[2]?.prompt).not.toContain('Paris is the capital of France.')
    expect((await sessions.load('a'))?.priorAnswers.map((p) => p.answer)).toEqual(['Paris.'])
    expect((await sessions.load('b'))?.priorAnswers.map((p) => p.answer)).toEqual(['2.1 million.'])
    const refused = await client.callTool({ name: 'research', arguments: { question: 'Q?', conversationId: '../x' } })
    expect(refused.isError).toBe(true)
    await client.close()
  })
})
