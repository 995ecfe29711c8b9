/** The handler's responses: JSON bodies and errors, the page with its policy, the text view, SSE. */
import { encodeSSEFrame } from '../streams/sse-frame.js'
import { SSE_END_EVENT } from '../streams/to-sse.js'
import { SSE_HEADERS } from '../streams/sse-response.js'

/** Every response: never sniffed into another type. */
const BASE_HEADERS = { 'x-content-type-options': 'nosniff' } as const

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, {
    status,
    headers: { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** An error the client can act on: `code` says which, `message` how to fix it. */
export function failure(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { code, message }, headers)
}

/**
 * The page holding the token: never stored, never framed, never sniffed, and a
 * Content-Security-Policy allowing its own inline script and style only (by hash).
 */
export function pageResponse(page: string, policy: string): Response {
  return new Response(page, {
    headers: {
      ...BASE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': policy,
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    },
  })
}

/** The page's Content-Security-Policy: its own inline script and style (by hash), requests to itself only. */
export async function contentSecurityPolicy(page: string): Promise<string> {
  const hash = async (tag: string) => {
    const body = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page)?.[1] ?? ''
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)))
    return `'sha256-${btoa(String.fromCharCode(...digest))}'`
  }
  return [
    "default-src 'none'",
    `script-src ${await hash('script')}`,
    `style-src ${await hash('style')}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The most of a source's text the text view serves; the rest is cut with a note. */
const MAX_SOURCE_CHARS = 1_000_000

/**
 * The text view: the title and URL, a blank line, then the text, cut at 1,000,000 characters.
 * Plain text that is never sniffed into markup, under a policy that would load and run nothing
 * even if a browser did (`sandbox`: an opaque origin).
 */
export function sourceResponse(url: string, source: { title?: string | undefined; text: string }): Response {
  const title = typeof source.title === 'string' && source.title.trim() ? `${source.title.trim().slice(0, 300)}\n` : ''
  const body = typeof source.text === 'string' ? source.text : ''
  const cut =
    body.length > MAX_SOURCE_CHARS
      ? `${body.slice(0, MAX_SOURCE_CHARS)}\n\n[cut at ${MAX_SOURCE_CHARS.toLocaleString('en')} of ${body.length.toLocaleString('en')} characters]`
      : body
  return new Response(`${title}${url}\n\n${cut}\n`, {
    headers: {
      ...BASE_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    },
  })
}

/**
 * The answer to a reader already at or past the run's `run-end`: the `end` frame at once, so a
 * standard EventSource stops instead of reconnecting forever.
 */
export function endedStream(retryMs: number): Response {
  const body = encodeSSEFrame({ retry: retryMs }) + encodeSSEFrame({ event: SSE_END_EVENT, data: '[DONE]' })
  return new Response(body, { headers: { ...SSE_HEADERS, ...BASE_HEADERS } })
}

export const SSE_EXTRA_HEADERS: Record<string, string> = { ...BASE_HEADERS }

/** A source URL as runs name it for the text view: without its `#fragment` (a corpus names its sections so). */
export const withoutFragment = (url: string): string => url.split('#', 1)[0] as string

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return (message.split('\n', 1)[0] ?? '').slice(0, 300)
}
