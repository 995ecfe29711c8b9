import type { RunEndReason } from '../core/contracts/events.js'

/** The exit codes `laconic` promises scripts. */
export const EXIT = {
  answered: 0,
  error: 1,
  usage: 2,
  /** A best-effort answer written when the iteration cap was reached. */
  bestEffort: 3,
  /** The run stopped before its plan ran (`--approve-plan`, answered stop); `laconic resume` continues it. */
  paused: 4,
  /** Ctrl-C: 128 + SIGINT (2), as shells report it. */
  interrupted: 130,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

export function exitCodeFor(reason: RunEndReason): ExitCode {
  switch (reason) {
    case 'answered':
      return EXIT.answered
    case 'max-iterations':
      return EXIT.bestEffort
    case 'paused':
      return EXIT.paused
    case 'aborted':
      return EXIT.interrupted
    case 'error':
      return EXIT.error
  }
}
