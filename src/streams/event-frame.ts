import type { ResearchEvent } from '../core/contracts/events.js'
import { encodeSSEComment, encodeSSEFrame } from './sse-frame.js'

/** The event name of the frame sent after `run-end`: the stream is complete, do not reconnect. */
export const SSE_END_EVENT = 'end'

/** The wire text of one event: `id` is its `seq`, so `Last-Event-ID` says where to resume. */
export function encodeEventFrame(event: ResearchEvent): string {
  return encodeSSEFrame({ id: String(event.seq), event: event.type, data: JSON.stringify(event) })
}

const encoder = new TextEncoder()

// A broadcast hands the same event object to every subscriber: encode it once, not once per
// client. Weak keys, so an event's bytes live exactly as long as the event (a replay history).
// Events are immutable once emitted, so the bytes never go stale.
const frames = new WeakMap<ResearchEvent, Uint8Array>()

/**
 * The UTF-8 bytes of `encodeEventFrame(event)`, shared by every caller: read-only, never
 * mutate or transfer them (callers that hand chunks to unknown code copy them first).
 */
export function eventFrameBytes(event: ResearchEvent): Uint8Array {
  let bytes = frames.get(event)
  if (!bytes) {
    bytes = encoder.encode(encodeEventFrame(event))
    frames.set(event, bytes)
  }
  return bytes
}

export const END_FRAME_BYTES = encoder.encode(encodeSSEFrame({ event: SSE_END_EVENT, data: '[DONE]' }))

export const HEARTBEAT_BYTES = encoder.encode(encodeSSEComment('heartbeat'))

export function retryFrameBytes(retryMs: number): Uint8Array {
  return encoder.encode(encodeSSEFrame({ retry: retryMs }))
}
