/**
 * The chat's message type and the page's two calls to its server: the saved conversation, and
 * the transport `useChat` posts each turn through (with the server's token).
 */
import { DefaultChatTransport } from 'ai'
import type { ResearchUIMessage } from '../../../src/streams/index.js'

/** A message of this chat: the research's metadata (run id, how it ended) and its kept parts (answer, sources, searches, facts, cost). */
export type ChatMessage = ResearchUIMessage

/** The token the server put in the page: it must come back with every turn (the server's request guard). */
function pageToken(): string {
  return document.querySelector('meta[name="laconic-token"]')?.getAttribute('content') ?? ''
}

/** Failure codes that mean the model server did not answer. */
const UNREACHABLE = new Set(['network', 'timeout', 'not-found'])

/**
 * What the server says to do when its model server cannot be reached (it knows which server
 * that is), for a failure of this code; '' for any other failure.
 */
export function unreachableHelp(code: string | undefined): string {
  if (code === undefined || !UNREACHABLE.has(code)) return ''
  return document.querySelector('meta[name="laconic-unreachable"]')?.getAttribute('content') ?? ''
}

/** The server can run a turn as a long report (it has a report agent): the page shows its Report toggle. */
export const reportsOffered = (): boolean => document.querySelector('meta[name="laconic-report"]')?.getAttribute('content') === 'on'

/** The code at the end of the handler's short failure text: `the research failed (network)` → `network`. */
export const codeOfMaskedText = (text: string): string | undefined => /\(([\w-]+)\)$/.exec(text)?.[1]

/** The chat's id: from the address (`?chat=…`), or a new one put there, so a reload comes back to the same conversation. */
export function chatIdFromAddress(): string {
  const url = new URL(window.location.href)
  const known = url.searchParams.get('chat')
  if (known && /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(known)) return known
  // 128 random bits in hex (crypto.randomUUID needs a secure context; a LAN address is not one).
  const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
  url.searchParams.set('chat', id)
  window.history.replaceState(null, '', url)
  return id
}

/** The conversation as the server saved it (empty for a new chat). */
export async function savedMessages(chatId: string): Promise<ChatMessage[]> {
  const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/messages`)
  if (!response.ok) throw new Error(`could not load the conversation: ${response.status} ${await response.text()}`)
  return (await response.json()) as ChatMessage[]
}

/** How `useChat` sends a turn: `POST /api/chat` with the chat's id and messages, and the page's token. */
export const transport = new DefaultChatTransport<ChatMessage>({ api: '/api/chat', headers: () => ({ 'x-laconic-token': pageToken() }) })
