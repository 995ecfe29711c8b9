/**
 * An error's cause reaches whoever reads the run (issue 35, item 1): a failed search's warning and
 * the `run-end` error carry `cause`, the reason the message does not say (why a folder could not be
 * read), and the CLI prints it.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAgent, type EventOf, LaconicError } from '../../src/index.js'
import { parseResearchEvent } from '../../src/streams/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'
import { laconic } from '../cli/laconic.js'

const unreadable = () =>
  new LaconicError('localCorpus: cannot read /docs', {
    code: 'config',
    hint: 'check that `dir` exists and is readable',
    cause: new Error('a .docx file needs the optional package mammoth: npm install mammoth', { cause: new Error("Cannot find package 'mammoth'") }),
  })

/** A run whose one search throws `error`: its events. */
async function searchFailingWith(error: unknown) {
  const llm = scriptedLLM({ replies: ['Action: Search\nQuery: configure the cache', 'Action: Answer', 'An answer.'] })
  const search = mockSearch({ fail: () => error as Error })
  const run = createAgent({ llm, search }).research('How do I configure the cache?')
  const events = []
  for await (const event of run) events.push(event)
  return { events, result: await run.result }
}

/** The cause the failed search's warning carries. */
async function warnedCause(error: unknown): Promise<string | undefined> {
  const { events } = await searchFailingWith(error)
  const warning = events.find((event): event is EventOf<'warning'> => event.type === 'warning' && event.queryId !== undefined)
  if (!warning) throw new Error('the failed search gave no warning')
  return (warning as { cause?: string }).cause
}

describe("a failed search's cause", () => {
  it('gives the causes the message does not say, outermost first', async () => {
    expect(await warnedCause(unreadable())).toBe("a .docx file needs the optional package mammoth: npm install mammoth: Cannot find package 'mammoth'")
    // A cause the message already says is not repeated.
    expect(await warnedCause(new Error('fetch failed: ECONNREFUSED', { cause: new Error('ECONNREFUSED') }))).toBeUndefined()
    expect(await warnedCause(new Error('plain'))).toBeUndefined()
    // An ErrorInfo as a cause, whose own cause is text.
    expect(
      await warnedCause(
        new LaconicError('every search failed; the first: x failed', { code: 'search', cause: { message: 'x failed', code: 'config', cause: 'no mammoth' } }),
      ),
    ).toBe('no mammoth')
  })

  it('is total: any chain (cycles, non-errors, any depth) gives text or none', async () => {
    const link = fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), fc.integer(), fc.constant(undefined))
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 20 }), fc.array(link, { maxLength: 12 }), fc.boolean(), async (message, links, cyclic) => {
        const head = new Error(message)
        let tail: Error = head
        for (const link of links) {
          const next = typeof link === 'string' ? new Error(link) : link
          Object.assign(tail, { cause: next })
          if (!(next instanceof Error)) break
          tail = next
        }
        if (cyclic) Object.assign(tail, { cause: head })
        const text = await warnedCause(head)
        return text === undefined || (typeof text === 'string' && text.length > 0)
      }),
      { numRuns: 60 },
    )
  })
})

describe('a run whose searches all fail', () => {
  it("ends with an error whose cause says why, and each failed search's warning carries it", async () => {
    const { events, result } = await searchFailingWith(unreadable())
    expect(result.reason).toBe('error')
    expect(result.error?.message).toContain('every search failed')
    expect(result.error?.cause).toContain('mammoth')
    const warning = events.find((event) => event.type === 'warning' && event.queryId !== undefined)
    expect(warning).toMatchObject({ cause: expect.stringContaining('mammoth') })
    // The wire schema takes the field (an SSE or NDJSON reader keeps it).
    const end = events.at(-1)
    expect(parseResearchEvent(JSON.stringify(end))).toMatchObject({ error: { cause: expect.stringContaining('mammoth') } })
  })
})

describe('the CLI prints it', { timeout: 60_000 }, () => {
  /** A model server that hangs up on every request (the cause: "other side closed"), and one whose error text has two lines. */
  let hangsUp: Server
  let twoLines: Server
  const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  beforeAll(async () => {
    hangsUp = createServer((req) => req.socket.destroy())
    twoLines = createServer((_req, res) => res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request:\n  the model is unknown'))
    await Promise.all([hangsUp, twoLines].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))))
  })
  afterAll(async () => {
    for (const server of [hangsUp, twoLines]) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
  const run = (server: Server, debug: boolean) =>
    laconic([
      '--backend',
      'openai',
      '--endpoint',
      urlOf(server),
      '-m',
      'x',
      '--search',
      'searxng',
      '--searxng-url',
      urlOf(twoLines),
      '--no-fetch',
      ...(debug ? ['--debug'] : []),
      'q',
    ])
  const errorLines = (stderr: string) =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('laconic: '))
      .map((line) => `${line}\n`)
      .join('')

  it('with --debug on a line of its own; without, a pointer to --debug; a message on one line', async () => {
    const withDebug = await run(hangsUp, true)
    expect(withDebug.code).toBe(1)
    expect(errorLines(withDebug.stderr)).toMatch(/^laconic: error: openai: request failed \([^\n]*\)\nlaconic: cause: other side closed\n$/)
    const without = await run(hangsUp, false)
    expect(errorLines(without.stderr)).toMatch(/^laconic: error: openai: request failed \([^\n]*\) \(--debug shows its cause\)\n$/)
    // An error without a cause is one line, with --debug too, its message's lines folded.
    const plain = await run(twoLines, true)
    expect(plain.code).toBe(1)
    expect(errorLines(plain.stderr)).toMatch(/^laconic: error: [^\n]*bad request: the model is unknown[^\n]*\n$/)
  })

  it('for a thrown error, its cause chain, without terminal control characters', async () => {
    const thrown = (error: unknown) => laconic(['--debug', 'q'], { fetch: async () => Promise.reject(error) })
    // The Ollama error's own message says the first cause; the line names the ones it does not, outermost first.
    expect((await thrown(unreadable())).stderr).toContain(
      "\nlaconic: cause: localCorpus: cannot read /docs (check that `dir` exists and is readable): Cannot find package 'mammoth'\n",
    )
    const { code, stderr } = await thrown(new Error('bad \u001b[2Jthing', { cause: 'evil \u001b]0;title\u0007' }))
    expect(code).toBe(1)
    expect(stderr).toMatch(/^laconic: error: cannot reach Ollama at [^\n]*\(bad \[2Jthing\)[^\n]*\nlaconic: cause: evil \]0;title\n/)
    expect(stderr).not.toContain('\u001b')
    expect(stderr).not.toContain('\u0007')
    // A message of several lines is printed on one.
    const folded = await thrown(new Error('connection reset\n  by peer'))
    expect(folded.stderr).toMatch(/^laconic: error: cannot reach Ollama at [^\n]*\(connection reset by peer\)[^\n]*\n/)
  })
})
