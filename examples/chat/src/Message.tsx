/**
 * One message. A user's is its text; an assistant's is the research run: the searches and facts
 * as they arrive, the answer (each sentence checked against its sources marked by its verdict,
 * the passage it was checked against on hover or focus), its sources as links, the cost, and how
 * the run ended. A report turn (a `data-outline` part) shows its contents as links to its
 * sections, then each section under its heading as it streams. Everything is rendered as text (React escapes it); a source links only when its
 * URL is http(s).
 */
import type { ReactNode } from 'react'
import { type ChatMessage, unreachableHelp } from './messages.js'

type Part = ChatMessage['parts'][number]
type PartOf<T extends Part['type']> = Extract<Part, { type: T }>

/** Why a run ended without a full answer, in words. */
const ENDINGS: Record<string, string> = {
  'max-iterations': 'The research stopped at its step limit: the answer may be incomplete.',
  paused: 'The research paused.',
  error: 'The research failed.',
}

export function Message({ message }: { message: ChatMessage }) {
  const texts = message.parts.filter((part) => part.type === 'text').map((part) => part.text)
  if (message.role === 'user') return <div className="message user">{texts.join('')}</div>
  // With `verify: 'revise'` a second text part is the answer rewritten without its unsupported
  // sentences (a `data-revision` part marks it once complete); the first is what was checked.
  const text = texts.at(-1) ?? ''
  const first = texts.length > 1 ? texts[0] : undefined
  const claims = message.parts
    .filter((part): part is PartOf<'data-claim'> => part.type === 'data-claim')
    .map((part) => part.data)
    .sort((a, b) => a.index - b.index)

  const outline = message.parts.find((part): part is PartOf<'data-outline'> => part.type === 'data-outline')
  const queries = message.parts.filter((part): part is PartOf<'data-query'> => part.type === 'data-query')
  const facts = message.parts.filter((part): part is PartOf<'data-fact'> => part.type === 'data-fact')
  const sources = message.parts.filter((part): part is PartOf<'source-url'> => part.type === 'source-url')
  const cost = message.parts.findLast((part): part is PartOf<'data-cost'> => part.type === 'data-cost')
  const reason = message.metadata?.reason
  // A failed run's metadata says why (the handler's short message and code): shown after a reload too.
  const failure = message.metadata?.error
  const ending = reason === 'error' && failure ? failure.message : reason ? ENDINGS[reason] : undefined
  // A failure that means the model server did not answer: the page says which server, and what to do.
  const help = reason === 'error' && failure ? unreachableHelp(failure.code) : ''

  return (
    <div className="message assistant">
      {queries.length > 0 && (
        <ul className="research">
          {queries.map(({ id, data }) => (
            <li key={id} className="query">
              {data.query} {data.error ? '(failed)' : data.results ? `(${data.results.length} results)` : '(searching…)'}
            </li>
          ))}
        </ul>
      )}
      {facts.length > 0 && (
        <ul className="research facts">
          {facts.map(({ id, data }) => (
            <li key={id} className={data.supersededBy ? 'fact superseded' : 'fact'}>
              {data.fact.text}
            </li>
          ))}
        </ul>
      )}
      {outline ? (
        <Report id={message.id} outline={outline.data.outline} parts={message.parts} text={texts[0] ?? ''} />
      ) : (
        text && <p className="answer">{first === undefined ? <Checked text={text} claims={claims} /> : text}</p>
      )}
      {first !== undefined && (
        <details className="draft">
          <summary>The first answer, before its unsupported sentences were removed</summary>
          <p className="answer">
            <Checked text={first} claims={claims} />
          </p>
        </details>
      )}
      {claims.length > 0 && <p className="claims-summary">{claimsSummary(claims, message.metadata?.supportRate)}</p>}
      {sources.length > 0 && (
        <ol className="sources">
          {sources.map((source) => (
            <li key={source.sourceId} value={Number(source.sourceId) || undefined}>
              <SourceLink url={source.url} title={source.title} />
            </li>
          ))}
        </ol>
      )}
      {cost && (
        <p className="cost">
          ${cost.data.total.total.toFixed(4)} · {cost.data.total.searches} searches
        </p>
      )}
      {ending && <p className={reason === 'error' ? 'ending error' : 'ending'}>{ending}</p>}
      {help && <p className="ending help">{help}</p>}
    </div>
  )
}

type Claim = PartOf<'data-claim'>['data']
type Outline = PartOf<'data-outline'>['data']['outline']

/** A heading the report strategy writes on a line of its own (`## Summary`): the title, or undefined. */
const headingOf = (line: string): string | undefined => /^#{1,3} (.+)$/.exec(line)?.[1]

