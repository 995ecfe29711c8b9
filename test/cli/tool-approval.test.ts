import { expect, test } from 'vitest'
import { approveOnTerminal } from '../../src/cli/tool-approval.js'
import { runCli } from './run-cli.js'

test('--tool-approval: y runs the call; anything else refuses it; the question is printable', async () => {
  const asked: string[] = []
  const replies = ['y', 'yes ', 'n', '', 'sure']
  const approve = approveOnTerminal(async (question) => {
    asked.push(question)
    return replies[asked.length - 1]!
  })
  const call = { callId: 'c1', name: 'search\u001b[2J', args: { query: 'a\u001b]0;pwned\u0007 b' }, step: 1 }
  const decisions = []
  for (let i = 0; i < replies.length; i++) decisions.push(await approve(call))
  expect(decisions.map((d) => d?.action)).toEqual(['allow', 'allow', 'deny', 'deny', 'deny'])
  // No control character reaches the terminal: the name's ESC is dropped, the arguments' are JSON-escaped text.
  expect(asked[0]).toMatch(/^laconic: run search\[2J \{"query":"a.*pwned.* b"\}\? \[y\/N\] $/)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
  expect(/[\u0000-\u001f\u007f]/.test(asked[0]!)).toBe(false)
})

test('--tool-approval outside a terminal, or without react, is a usage error', async () => {
  const notTerminal = await runCli(['--strategy', 'react', '--tool-approval', '--endpoint', 'http://127.0.0.1:9', 'q'])
  expect(notTerminal.code).toBe(2)
  expect(notTerminal.stderr).toContain('--tool-approval asks on a terminal')
  const otherStrategy = await runCli(['--strategy', 'deep', '--tool-approval', 'q'])
  expect(otherStrategy.code).toBe(2)
  expect(otherStrategy.stderr).toContain('--tool-approval works with --strategy react')
})
