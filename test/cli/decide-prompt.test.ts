/**
 * The CLI's one approval prompt (`--approve-plan`, `--tool-approval`), driven through a stdin
 * stream: each answer is typed only once its question is on the output, as a person would.
 */
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { lineAsker, terminalDecide } from '../../src/cli/decide-prompt.js'
import type { DecideAnswer, InterruptRequest } from '../../src/index.js'

/** A terminal: stdin the test types into, the prompts and stderr it reads. Each answer waits for its question (one write of the prompt each). */
function terminal() {
  const stdin = new PassThrough()
  let shown = ''
  let questions = 0
  let waiting: (() => void) | undefined
  const prompts = new Writable({
    write(chunk: Buffer, _encoding, done) {
      shown += chunk.toString()
      questions++
      waiting?.()
      done()
    },
  })
  let written = ''
  const stderr = {
    write: (text: string) => {
      written += text
      return true
    },
  }
  /** Types each answer once the question before it is shown. */
  const type = async (answers: readonly string[]) => {
    for (const [i, answer] of answers.entries()) {
      while (questions <= i) await new Promise<void>((resolve) => (waiting = resolve))
      stdin.write(`${answer}\n`)
    }
  }
  const decide = terminalDecide(lineAsker(stdin, prompts), stderr)
  const ask = async (request: InterruptRequest, answers: readonly string[]): Promise<DecideAnswer> => {
    const [answer] = await Promise.all([decide(request, { signal: new AbortController().signal }), type(answers)])
    return answer
  }
  return { ask, shown: () => shown, written: () => written }
}

const plan: InterruptRequest = { kind: 'plan', text: 'Search: sky colour', queries: ['sky colour', 'rayleigh'] }
const outline: InterruptRequest = {
  kind: 'outline',
  outline: {
    title: 'Why the sky is blue',
    sections: [
      { title: 'Scattering', goal: 'the physics', questions: ['what scatters light?'] },
      { title: 'Sunsets', goal: 'why red', questions: ['why are sunsets red?'] },
    ],
  },
}
const toolCall: InterruptRequest = { kind: 'tool-call', callId: 'c1', name: 'search\u001b[2J', args: { query: 'a\u001b]0;pwned\u0007 b' } }

describe('a plan on the terminal', () => {
  it('shows the plan; Enter or y approves, r rejects with the reason asked, p pauses, an unknown answer asks again', async () => {
    const t = terminal()
    expect(await t.ask(plan, [''])).toEqual({ action: 'approve' })
    expect(t.written()).toContain('Plan: Search: sky colour\n  1. sky colour\n  2. rayleigh')
    expect(await terminal().ask(plan, ['y'])).toEqual({ action: 'approve' })
    expect(await terminal().ask(plan, ['what?', 'r', 'too broad'])).toEqual({ action: 'reject', reason: 'too broad' })
    expect(await terminal().ask(plan, ['reject', ''])).toEqual({ action: 'reject' })
    expect(await terminal().ask(plan, ['p'])).toEqual({ action: 'pause' })
  })

  it('e takes new queries line by line, an empty line ends them; none given asks again', async () => {
    expect(await terminal().ask(plan, ['e', 'rayleigh scattering', ' blue wavelengths ', ''])).toEqual({
      action: 'edit',
      queries: ['rayleigh scattering', 'blue wavelengths'],
    })
    const t = terminal()
    expect(await t.ask(plan, ['e', '', 'y'])).toEqual({ action: 'approve' })
    expect(t.written()).toContain('No queries given.')
  })

  it('an outline: its sections shown; an edit of the titles keeps the sections it names and adds the new ones', async () => {
    const t = terminal()
    const answer = await t.ask(outline, ['e', 'Sunsets', 'Clouds', ''])
    expect(t.written()).toContain('Outline: Why the sky is blue\n  1. Scattering — the physics\n  2. Sunsets — why red')
    expect(t.shown()).toContain('Write it? [Y]es, [e]dit the section titles, [r]eject, [p]ause: ')
    expect(answer).toEqual({
      action: 'edit',
      outline: {
        title: 'Why the sky is blue',
        sections: [
          { title: 'Sunsets', goal: 'why red', questions: ['why are sunsets red?'] },
          { title: 'Clouds', goal: 'Clouds', questions: ['Clouds'] },
        ],
      },
    })
    expect(await terminal().ask(outline, ['r', 'no'])).toEqual({ action: 'reject', reason: 'no' })
  })
})

describe('a tool call on the terminal', () => {
  it('y approves; Enter, n or anything else refuses; p pauses; e takes arguments as JSON, asked again until they are an object', async () => {
    expect(await terminal().ask(toolCall, ['y'])).toEqual({ action: 'approve' })
    expect(await terminal().ask(toolCall, ['yes'])).toEqual({ action: 'approve' })
    for (const no of ['', 'n', 'sure']) expect(await terminal().ask(toolCall, [no])).toEqual({ action: 'reject' })
    expect(await terminal().ask(toolCall, ['pause'])).toEqual({ action: 'pause' })
    const t = terminal()
    expect(await t.ask(toolCall, ['e', '[1]', 'e', '{"query": "sky"}'])).toEqual({ action: 'edit', args: { query: 'sky' } })
    expect(t.written()).toContain('That is not a JSON object.')
  })

  it('no control character of the request reaches the terminal', async () => {
    const t = terminal()
    await t.ask(toolCall, ['n'])
    expect(t.shown()).toMatch(/^laconic: run search\[2J \{"query":"a.*pwned.* b"\}\? \[y\]es, \[N\]o/)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
    expect(/[\u0000-\u0009\u000b-\u001f\u007f]/.test(t.shown())).toBe(false)
  })
})

it('the live output is held while the prompt asks, and drawn again after', async () => {
  const stdin = new PassThrough()
  const calls: string[] = []
  const decide = terminalDecide(lineAsker(stdin, new PassThrough()), { write: () => true }, () => {
    calls.push('hold')
    return () => calls.push('release')
  })
  const answer = decide(plan, { signal: new AbortController().signal })
  stdin.write('y\n')
  expect(await answer).toEqual({ action: 'approve' })
  expect(calls).toEqual(['hold', 'release'])
})

it('Ctrl-C while the prompt waits rejects it with the abort', async () => {
  const controller = new AbortController()
  const decide = terminalDecide(lineAsker(new PassThrough(), new PassThrough()), { write: () => true })
  const answer = decide(plan, { signal: controller.signal })
  controller.abort(new DOMException('interrupted (Ctrl-C)', 'AbortError'))
  await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
})
