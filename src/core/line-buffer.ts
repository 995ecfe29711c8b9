/**
 * Text arriving in chunks, handed on in whole lines, with a cap on how long a line may grow.
 * The unfinished line is kept as a list of chunks, never as one string rescanned and copied
 * on every chunk (which is quadratic in the line), and a line longer than the cap fails with
 * a typed error instead of growing the heap without bound. Shared by every reader of SSE and
 * NDJSON in the package.
 */
import { createParser, type EventSourceMessage, type ParserCallbacks } from 'eventsource-parser'
import { LaconicError } from './errors.js'

/** Longest line (or SSE event) a reader accepts, in characters: far above any real frame. */
export const MAX_LINE_CHARS = 4_000_000

export interface LineBuffer {
  /**
   * Add `text`; returns everything up to and including the last line break seen so far
   * (`''` when no line is complete yet). Throws when the unfinished line passes the cap.
   */
  push(text: string): string
  /** What is left after the last line break (the stream ended without one). */
  rest(): string
}

export function lineTooLong(maxChars: number, what: 'line' | 'event' = 'line'): LaconicError {
  return new LaconicError(`${what === 'line' ? 'a line' : 'an event'} of the stream is longer than ${maxChars} characters`, {
    code: 'bad-response',
    hint: 'the server sent an oversized or unterminated frame; check that the URL points at the right API',
  })
}

/**
 * `breaks: 'lf'` for NDJSON (a CR is only ever the end of a CRLF there), `'any'` for SSE, where
 * a lone CR ends a line too.
 */
export function createLineBuffer(maxChars = MAX_LINE_CHARS, breaks: 'lf' | 'any' = 'lf'): LineBuffer {
  let parts: string[] = []
  let pending = 0
  return {
    push(text) {
      let end = text.lastIndexOf('\n')
      if (breaks === 'any') {
        // A CR as the last character may be half of a CRLF: the line ends with the LF.
        const cr = text.lastIndexOf('\r', text.length - 2)
        if (cr > end) end = cr
      }
      if (end === -1) {
        pending += text.length
        if (pending > maxChars) throw lineTooLong(maxChars)
        if (text !== '') parts.push(text)
        return ''
      }
      // Every line finished in this chunk is within the cap too (the first one starts in `parts`).
      let start = -pending
      let lf = text.indexOf('\n')
      let cr = breaks === 'any' ? text.indexOf('\r') : -1
      for (;;) {
        const next = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
        if (next === -1 || next > end) break
        if (next - start > maxChars) throw lineTooLong(maxChars)
        start = next + 1
        if (lf !== -1 && lf < start) lf = text.indexOf('\n', start)
        if (cr !== -1 && cr < start) cr = text.indexOf('\r', start)
      }
      const complete = parts.length === 0 ? text.slice(0, end + 1) : parts.join('') + text.slice(0, end + 1)
      const tail = text.slice(end + 1)
      parts = tail === '' ? [] : [tail]
      pending = tail.length
      if (pending > maxChars) throw lineTooLong(maxChars)
      return complete
    },
    rest() {
      const rest = parts.join('')
      parts = []
      pending = 0
      return rest
    },
  }
}

export interface SSEFeed {
  feed(text: string): void
  /** The body ended: a last event not closed by a blank line is dispatched when `flush`, else dropped. */
  end(flush: boolean): void
}

/**
 * eventsource-parser fed whole lines only (so it never rescans a growing line), with the cap
 * on a line and on an event (its `data:` lines together).
 */
export function createSSEFeed(callbacks: Pick<ParserCallbacks, 'onRetry'> & { onEvent(event: EventSourceMessage): void }, maxChars = MAX_LINE_CHARS): SSEFeed {
  const lines = createLineBuffer(maxChars, 'any')
  let dispatched = false
  const parser = createParser({
    onEvent(event) {
      dispatched = true
      callbacks.onEvent(event)
    },
    ...(callbacks.onRetry ? { onRetry: callbacks.onRetry } : {}),
  })
  // Characters fed since the last event, give or take the batch an event ended in.
  let sinceEvent = 0
  return {
    feed(text) {
      const complete = lines.push(text)
      if (complete === '') return
      dispatched = false
      parser.feed(complete)
      sinceEvent = dispatched ? 0 : sinceEvent + complete.length
      if (sinceEvent > maxChars) throw lineTooLong(maxChars, 'event')
    },
    end(flush) {
      const rest = lines.rest()
      if (flush) parser.feed(`${rest}\n\n`)
    },
  }
}
