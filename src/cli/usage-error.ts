/**
 * A mistake in how the command was called (a bad flag, a missing value, an empty question).
 * The CLI prints its message on one line and exits with code 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}
