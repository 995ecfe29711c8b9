/**
 * The chat page: one conversation, whose id is in the address. Its saved messages are loaded
 * first, then `useChat` takes over: each question is a research run of the server's agent that
 * continues the conversation (the server keeps what earlier turns found).
 */
import { useChat } from '@ai-sdk/react'
import { type FormEvent, useEffect, useState } from 'react'
import { Message } from './Message.js'
import { type ChatMessage, chatIdFromAddress, codeOfMaskedText, reportsOffered, savedMessages, transport, unreachableHelp } from './messages.js'

export function App() {
  const [chatId] = useState(chatIdFromAddress)
  const [saved, setSaved] = useState<ChatMessage[] | Error>()
  useEffect(() => {
    savedMessages(chatId).then(setSaved, setSaved)
  }, [chatId])
  if (saved instanceof Error) return <p className="error">{saved.message}</p>
  if (saved === undefined) return <p className="status">Loading the conversation…</p>
  return <Conversation chatId={chatId} saved={saved} />
}

function Conversation({ chatId, saved }: { chatId: string; saved: ChatMessage[] }) {
  const { messages, sendMessage, status, stop, error } = useChat<ChatMessage>({ id: chatId, messages: saved, transport })
  const [question, setQuestion] = useState('')
  // A report turn: the server runs the `report` strategy (an outline, then its sections), asked in the turn's body.
  const [report, setReport] = useState(false)
  const [offersReports] = useState(reportsOffered)
  const busy = status === 'submitted' || status === 'streaming'

  const ask = (event: FormEvent) => {
    event.preventDefault()
    const text = question.trim()
    if (!text || busy) return
    setQuestion('')
    void sendMessage({ text }, report ? { body: { strategy: 'report' } } : undefined)
  }

  return (
    <main data-status={status}>
      <h1>laconic · chat</h1>
      <p>
        Each question is a research run; follow-ups build on what earlier ones found. <a href="/">New conversation</a>
      </p>
      {messages.map((message) => (
        <Message key={message.id} message={message} />
      ))}
      {error && (
        <p className="error" role="alert">
          {error.message}
        </p>
      )}
      {error && unreachableHelp(codeOfMaskedText(error.message)) && <p className="help">{unreachableHelp(codeOfMaskedText(error.message))}</p>}
      <form onSubmit={ask}>
        <input aria-label="Question" value={question} onChange={(event) => setQuestion(event.target.value)} placeholder="Ask a question" />
        {offersReports && (
          <label className="report-toggle">
            <input type="checkbox" checked={report} onChange={(event) => setReport(event.target.checked)} /> Report
          </label>
        )}
        {busy ? (
          <button type="button" className="stop" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit">Ask</button>
        )}
      </form>
    </main>
  )
}
