import type { ReactOptions } from '../strategies/react/options.js'
import { oneLine } from './render/terminal-text.js'

/** `--tool-approval`: each tool call waits for a yes on the terminal; anything else refuses it, and the model is told. */
export function approveOnTerminal(ask: (question: string) => Promise<string>): NonNullable<ReactOptions['beforeTool']> {
  return async (call) => {
    const args = oneLine(JSON.stringify(call.args), 200)
    const reply = await ask(`laconic: run ${oneLine(call.name, 60)} ${args}? [y/N] `)
    return /^\s*y(es)?\s*$/i.test(reply) ? { action: 'allow' } : { action: 'deny', message: 'the user refused this call' }
  }
}

/**
 * `--tool-approval` without a terminal (with `--checkpoint-dir`): each tool call pauses the run
 * (exit 4) until `laconic resume RUN_ID --approve` or `--reject [REASON]` answers it.
 */
export const pauseForApproval: NonNullable<ReactOptions['beforeTool']> = () => ({ action: 'suspend' })