/**
 * A long report: its title, its contents (the outline, each entry a link to its section's
 * heading), each section that has started under its heading (its text is `text.slice(start,
 * end)` of the answer, its own `## title` line dropped), then what follows the last section
 * (summary, conclusion, references), each under its heading.
 */
function Report({ id, outline, parts, text }: { id: string; outline: Outline; parts: ChatMessage['parts']; text: string }) {
  const anchor = (index: number) => `report-${id.replace(/[^\w-]/g, '')}-${index}`
  const sections = parts
    .filter((part): part is PartOf<'data-section'> => part.type === 'data-section')
    .map((part) => part.data)
    .sort((a, b) => a.index - b.index)
  const contents = outline.sections.map((section, index) => ({ id: anchor(index), title: section.title }))
  const done = sections.length === outline.sections.length && sections.every((s) => s.end !== undefined)
  const rest = done ? text.slice(Math.max(...sections.map((s) => s.end ?? 0))) : ''
  return (
    <article className="report">
      <h2>{outline.title}</h2>
      <nav className="contents" aria-label="Contents">
        <ol>
          {contents.map((entry) => (
            <li key={entry.id}>
              <a href={`#${entry.id}`}>{entry.title}</a>
            </li>
          ))}
        </ol>
      </nav>
      {sections.map((section) => {
        const lines = text.slice(section.start, section.end ?? text.length).split('\n')
        if (headingOf(lines[0] ?? '') !== undefined) lines.shift()
        return (
          <section key={section.index} className={section.end === undefined ? 'section streaming' : 'section'} aria-labelledby={anchor(section.index)}>
            <h3 id={anchor(section.index)}>{section.title}</h3>
            <p className="answer">{lines.join('\n').trim()}</p>
          </section>
        )
      })}
      {blocksOf(rest).map((block) => (
        <section key={block.key} className="section">
          {block.heading !== undefined && <h3>{block.heading}</h3>}
          {block.text && <p className="answer">{block.text}</p>}
        </section>
      ))}
    </article>
  )
}

/** Text after a report's sections, cut at its heading lines: `## Summary`, `## Conclusion`, `## References`. */
function blocksOf(text: string): { key: string; heading?: string; text: string }[] {
  const blocks: { heading?: string; lines: string[] }[] = []
  for (const line of text.split('\n')) {
    const heading = headingOf(line)
    if (heading !== undefined) blocks.push({ heading, lines: [] })
    else if (blocks.length) blocks.at(-1)?.lines.push(line)
    else if (line.trim()) blocks.push({ lines: [line] })
  }
  return blocks.map(({ heading, lines }, n) => ({ key: `rest-${n}`, ...(heading !== undefined ? { heading } : {}), text: lines.join('\n').trim() }))
}

/**
 * The answer's text with each checked sentence in a span marked by its verdict. Claims stand in
 * the text in index order, each after the one before; the passage a sentence was checked
 * against is its tooltip and, on keyboard focus, shown below it (from an attribute, as text).
 */
function Checked({ text, claims }: { text: string; claims: readonly Claim[] }) {
  const pieces: ReactNode[] = []
  let from = 0
  for (const claim of claims) {
    const at = text.indexOf(claim.text, from)
    if (at === -1) continue
    pieces.push(text.slice(from, at))
    const note = claim.evidence ? `${claim.verdict}: ${claim.evidence}` : claim.verdict
    pieces.push(
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the evidence shows on focus, so a keyboard must reach the sentence
      <span key={claim.index} className={`claim ${claim.verdict}`} tabIndex={0} title={note} data-note={note}>
        {claim.text}
      </span>,
    )
    from = at + claim.text.length
  }
  pieces.push(text.slice(from))
  return <>{pieces}</>
}

/** `3 supported · 1 unsupported (support rate 75%)` */
function claimsSummary(claims: readonly Claim[], supportRate: number | undefined): string {
  const counts = new Map<string, number>()
  for (const claim of claims) counts.set(claim.verdict, (counts.get(claim.verdict) ?? 0) + 1)
  const parts = [...counts].map(([verdict, n]) => `${n} ${verdict}`)
  return `Claims checked: ${parts.join(' · ')}${supportRate !== undefined ? ` (support rate ${Math.round(supportRate * 100)}%)` : ''}`
}

/** A source as a link when its URL is a web address; any other scheme (javascript:, data:, file:) stays text. */
function SourceLink({ url, title }: { url: string; title?: string | undefined }) {
  const label = title || url
  let web = false
  try {
    web = ['http:', 'https:'].includes(new URL(url).protocol)
  } catch {
    // not a URL at all: shown as text
  }
  if (!web) return <span>{label}</span>
  return (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {label}
    </a>
  )
}
