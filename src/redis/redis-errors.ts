import { LaconicError } from '../core/contracts/laconic-error.js'

/** Why the Redis event log refused a write: another attempt took the run over (`fenced`), or a seq was not after the last one (`conflict`). */
export type EventLogRefusal = 'fenced' | 'conflict'

/** A write the Redis event log refused; `code` says why. */
export class EventLogError extends LaconicError {
  declare readonly code: EventLogRefusal
  constructor(message: string, options: { code: EventLogRefusal; cause?: unknown }) {
    super(message, options)
    this.name = 'EventLogError'
  }
}
