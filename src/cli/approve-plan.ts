/** `--approve-plan`: the plan on the terminal, and a question: run it, edit its queries, or stop. */
import type { ApprovePlan } from '../core/contracts/strategy-types.js'
import type { Output } from './render/index.js'
import { oneLine } from './render/terminal-text.js'

/** Asks one line on the terminal; rejects when `signal` aborts (Ctrl-C). */
export type Ask = (question: string, signal: AbortSignal) => Promise<string>

export function terminalApproval(ask: Ask, stderr: Output, hold?: () => () => void): ApprovePlan {
  return async (plan, { signal }) => {
    const release = hold?.()
    try {
      const queries = plan.queries.map((q, i) => `  ${i + 1}. ${oneLine(q, 200)}`).join('\n')
      stderr.write(`\nPlan: ${oneLine(plan.text, 300)}\n${queries}\n`)
      for (;;) {
        const answer = (await ask('Run it? [R]un, [e]dit the queries, [s]top: ', signal)).trim().toLowerCase()
        if (['', 'r', 'run', 'y', 'yes'].includes(answer)) return true
        if (['s', 'stop', 'n', 'no'].includes(answer)) return false
        if (answer !== 'e' && answer !== 'edit') continue
        stderr.write('The queries to run, one per line; an empty line ends:\n')
        const edited: string[] = []
        for (let line = (await ask('> ', signal)).trim(); line; line = (await ask('> ', signal)).trim()) edited.push(line)
        if (edited.length) return edited
        stderr.write('No queries given.\n')
      }
    } finally {
      release?.()
    }
  }
}
