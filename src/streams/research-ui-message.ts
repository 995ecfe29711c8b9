/**
 * The AI SDK `UIMessage` a research chat holds, written out here so the package needs no `ai`
 * at runtime or in its types: `useChat<ResearchUIMessage>()` and
 * `validateUIMessages<ResearchUIMessage>()` take it, and it is a `UIMessage<ResearchMessageMetadata, ...>`.
 */
import type { ResearchDataParts, ResearchMessageMetadata } from './ui-message-chunks.js'

/**
 * The data parts a message keeps in `message.parts`. The transient ones (`page`, `knowledge`,
 * `llm-call`: progress only) reach `useChat`'s `onData` and are never in a message.
 */
export type ResearchMessageDataParts = Omit<ResearchDataParts, 'page' | 'knowledge' | 'llm-call'>

/** A kept `data-*` part of a research message: `{ type: 'data-fact', id, data }`. */
export type ResearchDataUIPart = {
  [Name in keyof ResearchMessageDataParts]: { type: `data-${Name}`; id?: string; data: ResearchMessageDataParts[Name] }
}[keyof ResearchMessageDataParts]

/** A tool call of a `react` run, as the AI SDK shows any dynamic tool: its input, then its output or error. */
export type ResearchToolUIPart = { type: 'dynamic-tool'; toolName: string; toolCallId: string; title?: string } & (
  | { state: 'input-streaming'; input?: unknown }
  | { state: 'input-available'; input: unknown }
  | { state: 'output-available'; input: unknown; output: { summary: string; chars: number } }
  | { state: 'output-error'; input: unknown; errorText: string }
)

/**
 * One part of a research chat's message: the answer (`text`), the model's `reasoning`, each
 * citation (`source-url`, `sourceId` its number), tool calls, the kept data parts, and what a
 * user's message carries (`text`, `file`).
 */
export type ResearchUIMessagePart =
  | { type: 'text'; text: string; state?: 'streaming' | 'done' }
  | { type: 'reasoning'; id?: string; text: string; state?: 'streaming' | 'done' }
  | { type: 'source-url'; sourceId: string; url: string; title?: string }
  | { type: 'source-document'; sourceId: string; mediaType: string; title: string; filename?: string }
  | { type: 'file'; mediaType: string; filename?: string; url: string }
  | { type: 'step-start' }
  | ResearchToolUIPart
  | ResearchDataUIPart

/**
 * A message of a research chat, as `useChat<ResearchUIMessage>()` holds it: an AI SDK
 * `UIMessage` whose metadata is the run's (`runId`, `strategy`, and at the end `reason`) and
 * whose parts are typed, so `part.type === 'data-fact'` narrows `part.data` to the fact.
 */
export interface ResearchUIMessage {
  id: string
  role: 'system' | 'user' | 'assistant'
  metadata?: ResearchMessageMetadata
  parts: ResearchUIMessagePart[]
}
