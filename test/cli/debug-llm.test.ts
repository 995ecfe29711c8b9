import { describe, expect, it } from 'vitest'
import { debugLLM } from '../../src/cli/debug-llm.js'
import { generate } from '../../src/strategy.js'
import { scriptedLLM } from '../../src/testing/index.js'

describe('debugLLM', () => {
  it('writes the system prompt, prompt and reply of every call, secrets redacted, chunks untouched', async () => {
    let log = ''
    const llm = debugLLM(scriptedLLM({ model: 'tiny', replies: ['the key is sk-abcdef', 'second'] }), { write: (t) => (log += t) }, ['sk-abcdef'])
    const first = await generate(llm, { system: 'be brief', prompt: 'say sk-abcdef', json: true })
    await generate(llm, { prompt: 'again' })
    expect(first.text).toBe('the key is sk-abcdef') // the model's output is not altered, only the log
    expect(log).toBe(
      '── #1 tiny system ──\nbe brief\n── #1 tiny prompt (json) ──\nsay [redacted]\n── #1 reply ──\nthe key is [redacted]\n' +
        '── #2 tiny prompt ──\nagain\n── #2 reply ──\nsecond\n',
    )
  })

  it('a failed call is logged as failed, and the error still reaches the caller', async () => {
    let log = ''
    const llm = debugLLM(scriptedLLM({ replies: [{ text: 'partial', error: new Error('connection reset') }] }), { write: (t) => (log += t) }, [])
    await expect(generate(llm, { prompt: 'p' })).rejects.toThrow('connection reset')
    expect(log).toContain('── #1 failed: connection reset ──\npartial\n')
  })
})
