/**
 * The live research page: one static HTML document (inline CSS and JS) that starts a run with
 * `POST /runs` carrying the server's token (from its `<meta>`), opens an EventSource on
 * `/runs/:id/events` and draws every event as it arrives. Text from events only ever becomes
 * text nodes, and only `http:`/`https:` URLs become links (and `file:` ones, to the server's
 * text view `/runs/:id/source?url=`, when it has one). It lives in a TS module so tsc ships it
 * in dist/ with no copy step. The page's script uses no backtick and no dollar-brace, so it
 * sits verbatim in a raw template literal: keep it that way when editing.
 */

/** Where `livePage` puts the label banner. */
const LABEL_SLOT = '<!--label-->'

/** Where `livePage` puts the token meta tag (and the source view's). */
const TOKEN_SLOT = '<!--token-->'

export interface LivePageOptions {
  /** The server's token (see `createRequestGuard`): the page sends it in `x-laconic-token` to start, cancel or answer a run; none with `token: false`. */
  token: string | undefined
  /** The server serves the text of a run's `file:` sources at `GET /runs/:id/source?url=URL`: `file:` sources link there, in a new tab. Unset, they show as text. */
  sourceView?: boolean | undefined
  /** The server answers a paused run's request, `POST /runs/:id/decision`: the page shows Approve and Reject. Unset, it shows what the run waits for only. */
  decisions?: boolean | undefined
  /** The server keeps conversations (`POST /runs` with a `conversation`): after a run the page offers a follow-up question that builds on it. */
  followUps?: boolean | undefined
}

