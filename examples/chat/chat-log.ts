/**
 * What the page shows after a reload: each chat's UI messages, one JSON file per chat. The
 * research itself (earlier answers, facts, citation numbers) lives in the session store; this
 * log is only the conversation as displayed. A turn saves the messages the client sent (its own
 * history: display only, never read by the research) and the reply as it was streamed, once the
 * stream ends or the client leaves (then the reply so far).
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { createParser } from 'eventsource-parser'

/** The ids this log takes (the chat handler's): they name files. */
export const CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/

export interface ChatLog {
  /** The chat's messages as last saved; empty for a chat never seen. */
  messages(chatId: string): Promise<UIMessage[]>
  /** Passes the turn's response through, and saves `sent` with the reply once its stream ends or is cancelled. */
  record(chatId: string, sent: UIMessage[], response: Response): Response
}

/** A chat log in `dir` (created when missing): `<chatId>.json` per chat, replaced whole on each turn. */
export function fileChatLog(dir: string): ChatLog {
  const file = (chatId: string) => {
    if (!CHAT_ID.test(chatId)) throw new TypeError(`a chat id is 1 to 128 letters, digits, _ and -, got ${JSON.stringify(chatId.slice(0, 80))}`)
    return join(dir, `${chatId}.json`)
  }

  async function save(chatId: string, messages: UIMessage[]): Promise<void> {
    await mkdir(dir, { recursive: true })
    // Written aside, then renamed: a reader never sees half a file.
    const temporary = `${file(chatId)}.${process.pid}.${Date.now()}.tmp`
    await writeFile(temporary, JSON.stringify(messages))
    await rename(temporary, file(chatId))
  }

  return {
    async messages(chatId) {
      try {
        return JSON.parse(await readFile(file(chatId), 'utf8')) as UIMessage[]
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw error
      }
    },
    record(chatId, sent, response) {
      if (!response.ok || !response.body) return response
      let saved: Promise<void> | undefined
      const chunks: UIMessageChunk[] = []
      const saveOnce = () => {
        saved ??= replyOf(chunks)
          .then((reply) => save(chatId, reply ? [...sent, reply] : sent))
          .catch((error: unknown) => console.error(`could not save chat ${chatId}:`, error))
        return saved
      }
      const parser = createParser({
        onEvent: ({ data }) => {
          if (data === '[DONE]') return
          try {
            chunks.push(JSON.parse(data) as UIMessageChunk)
          } catch {
            // not a chunk: the log keeps what it can read
          }
        },
      })
      const decoder = new TextDecoder()
      const reader = response.body.getReader()
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read()
          if (done) {
            await saveOnce()
            controller.close()
            return
          }
          parser.feed(decoder.decode(value, { stream: true }))
          controller.enqueue(value)
        },
        async cancel(reason) {
          await reader.cancel(reason)
          await saveOnce()
        },
      })
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
    },
  }
}

/** The assistant message the chunks make, as `useChat` folds them (an `error` chunk does not stop the fold). */
async function replyOf(chunks: UIMessageChunk[]): Promise<UIMessage | undefined> {
  if (chunks.length === 0) return undefined
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
  let reply: UIMessage | undefined
  for await (const message of readUIMessageStream({ stream, onError: () => {} })) reply = message
  // The stream names no message id (useChat makes its own): the saved reply gets one, so each message keeps a key of its own.
  return reply && { ...reply, id: reply.id || randomUUID() }
}
