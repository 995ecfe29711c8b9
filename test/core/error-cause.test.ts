/**
 * An error's cause reaches whoever reads the run (issue 35, item 1): a failed search's warning and
 * the `run-end` error carry `cause`, the reason the message does not say (why a folder could not be
 * read), and the CLI prints it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { errorText, thrownErrorText } from '../../src/cli/error-text.js'
import { causeText } from '../../src/core/contracts/laconic-error.js'
import { createAgent, LaconicError } from '../../src/index.js'
import { parseResearchEvent } from '../../src/streams/index.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

const unreadable = () =>
  new LaconicError('localCorpus: cannot read /docs', {
    code: 'config',
    hint: 'check that `dir` exists and is readable',
    cause: new Error('a .docx file needs the optional package mammoth: npm install mammoth', { cause: new Error("Cannot find package 'mammoth'") }),
  })

describe('causeText', () => {
  it('gives the causes the message does not say, outermost first', () => {
    expect(causeText(unreadable())).toBe("a .docx file needs the optional package mammoth: npm install mammoth: Cannot find package 'mammoth'")
    // A cause the message already says is not repeated.
    expect(causeText(new Error('fetch failed: ECONNREFUSED', { cause: new Error('ECONNREFUSED') }))).toBeUndefined()
    expect(causeText(new Error('plain'))).toBeUndefined()
    // An ErrorInfo as a cause, whose own cause is text.
    expect(
      causeText(
        new LaconicError('every search failed; the first: x failed', { code: 'search', cause: { message: 'x failed', code: 'config', cause: 'no mammoth' } }),
      ),
    ).toBe('no mammoth')
  })

  it('is total: any chain (cycles, non-errors, any depth) gives text or undefined', () => {
    const link = fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), fc.integer(), fc.constant(undefined))
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.array(link, { maxLength: 12 }), fc.boolean(), (message, links, cyclic) => {
        const head = new Error(message)
        let tail: Error = head
        for (const link of links) {
          const next = typeof link === 'string' ? new Error(link) : link
          Object.assign(tail, { cause: next })
          if (!(next instanceof Error)) break
          tail = next
        }
        if (cyclic) Object.assign(tail, { cause: head })
        const text = causeText(head)
        return text === undefined || (typeof text === 'string' && text.length > 0)
      }),
    )
  })
})

describe('a run whose searches all fail', () => {
  it("ends with an error whose cause says why, and each failed search's warning carries it", async () => {
    const llm = scriptedLLM({ replies: ['Action: Search\nQuery: configure the cache', 'Action: Answer', 'An answer.'] })
    const search = mockSearch({ fail: () => unreadable() })
    const run = createAgent({ llm, search }).research('How do I configure the cache?')
    const events = []
    for await (const event of run) events.push(event)
    const result = await run.result
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

describe('the CLI prints it', () => {
  it('with --debug on a line of its own; without, a pointer to --debug', () => {
    const error = { message: 'every search failed\n the first: cannot read /docs', cause: 'no mammoth' }
    expect(errorText(error, true)).toBe('laconic: error: every search failed the first: cannot read /docs\nlaconic: cause: no mammoth\n')
    expect(errorText(error, false)).toBe('laconic: error: every search failed the first: cannot read /docs (--debug shows its cause)\n')
    expect(errorText({ message: 'plain' }, true)).toBe('laconic: error: plain\n')
  })

  it('for a thrown error, its cause chain, without terminal control characters', () => {
    expect(thrownErrorText(unreadable(), true)).toContain(
      "laconic: cause: a .docx file needs the optional package mammoth: npm install mammoth: Cannot find package 'mammoth'\n",
    )
    expect(thrownErrorText(new Error('bad \u001b[2Jthing', { cause: 'evil \u001b]0;title\u0007' }), true)).toBe(
      'laconic: error: bad [2Jthing\nlaconic: cause: evil ]0;title\n',
    )
  })
})
