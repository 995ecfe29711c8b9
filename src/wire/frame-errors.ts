/**
 * The one failure of the wire readers: a line, or an SSE event, longer than the reader's cap.
 * The layers above turn it into their own typed error (`bad-response`).
 */
export class FrameTooLongError extends Error {
  override readonly name = 'FrameTooLongError'
  /** A single line, or an SSE event (its `data:` lines together). */
  readonly frame: 'line' | 'event'
  /** The cap, in characters (UTF-16 code units). */
  readonly maxChars: number

  constructor(frame: 'line' | 'event', maxChars: number) {
    super(`${frame === 'line' ? 'a line' : 'an event'} of the stream is longer than ${maxChars} characters`)
    this.frame = frame
    this.maxChars = maxChars
  }
}
