/**
 * Bytes arriving in chunks, handed on as text in whole lines, with a cap on how long a line may
 * grow. The unfinished line is kept as bytes in one buffer, so what the splitter holds is bounded
 * in bytes (at most 3 × the cap plus a chunk, for any input, however it is cut), never a list of
 * strings whose per-piece overhead grows with the number of chunks. Lines are decoded only once
 * complete: a line break byte is never part of a multi-byte UTF-8 character, so a character
 * split across chunks comes out whole.
 */
import { FrameTooLongError } from './frame-errors.js'

/** Longest line (or SSE event) a reader accepts, in characters: far above any real frame. */
export const MAX_LINE_CHARS = 4_000_000

export interface LineSplitterOptions {
  /** Longest line accepted, in characters (UTF-16 code units). @defaultValue 4_000_000 */
  maxChars?: number | undefined
  /**
   * `'lf'` for NDJSON (a CR is only ever the end of a CRLF there), `'any'` for SSE, where a lone
   * CR ends a line too: at once, not when the next byte shows it is no CRLF (an event's last line
   * would wait for the next event). Its lines are handed on ending in LF, whatever their break, so
   * an LF that completes a CRLF in the next chunk is dropped, not taken for an empty line.
   * @defaultValue 'lf'
   */
  breaks?: 'lf' | 'any' | undefined
}

export interface LineSplitter {
  /**
   * Add `bytes`; returns the text up to and including the last line break seen so far (`''`
   * when no line is complete yet); with `'any'` breaks, every break as an LF. Throws
   * `FrameTooLongError` when a line passes the cap.
   */
  push(bytes: Uint8Array): string
  /** The stream ended: the text after the last line break (`''` when there is none). */
  end(): string
  /** Bytes of the unfinished line held. */
  readonly pendingBytes: number
}

const LF = 0x0a
const CR = 0x0d
/** Bytes a line of `maxChars` UTF-16 units can take at most in UTF-8 (three per unit). */
const BYTES_PER_UNIT = 3
/** Room kept for an unfinished line after a long one completed; the rest is given back. */
const KEEP_BYTES = 65_536

export function createLineSplitter(options: LineSplitterOptions = {}): LineSplitter {
  const maxChars = options.maxChars ?? MAX_LINE_CHARS
  const anyBreak = options.breaks === 'any'
  // ignoreBOM: a U+FEFF inside the stream is text; only the stream's first one is dropped.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let atStart = true
  let buffer = new Uint8Array(0)
  let length = 0
  // UTF-16 units of buffer[0, counted), counted only once the line is longer in bytes than the
  // cap (before that it cannot be longer in units).
  let counted = 0
  let units = 0
  // With 'any' breaks: the last text handed on ended in a CR, so an LF first in the next bytes is its CRLF's.
  let afterCR = false

  const decode = (bytes: Uint8Array): string => {
    let text = decoder.decode(bytes)
    if (atStart && text !== '') {
      atStart = false
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    return text
  }

  const append = (bytes: Uint8Array) => {
    if (length + bytes.length > buffer.length) {
      const grown = new Uint8Array(Math.max(length + bytes.length, Math.min(buffer.length * 2, BYTES_PER_UNIT * maxChars + 4)))
      grown.set(buffer.subarray(0, length))
      buffer = grown
    }
    buffer.set(bytes, length)
    length += bytes.length
  }

  /**
   * The unfinished line may grow no further than the cap. A CR ending it is not counted: it may
   * be the first half of a CRLF (with `'lf'` breaks; with `'any'` a CR is never held).
   */
  const checkPending = () => {
    if (length <= maxChars) return
    units += utf16Units(buffer, counted, length)
    counted = length
    const heldCR = buffer[length - 1] === CR ? 1 : 0
    // The extra bytes: a character cut at the end of the chunk.
    if (units - heldCR > maxChars || length > BYTES_PER_UNIT * maxChars + 3 + heldCR) throw new FrameTooLongError('line', maxChars)
  }

  /** Every line ending in `bytes[0, end)` is within the cap; the first one starts in the buffer. */
  const checkLines = (bytes: Uint8Array, end: number) => {
    // Shorter in bytes than the cap altogether: no line of it can be longer in characters.
    if (length + end <= maxChars) return
    // The held bytes begin the first line.
    let carried = length === 0 ? 0 : units + utf16Units(buffer, counted, length)
    let start = 0
    let lf = bytes.indexOf(LF)
    let cr = anyBreak ? bytes.indexOf(CR) : -1
    for (;;) {
      const next = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
      if (next === -1 || next >= end) return
      // The CR of a CRLF is part of the break, not of the line.
      const pairedCR = (next > start ? bytes[next - 1] : start === 0 && length > 0 ? buffer[length - 1] : undefined) === CR ? 1 : 0
      if (carried + next - start - pairedCR > maxChars && carried + utf16Units(bytes, start, next) - pairedCR > maxChars)
        throw new FrameTooLongError('line', maxChars)
      carried = 0
      start = next + 1
      if (lf !== -1 && lf < start) lf = bytes.indexOf(LF, start)
      if (cr !== -1 && cr < start) cr = bytes.indexOf(CR, start)
    }
  }

  return {
    push(input) {
      // The LF of a CRLF whose CR ended the text handed on last: that line is out already.
      const bytes = afterCR && input[0] === LF ? input.subarray(1) : input
      if (input.length > 0) afterCR = false
      if (bytes.length === 0) return ''
      // Where the complete lines end in `bytes` (exclusive), or -1.
      const end = lastBreak(bytes, anyBreak)
      if (end === -1) {
        append(bytes)
        checkPending()
        return ''
      }
      checkLines(bytes, end)
      let complete: string
      if (length === 0) complete = decode(bytes.subarray(0, end))
      else {
        append(bytes.subarray(0, end))
        complete = decode(buffer.subarray(0, length))
      }
      if (anyBreak) {
        // A CR last in `bytes` may have its LF in the next ones; elsewhere its LF, if any, is here.
        afterCR = end === bytes.length && bytes[end - 1] === CR
        if (complete.includes('\r')) complete = complete.replace(CR_BREAK, '\n')
      }
      length = 0
      counted = 0
      units = 0
      if (buffer.length > KEEP_BYTES) buffer = new Uint8Array(0)
      append(bytes.subarray(end))
      checkPending()
      return complete
    },
    end() {
      afterCR = false
      const rest = decode(buffer.subarray(0, length))
      buffer = new Uint8Array(0)
      length = 0
      counted = 0
      units = 0
      return rest
    },
    get pendingBytes() {
      return length
    },
  }
}

/** A CR or CRLF line break, as `'any'` breaks read it. */
const CR_BREAK = /\r\n?/g

/** Just past the last line break of `bytes` (with `anyBreak`, a CR counts, even as the last byte), or -1. */
function lastBreak(bytes: Uint8Array, anyBreak: boolean): number {
  const end = anyBreak ? Math.max(bytes.lastIndexOf(LF), bytes.lastIndexOf(CR)) : bytes.lastIndexOf(LF)
  return end === -1 ? -1 : end + 1
}

/**
 * UTF-16 code units the UTF-8 bytes `bytes[from, to)` decode to: one per byte that starts a
 * character, two for a four-byte one. Bytes that are not UTF-8 count as at most one each.
 */
function utf16Units(bytes: Uint8Array, from: number, to: number): number {
  let units = 0
  for (let i = from; i < to; i++) {
    const b = bytes[i]!
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1
  }
  return units
}
