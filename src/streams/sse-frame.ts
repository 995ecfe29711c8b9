import { LaconicError } from '../core/contracts/laconic-error.js'

/** One Server-Sent Events frame: its `id`, `event`, `data` and `retry` fields. */
export interface SSEFrame {
  id?: string
  event?: string
  /** Any text; each line becomes its own `data:` line, so CR, LF and CRLF all survive. */
  data?: string
  /** Reconnection delay hint for the client, in milliseconds. */
  retry?: number
}

const LINE_BREAK = /\r\n|\r|\n/

/** One SSE frame as wire text, ending with the blank line that dispatches it. */
export function encodeSSEFrame(frame: SSEFrame): string {
  let out = ''
  if (frame.id !== undefined) out += `id: ${singleLine('id', frame.id)}\n`
  if (frame.event !== undefined) out += `event: ${singleLine('event', frame.event)}\n`
  if (frame.retry !== undefined) out += `retry: ${retryValue(frame.retry)}\n`
  if (frame.data !== undefined) {
    for (const line of frame.data.split(LINE_BREAK)) out += `data: ${line}\n`
  }
  return `${out}\n`
}

/** A comment line: clients ignore it, proxies see traffic (the heartbeat). */
export function encodeSSEComment(text: string): string {
  return `: ${singleLine('comment', text)}\n\n`
}

// A line break in `id` or `event` would let a value inject fields of its own.
function singleLine(field: string, value: string): string {
  if (LINE_BREAK.test(value) || value.includes('\0')) {
    throw new LaconicError(`SSE ${field} must be a single line without NUL, got ${JSON.stringify(value)}`, {
      code: 'config',
      hint: `remove line breaks from the ${field}`,
    })
  }
  return value
}

function retryValue(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0) {
    throw new LaconicError(`SSE retry must be a non-negative integer of milliseconds, got ${ms}`, { code: 'config' })
  }
  return String(ms)
}