/** The page as served, with an optional banner (e.g. "Scripted demo: …") under the form. */
export function livePage(label: string | undefined, options: LivePageOptions): string {
  const banner = label ? `<p class="banner" id="label">${escapeHtml(label)}</p>` : ''
  const token = `<meta name="laconic-token" content="${escapeHtml(options.token ?? '')}">`
  const sourceView = options.sourceView ? '<meta name="laconic-source-view" content="yes">' : ''
  const decisions = options.decisions ? '<meta name="laconic-decisions" content="yes">' : ''
  const followUps = options.followUps ? '<meta name="laconic-follow-ups" content="yes">' : ''
  return PAGE.replace(LABEL_SLOT, banner).replace(TOKEN_SLOT, token + sourceView + decisions + followUps)
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>laconic · live research</title>
<!--token-->
<style>
  :root { --ink: #1d2330; --muted: #6b7280; --line: #e5e7eb; --accent: #2563eb; --bg: #f8fafc; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--ink); background: var(--bg); }
  header { padding: 16px 24px; background: #fff; border-bottom: 1px solid var(--line); }
  h1 { margin: 0 0 8px; font-size: 18px; }
  h2 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); }
  form { display: flex; gap: 8px; }
  input { flex: 1; padding: 8px 10px; font: inherit; border: 1px solid var(--line); border-radius: 6px; }
  button { padding: 8px 16px; font: inherit; border: 0; border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer; }
  .banner { margin: 8px 0 0; padding: 6px 10px; border-radius: 6px; background: #fef3c7; color: #92400e; font-weight: 600; }
  #status { margin-top: 8px; color: var(--muted); font-size: 13px; }
  main { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; padding: 16px 24px; }
  section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-height: 80px; }
  /* The answer comes first, where the eye lands, and stays in view while the research scrolls. */
  #answer-panel { grid-column: 1 / -1; position: sticky; top: 0; z-index: 1; max-height: 60vh; overflow: auto; }
  #report h3 { font-size: 14px; margin: 10px 0 4px; }
  #report-title { font-size: 17px; margin: 0 0 6px; }
  #report-title:empty { display: none; }
  ol, ul { margin: 0; padding-left: 20px; }
  .query { margin-bottom: 10px; }
  .query > strong { display: block; }
  .query li { font-size: 13px; }
  .query li span { color: var(--muted); }
  .fact { margin-bottom: 4px; }
  .fact.replacing { animation: flash 1.2s; }
  @keyframes flash { from { background: #dcfce7; } to { background: transparent; } }
  .sources { font-size: 12px; }
  #knowledge { white-space: pre-wrap; margin: 0; font: inherit; }
  #answer { font-size: 16px; white-space: pre-wrap; min-height: 1.5em; }
  #answer.streaming::after { content: '▍'; color: var(--accent); }
  /* Claim verification: each checked sentence marked by its verdict; the passage it was checked
     against shows on hover or keyboard focus (an attribute's text, never markup). */
  .claim { position: relative; border-radius: 3px; }
  .claim:focus { outline: 2px solid var(--accent); }
  #toc { font-size: 0.9em; margin: 0.5em 0; } #toc li.pending { opacity: 0.6; } #toc li.streaming { font-weight: bold; } #toc li.done::after { content: " ✓"; }
  .claim.unsupported { background: #fee2e2; text-decoration: underline wavy #b91c1c; text-decoration-skip-ink: none; }
  .claim.partial { background: #fef3c7; text-decoration: underline dotted #b45309; }
  .claim[data-evidence]:hover::after, .claim[data-evidence]:focus::after {
    content: attr(data-verdict) ': ' attr(data-evidence); position: absolute; left: 0; top: 100%; z-index: 2; width: min(32em, 80vw);
    padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--ink); font-size: 13px;
    white-space: normal; box-shadow: 0 2px 8px rgba(0,0,0,.12); }
  #claims-summary { margin: 6px 0 0; color: var(--muted); font-size: 13px; }
  #claims-summary:empty, #draft-panel[hidden] { display: none; }
  #draft { white-space: pre-wrap; color: var(--muted); }
  a { color: var(--accent); }
  .warning { color: #b45309; font-size: 13px; }
  #decision { margin-top: 8px; padding: 8px 10px; border: 1px solid #f59e0b; border-radius: 6px; background: #fffbeb; }
  #decision[hidden], #answer-request[hidden], #follow-up[hidden], #earlier[hidden], #shown-question[hidden] { display: none; }
  #earlier { margin: 0 0 12px; padding: 0 0 8px 20px; border-bottom: 1px solid var(--line); color: var(--muted); }
  #earlier .earlier-question, #shown-question { font-weight: 600; }
  #follow-up { margin-top: 12px; }
  #request { white-space: pre-wrap; margin: 0 0 8px; font: inherit; }
  #decision button.reject { background: #b91c1c; }
  @media (max-width: 800px) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header>
  <h1>laconic · live research</h1>
  <form id="ask">
    <input id="question" name="q" autocomplete="off" placeholder="Ask a research question"
      value="Who won the 2024 Nobel Prize in Chemistry, and for what?">
    <button type="submit">Research</button>
  </form>
  <!--label-->
  <div id="status">Idle.</div>
  <div id="decision" hidden>
    <pre id="request"></pre>
    <form id="answer-request">
      <input id="reason" autocomplete="off" placeholder="Why not (sent with Reject)">
      <button type="submit" id="approve" value="approve">Approve</button>
      <button type="submit" id="reject" class="reject" value="reject">Reject</button>
    </form>
  </div>
</header>
<main>
  <section id="answer-panel">
    <h2>Answer</h2>
    <ol id="earlier" hidden></ol>
    <div id="shown-question" class="earlier-question" hidden></div>
    <h3 id="report-title"></h3>
    <nav id="toc" hidden><strong>Contents</strong><ol id="toc-list"></ol></nav>
    <div id="answer" data-tokens="0"></div>
    <p id="claims-summary"></p>
    <details id="draft-panel" hidden><summary>The first answer, before its unsupported sentences were removed</summary><div id="draft"></div></details>
    <div id="report"></div>
    <ol id="citations" class="sources"></ol>
    <form id="follow-up" hidden>
      <input id="follow-up-question" autocomplete="off" placeholder="Ask a follow-up question: it builds on this research">
      <button type="submit">Follow up</button>
    </form>
  </section>
  <section><h2>Plan</h2><ol id="plan"></ol></section>
  <section><h2>Queries and results</h2><div id="queries"></div></section>
  <section><h2>Facts</h2><ul id="facts"></ul></section>
  <section><h2>Knowledge</h2><pre id="knowledge"></pre><ul id="warnings"></ul></section>
</main>
<script>
'use strict'
const $ = (id) => document.getElementById(id)
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props)
  node.append(...children)
  return node
}
const sourceView = document.querySelector('meta[name=laconic-source-view]')
// The server's id of the run shown: the source view serves only the sources that run named.
let shownRun = null
// Where a source opens: a web URL as itself, a file: URL in the server's text view (when it
// has one), anything else (javascript:, data:) nowhere.
const hrefOf = (url) => {
  const text = String(url)
  if (/^https?:\/\//i.test(text)) return text
  if (/^file:/i.test(text) && sourceView && shownRun) return '/runs/' + encodeURIComponent(shownRun) + '/source?url=' + encodeURIComponent(text)
  return null
}
const link = (url, props, ...children) => {
  const href = hrefOf(url)
  return href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', ...props }, ...children) : el('span', props, ...children)
}
const followUps = document.querySelector('meta[name=laconic-follow-ups]')
// The conversation the shown run belongs to (a new one for each question asked above), and
// the question shown: a follow-up continues the conversation on the server.
let conversation = null
let shownQuestion = ''
const newConversationId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
let source = null
let lastSeq = -1
// Claim verification: the checked sentences by index, the first answer they belong to, and
// whether a revision of it is streaming into #answer.
let claims = new Map()
let firstAnswer = null
let draft = null
let revising = false
let cost = null
let phase = 'Idle.'

function reset() {
  for (const id of ['plan', 'queries', 'facts', 'warnings', 'citations', 'report', 'toc-list']) $(id).replaceChildren()
  $('toc').hidden = true
  $('knowledge').textContent = ''
  $('report-title').textContent = ''
  $('answer').textContent = ''
  $('answer').dataset.tokens = '0'
  $('answer').className = ''
  $('claims-summary').textContent = ''
  $('draft').replaceChildren()
  $('draft-panel').hidden = true
  claims = new Map()
  firstAnswer = null
  draft = null
  revising = false
  $('decision').hidden = true
  $('follow-up').hidden = true
  lastSeq = -1
  cost = null
  shownRun = null
}

const plural = (n, one, many = one + 's') => n + ' ' + (n === 1 ? one : many)

function status(text = phase) {
  phase = text
  const money = cost ? ' · ' + (cost.unpricedCalls > 0 ? 'cost unknown' : '$' + cost.total.toFixed(4)) + ' · ' + plural(cost.llmCalls, 'model call') + ' · ' + plural(cost.searches, 'search', 'searches') + ' · ' + plural(cost.inputTokens + cost.outputTokens, 'token') : ''
  $('status').textContent = text + money
}

// deep's report: its title above its summary (the streamed answer), its sections below. Text
// only, never markup.
function renderReport(report) {
  if (!report) return
  $('report-title').textContent = typeof report.title === 'string' ? report.title : ''
  // A long report (the report strategy) is its answer's text: its summaries would only repeat it.
  if (Array.isArray(report.sections)) return
  const sections = [['Main findings', report.mainFindings], ['Conclusions', report.conclusions],
    ['Limitations', report.limitations], ['Recommendations', report.recommendations]]
  const lists = sections.filter(([, items]) => Array.isArray(items) && items.length > 0).map(([heading, items]) =>
    el('div', { className: 'report-section' }, el('h3', { textContent: heading }), el('ul', {}, ...items.map((item) => el('li', { textContent: String(item) })))))
  const about = typeof report.sourcesSummary === 'string' && report.sourcesSummary.trim()
    ? [el('div', { className: 'report-section' }, el('h3', { textContent: 'About the sources' }), el('p', { textContent: report.sourcesSummary }))]
    : []
  $('report').replaceChildren(...lists, ...about)
}

// Citations arrive with the final answer: [n] becomes a link to source n.
function cited(text, byIndex) {
  return text.split(/(\[\d+\])/).map((part) => {
    const marker = /^\[(\d+)\]$/.exec(part)
    const citation = marker && byIndex.get(Number(marker[1]))
    return citation ? link(citation.url, { title: citation.title || citation.url, className: 'citation' }, part) : part
  })
}

// The answer's text with each checked sentence in a span marked by its verdict: claims stand in
// the text in index order, each after the one before.
function withClaims(text, byIndex) {
  const nodes = []
  let from = 0
  for (const claim of [...claims.values()].sort((a, b) => a.index - b.index)) {
    const at = text.indexOf(claim.text, from)
    if (at === -1) continue
    nodes.push(...cited(text.slice(from, at), byIndex))
    const props = { className: 'claim ' + claim.verdict, tabIndex: 0 }
    const span = el('span', props, ...cited(claim.text, byIndex))
    span.dataset.verdict = claim.verdict
    if (claim.evidence) span.dataset.evidence = claim.evidence
    nodes.push(span)
    from = at + claim.text.length
  }
  nodes.push(...cited(text.slice(from), byIndex))
  return nodes
}

function renderAnswer(text, citations) {
  const byIndex = new Map(citations.map((c) => [c.index, c]))
  $('answer').replaceChildren(...(draft === null ? withClaims(text, byIndex) : cited(text, byIndex)))
  $('citations').replaceChildren(...citations.map((c) =>
    el('li', { value: c.index }, link(c.url, {}, c.title || c.url))))
}

// Marks the claims in the first answer (in #answer, or in #draft once a revision replaced it),
// and sums them up.
function renderClaims() {
  if (draft) $('draft').replaceChildren(...withClaims(draft.text, new Map(draft.citations.map((c) => [c.index, c]))))
  const all = [...claims.values()]
  const count = (verdict) => all.filter((c) => c.verdict === verdict).length
  const citing = all.length - count('uncited')
  const parts = ['supported', 'partial', 'unsupported', 'unverifiable', 'uncited'].filter(count).map((v) => count(v) + ' ' + v)
  $('claims-summary').textContent = all.length ? 'Claims checked: ' + parts.join(' · ') + (citing ? ' (support rate ' + Math.round((100 * count('supported')) / citing) + '%)' : '') : ''
}

const handlers = {
  'run-start': (e) => status('Researching: ' + e.question + ' (' + e.strategy + ')'),
  plan: (e) => $('plan').append(el('li', {}, e.text, e.queries && e.queries.length ? el('ul', {}, ...e.queries.map((q) => el('li', {}, q))) : '')),
  query: (e) => $('queries').append(el('div', { className: 'query', id: 'query-' + e.queryId }, el('strong', {}, e.query), el('ul', { className: 'results' }, el('li', {}, el('span', {}, 'searching…'))))),
  result: (e) => {
    const list = document.querySelector('#query-' + CSS.escape(e.queryId) + ' .results')
    if (!list) return
    // No results says why: a query the planner dropped after it was searched early is cancelled, not empty.
    const none = !e.error ? 'no results' : e.error.code === 'aborted' ? 'cancelled' : 'search failed: ' + e.error.message
    list.replaceChildren(...(e.results.length ? e.results.map((r) =>
      el('li', {}, link(r.url, {}, r.title || r.url), ' ', el('span', {}, r.snippet))) : [el('li', {}, el('span', { className: 'none' }, none))]))
  },
  page: (e) => {
    const list = e.queryId && document.querySelector('#query-' + CSS.escape(e.queryId) + ' .results')
    if (list) list.append(el('li', { className: 'page' }, el('span', {}, 'read '), link(e.url, {}, e.url), el('span', {}, ' (' + plural(e.chars, 'char') + ')')))
  },
  fact: (e) => {
    const item = el('li', { className: 'fact', id: 'fact-' + e.fact.id }, e.fact.text, ' ',
      ...e.fact.sources.map((url, i) => link(url, { className: 'sources' }, '[source' + (e.fact.sources.length > 1 ? ' ' + (i + 1) : '') + ']')))
    const replaced = (e.supersedes || []).map((id) => $('fact-' + id)).filter(Boolean)
    if (replaced.length) {
      // The new fact takes the place of the first one it supersedes; the others go.
      item.classList.add('replacing')
      replaced[0].replaceWith(item)
      for (const old of replaced.slice(1)) old.remove()
    } else {
      $('facts').append(item)
    }
  },
  recall: (e) => {
    for (const f of e.findings) $('facts').append(el('li', { className: 'fact recalled' }, 'earlier: ' + f.text, ' ', link(f.url, { className: 'sources' }, '[source]')))
  },
  'knowledge-update': (e) => { $('knowledge').textContent = e.knowledge },
  // A long report's contents: each section pending, then streaming, then done, as the answer streams.
  outline: (e) => {
    $('report-title').textContent = e.outline.title
    $('toc-list').replaceChildren(...e.outline.sections.map((s, i) => el('li', { id: 'toc-' + i, className: 'pending', textContent: s.title })))
    $('toc').hidden = false
  },
  'section-start': (e) => { const item = $('toc-' + e.index); if (item) item.className = 'streaming' },
  'section-end': (e) => { const item = $('toc-' + e.index); if (item) item.className = 'done' },
  cost: (e) => { cost = e.total; status() },
  'answer-token': (e) => {
    const answer = $('answer')
    if (e.revised && !revising) {
      // The rewrite without the unsupported sentences streams where the answer was; the first
      // answer, marked, moves below it.
      revising = true
      draft = firstAnswer || { text: answer.textContent, citations: [] }
      $('draft-panel').hidden = false
      renderClaims()
      answer.replaceChildren()
    }
    answer.className = 'streaming'
    answer.append(e.text)
    answer.dataset.tokens = String(Number(answer.dataset.tokens) + 1)
  },
  answer: (e) => {
    $('answer').className = ''
    if (e.revised) {
      renderAnswer(e.text, e.citations)
      return
    }
    firstAnswer = { text: e.text, citations: e.citations }
    renderAnswer(e.text, e.citations)
    renderReport(e.report)
  },
  claim: (e) => {
    claims.set(e.index, e)
    // A claim checked after the answer was shown marks it at once.
    if (firstAnswer && !revising) renderAnswer(firstAnswer.text, firstAnswer.citations)
    renderClaims()
  },
  warning: (e) => $('warnings').append(el('li', { className: 'warning' }, e.code + ': ' + e.message)),
  'run-end': (e) => {
    cost = e.cost
    source.close()
    if (e.reason === 'paused' && e.request) {
      showRequest(e.request)
      status('Paused: the run waits for your decision.')
      document.body.dataset.state = 'paused'
      return
    }
    status(e.reason === 'answered' ? 'Done.' : 'Stopped: ' + e.reason + (e.error ? ' (' + e.error.message + ')' : ''))
    if (conversation) $('follow-up').hidden = false
    document.body.dataset.state = 'ended'
  },
}

// Starts the run and answers where its events stream from. The server starts a run only on a
// POST that carries the token this page was served with; the events are then read with GET.
async function eventsUrl(question) {
  const token = document.querySelector('meta[name=laconic-token]')
  const response = await fetch('/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-laconic-token': token ? token.content : '' },
    body: JSON.stringify(conversation ? { question, conversation } : { question }),
  })
  if (!response.ok) {
    const text = await response.text()
    let message = text.trim()
    try { message = JSON.parse(text).message || message } catch {}
    throw new Error(message)
  }
  const { runId } = await response.json()
  shownRun = runId
  return '/runs/' + encodeURIComponent(runId) + '/events'
}

// What a paused run waits for, as text only: a plan's queries, or a tool call's arguments (its
// sensitive fields arrive redacted).
function requestText(request) {
  if (request.kind === 'plan') return 'The plan waits for approval:\n' + request.text + '\n\nQueries:\n' + request.queries.map((q) => '- ' + q).join('\n')
  if (request.kind === 'tool-call') return 'A tool call waits for approval: ' + request.name + '\n' + JSON.stringify(request.args, null, 2)
  if (request.kind === 'outline') return 'The outline waits for approval: ' + request.outline.title + '\n\n' + request.outline.sections.map((s, i) => (i + 1) + '. ' + s.title + ': ' + s.goal).join('\n')
  return 'The run waits for a decision: ' + JSON.stringify(request, null, 2)
}

function showRequest(request) {
  $('request').textContent = requestText(request)
  const answerable = Boolean(document.querySelector('meta[name=laconic-decisions]'))
  $('answer-request').hidden = !answerable
  if (!answerable) $('request').textContent += '\n\nThis server takes no decisions: resume the run where its checkpoints are.'
  $('decision').hidden = false
}

// Answers the paused run; the run goes on as a new one of the server, followed on this page.
async function decide(action) {
  const token = document.querySelector('meta[name=laconic-token]')
  const decision = action === 'reject' ? { action, reason: $('reason').value.trim() || undefined } : { action }
  const response = await fetch('/runs/' + encodeURIComponent(shownRun) + '/decision', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-laconic-token': token ? token.content : '' },
    body: JSON.stringify(decision),
  })
  if (!response.ok) {
    const text = await response.text()
    let message = text.trim()
    try { message = JSON.parse(text).message || message } catch {}
    status('Could not answer: ' + message)
    return
  }
  const { runId } = await response.json()
  $('decision').hidden = true
  $('reason').value = ''
  shownRun = runId
  document.body.dataset.state = 'running'
  status(action === 'reject' ? 'Rejected; finishing…' : 'Approved; researching…')
  follow('/runs/' + encodeURIComponent(runId) + '/events')
}

async function start(question) {
  if (source) source.close()
  reset()
  shownQuestion = question
  // Under earlier turns, the answer below says which question it answers.
  $('shown-question').textContent = question
  $('shown-question').hidden = $('earlier').hidden
  document.body.dataset.state = 'running'
  status('Connecting…')
  let url
  try {
    url = await eventsUrl(question)
  } catch (error) {
    document.body.dataset.state = 'ended'
    status('Could not start: ' + error.message)
    return
  }
  follow(url)
}

// Draws a run's events; a resumed run goes on where the paused one stopped (its seq continue).
function follow(url) {
  source = new EventSource(url)
  for (const [type, handle] of Object.entries(handlers)) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data)
      // After a reconnection the server resumes after Last-Event-ID; this guards against repeats anyway.
      if (event.seq <= lastSeq) return
      lastSeq = event.seq
      handle(event)
    })
  }
  source.addEventListener('end', () => source.close())
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CONNECTING) status('Connection lost, resuming…')
    else if (document.body.dataset.state === 'running') status('Disconnected.')
  })
}

$('answer-request').addEventListener('submit', (event) => {
  event.preventDefault()
  decide(event.submitter && event.submitter.value === 'reject' ? 'reject' : 'approve')
})

$('ask').addEventListener('submit', (event) => {
  event.preventDefault()
  const question = $('question').value.trim()
  if (!question) return
  // A question asked here starts a new conversation; the follow-up box continues it.
  conversation = followUps ? newConversationId() : null
  $('earlier').replaceChildren()
  $('earlier').hidden = true
  start(question)
})

$('follow-up').addEventListener('submit', (event) => {
  event.preventDefault()
  const question = $('follow-up-question').value.trim()
  if (!question || !conversation) return
  // The run shown so far moves up, as text, above the follow-up's.
  $('earlier').append(el('li', {}, el('div', { className: 'earlier-question' }, shownQuestion), el('div', { className: 'earlier-answer' }, $('answer').textContent)))
  $('earlier').hidden = false
  $('follow-up-question').value = ''
  // The box at the top shows the question being answered (asking it there starts a new conversation).
  $('question').value = question
  start(question)
})
</script>
</body>
</html>`
