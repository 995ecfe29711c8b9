/**
 * The `laconic` command end to end, as a child process, against a loopback OpenAI-compatible
 * server and a loopback SearXNG: what a user sees on stdout/stderr and the exit code.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ResearchEvent, ResearchResult } from '../../src/index.js'
import { assertEventInvariants } from '../../src/testing/index.js'
import { closedPort, startFakeBackend, type ChatTurn, type FakeBackend, type ScriptedReply } from './fake-backend.js'
import { runCli } from './run-cli.js'
import { roleOf } from '../support/roles.js'

const ANSWER = 'The sky looks blue because air molecules scatter short blue wavelengths of sunlight far more than red ones [1].'
/** What the synthesizer writes (its source cited by the number it was shown), and the knowledge the caller gets (its source by URL). */
const NOTES = 'Rayleigh scattering: air scatters blue light more than red [1].'
const KNOWLEDGE = /Rayleigh scattering: air scatters blue light more than red \(file:\/\/\S+\/sky\.md#why-the-sky-is-blue\)\./
const ANSWER_RE = ANSWER.replace(/[.[\]]/g, '\\$&')
const SECRET = 'sk-test-secret-4242'
const CORPUS_TEXT = 'Sunlight is scattered by the molecules of the air, and blue light is scattered most.'

interface Script {
  /** The planner never decides to answer (to reach the iteration cap). */
  alwaysSearch?: boolean
  /** The finalizer sends a few tokens, then hangs. */
  stallAnswer?: boolean
}

function researcher(script: Script = {}): (turn: ChatTurn) => string | ScriptedReply {
  return (turn) => {
    if (roleOf(turn.system) === 'scratchpad planner') {
      const firstStep = turn.prompt.includes('(none yet)')
      return firstStep || script.alwaysSearch ? 'Action: Search\nQuery: why is the sky blue' : 'Action: Answer'
    }
    if (roleOf(turn.system) === 'scratchpad synthesizer') return NOTES
    if (roleOf(turn.system) === 'scratchpad finalizer') return script.stallAnswer ? { text: ANSWER, stallAfterTokens: 4 } : ANSWER
    if (roleOf(turn.system) === 'claim judge') return '{"verdict": "partial"}'
    return 'an unexpected request'
  }
}

const results = () => [{ title: 'Rayleigh scattering', url: 'https://example.org/rayleigh', snippet: 'Blue light is scattered more.' }]

let backend: FakeBackend
let stalling: FakeBackend
let capped: FakeBackend
let folder: string
let corpus: string

beforeAll(async () => {
  backend = await startFakeBackend({ reply: researcher(), results })
  stalling = await startFakeBackend({ reply: researcher({ stallAnswer: true }), results })
  capped = await startFakeBackend({ reply: researcher({ alwaysSearch: true }), results })
  folder = await mkdtemp(join(tmpdir(), 'laconic-cli-'))
  corpus = join(folder, 'corpus')
  await mkdir(corpus)
  await writeFile(join(corpus, 'sky.md'), `# Why the sky is blue\n\n${CORPUS_TEXT}\n`)
  await writeFile(join(corpus, 'bread.md'), '# Baking bread\n\nYeast makes dough rise by producing carbon dioxide.\n')
})

afterAll(async () => {
  await Promise.all([backend.close(), stalling.close(), capped.close()])
  await rm(folder, { recursive: true, force: true })
})

/** The flags that point the CLI at a fake model and the temp corpus; `--endpoint` is the bare host, so /v1 is appended. */
const against = (b: FakeBackend) => ['--backend', 'openai', '--endpoint', b.url, '--model', 'fake-model', '--corpus', corpus]

describe('laconic, end to end', { timeout: 30_000 }, () => {
  it('--output FILE.md writes the answer with its numbered sources as markdown', async () => {
    const file = join(folder, 'answer.md')
    const out = await runCli([...against(backend), '--output', file, 'Why is the sky blue?'])
    expect(out.code).toBe(0)
    const markdown = await readFile(file, 'utf8')
    expect(markdown.startsWith('# Why is the sky blue?\n\n')).toBe(true)
    expect(markdown).toContain(ANSWER)
    expect(markdown).toMatch(/\n## Sources\n\n1\. Why the sky is blue — <file:[^>]*sky\.md[^>]*>\n$/)
    expect(out.stderr).toContain(`answer written to ${file}`)
  })

  it('pretty output without a TTY: the streamed answer on stdout, plain progress lines on stderr, exit 0', async () => {
    const seen = backend.turns.length
    const out = await runCli([...against(backend), 'Why is the sky blue?'])
    expect(out.code).toBe(0)
    // The local corpus was searched: its text reached the synthesizer, the bread file did not.
    const synthesis = backend.turns.slice(seen).find((t) => roleOf(t.system) === 'scratchpad synthesizer')
    expect(synthesis?.prompt).toContain('blue light is scattered most')
    expect(synthesis?.prompt).not.toContain('Yeast')
    expect(out.stdout).toMatch(new RegExp(`^${ANSWER_RE}\n\nSources:\n\\[1\\] .+ — \\S+\n$`))
    expect(out.stderr).toContain('[start] scratchpad: Why is the sky blue?')
    expect(out.stderr).toContain('[query q1] why is the sky blue')
    expect(out.stderr).toContain('[result q1] 1 result')
    expect(out.stderr).toMatch(/\[done\] answered · 1 query · [\d.]+s · \$0 · 4 model calls/)
    expect(out.stderr).not.toContain('\u001b[') // no ANSI without a terminal
  })

  it('--format ndjson: one event per line, and the stream passes every invariant', async () => {
    const out = await runCli([...against(backend), '--format', 'ndjson', 'Why is the sky blue?'])
    expect(out.code).toBe(0)
    const events = out.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as ResearchEvent)
    assertEventInvariants(events)
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['run-start', 'query', 'result', 'knowledge-update', 'answer-token', 'answer', 'run-end']))
    expect(events.find((e) => e.type === 'answer')).toMatchObject({ text: ANSWER })
    expect(out.stderr).toBe('')
  })

  it('--format json: the final ResearchResult', async () => {
    const out = await runCli([...against(backend), '--format', 'json', 'Why is the sky blue?'])
    expect(out.code).toBe(0)
    const result = JSON.parse(out.stdout) as ResearchResult
    expect(result).toMatchObject({ answer: ANSWER, reason: 'answered', knowledge: expect.stringMatching(new RegExp(`^${KNOWLEDGE.source}$`)) })
    // Scratchpad lists the source its answer cites: the corpus file its notes came from.
    expect(result.citations).toEqual([expect.objectContaining({ index: 1, url: expect.stringMatching(/^file:.*sky\.md/) })])
    expect(result.cost.llmCalls).toBe(4) // planner, synthesizer, planner, finalizer
  })

  it('--verify: the answer is checked against the text its source showed; ndjson carries the claim, pretty lists it after the sources', async () => {
    const out = await runCli([...against(backend), '--verify', '--format', 'ndjson', 'Why is the sky blue?'])
    expect(out.code).toBe(0)
    const events = assertEventInvariants(
      out.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as ResearchEvent),
    )
    // Half its words are in the corpus text: the judge (role verifier, the same model) decides.
    expect(events.filter((e) => e.type === 'claim')).toEqual([expect.objectContaining({ index: 0, text: ANSWER, citations: [1], verdict: 'partial' })])
    expect(events.filter((e) => e.type === 'llm-call').map((e) => e.role)).toContain('verifier')
    const pretty = await runCli([...against(backend), '--verify', 'Why is the sky blue?'])
    expect(pretty.code).toBe(0)
    expect(pretty.stdout).toContain('\nClaims checked: 1 partial (support rate 0%)\n  ~ The sky looks blue because')
  })

  it('--search searxng queries the instance given by --searxng-url', async () => {
    const searched = backend.searches.length
    const out = await runCli([
      '--backend',
      'openai',
      '--endpoint',
      `${backend.url}/v1`,
      '-m',
      'fake-model',
      '--search',
      'searxng',
      '--searxng-url',
      backend.url,
      '--no-fetch',
      'Why is the sky blue?',
    ])
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(new RegExp(`^${ANSWER_RE}\n\nSources:\n\\[1\\] .+ — \\S+\n$`))
    expect(backend.searches.slice(searched)).toEqual(['why is the sky blue'])
  })

  it('--serve serves the live page and streams runs as Server-Sent Events until Ctrl-C (exit 130); the corpus sources a run named open as text', async () => {
    let page = ''
    let body = ''
    let source = { status: 0, type: '', text: '' }
    let unseen = 0
    const out = await runCli([...against(backend), '--serve', '0'], {
      onStderr: (all, child) => {
        const url = /live page on (http:\/\/127\.0\.0\.1:\d+)\//.exec(all)?.[1]
        if (!url || body) return
        body = 'pending'
        let run = ''
        void fetch(`${url}/`)
          .then((response) => response.text())
          .then((html) => (page = html))
          // What the page does: POST the question with its token, then read the run's events.
          .then(() =>
            fetch(`${url}/runs`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-laconic-token': /name="laconic-token" content="([^"]+)"/.exec(page)?.[1] ?? '' },
              body: JSON.stringify({ question: 'Why is the sky blue?' }),
            }),
          )
          .then((response) => response.json() as Promise<{ runId: string }>)
          .then((started) => {
            run = started.runId
            return fetch(`${url}/runs/${run}/events`)
          })
          .then((response) => response.text())
          .then(async (text) => {
            body = text
            // The source link the page would draw for the corpus file the run found.
            const named = /"url":"(file:[^"]*sky\.md[^"]*)"/.exec(text)?.[1] ?? ''
            const view = await fetch(`${url}/runs/${run}/source?url=${encodeURIComponent(named)}`)
            source = { status: view.status, type: view.headers.get('content-type') ?? '', text: await view.text() }
            const bread = named.replace(/sky\.md.*$/, 'bread.md')
            unseen = (await fetch(`${url}/runs/${run}/source?url=${encodeURIComponent(bread)}`)).status
          })
          .finally(() => child.kill('SIGINT'))
      },
    })
    expect(out.code).toBe(130)
    expect(page).toContain('<title>laconic · live research</title>')
    expect(page).toContain("await fetch('/runs', {")
    expect(page).toContain('<meta name="laconic-source-view" content="yes">')
    expect(body).toContain('event: run-start')
    expect(body).toContain('event: answer\n')
    expect(body).toContain('event: run-end')
    // The corpus (the same one the run searched) serves the file's text, as plain text...
    expect(source).toMatchObject({ status: 200, type: 'text/plain; charset=utf-8' })
    expect(source.text).toContain(CORPUS_TEXT)
    // ...and only the files the run named: the bread file was in the corpus but not in its results.
    expect(unseen).toBe(404)
  })

  it('the iteration cap gives a best-effort answer and exit code 3', async () => {
    const out = await runCli([...against(capped), '--max-steps', '1', 'Why is the sky blue?'])
    expect(out.code).toBe(3)
    expect(out.stdout).toContain(ANSWER)
    expect(out.stderr).toContain('[warning max-iterations]')
    expect(out.stderr).toContain('[done] best-effort answer')
  })

  it('SIGINT mid-answer aborts the run, prints what was gathered, and exits 130', async () => {
    const out = await runCli([...against(stalling), 'Why is the sky blue?'], { interruptWhenStdout: 'The sky looks' })
    expect(out.code).toBe(130)
    expect(out.stdout.startsWith('The sky looks blue')).toBe(true)
    expect(out.stdout).not.toContain(ANSWER)
    expect(out.stdout).toMatch(new RegExp(`Notes so far:\n${KNOWLEDGE.source}`))
    expect(out.stderr).toContain('[done] interrupted')
  })

  it('--prompt FILE with --var fills {{KEY}}, and --knowledge goes in and is written back', async () => {
    const prompt = join(folder, 'question.txt')
    const knowledge = join(folder, 'knowledge.txt')
    await writeFile(prompt, 'Why is the {{THING}} blue?\n')
    await writeFile(knowledge, 'PRIOR: sunlight holds every colour.\n')
    const seen = backend.turns.length
    const out = await runCli([...against(backend), '--prompt', prompt, '--var', 'THING=sky', '--knowledge', knowledge, '--format', 'ndjson'])
    expect(out.code).toBe(0)
    const start = JSON.parse(out.stdout.split('\n')[0] as string) as ResearchEvent
    expect(start).toMatchObject({ type: 'run-start', question: 'Why is the sky blue?' })
    const turns = backend.turns.slice(seen)
    expect(turns[0]?.prompt).toContain('PRIOR: sunlight holds every colour.')
    expect(await readFile(knowledge, 'utf8')).toMatch(new RegExp(`^${KNOWLEDGE.source}\n$`))
  })

  it('--debug prints every prompt and reply to stderr with the API key redacted', async () => {
    // json keeps stderr for the debug output alone.
    const out = await runCli([...against(backend), '--format', 'json', '--api-key', SECRET, '--debug', `Is ${SECRET} a colour?`])
    expect(out.code).toBe(0)
    expect(out.stderr).toContain('── #1 fake-model system ──')
    expect(out.stderr).toContain('── #1 reply ──\nAction: Search')
    expect(out.stderr).toContain('Is [redacted] a colour?')
    expect(out.stderr).not.toContain(SECRET)
  })

  it.each([
    [[], 'no question: pass it as words'],
    [['--format', 'xml', 'q'], '--format must be one of pretty, ndjson, json; got "xml"'],
    [['--strategy', 'nope', 'q'], 'unknown strategy "nope": choose one of scratchpad'],
    [['--max-steps', 'ten', 'q'], '--max-steps must be a whole number >= 1; got "ten"'],
    [['--modle', 'x', 'q'], 'unknown option --modle (did you mean --model?)'],
    [['--backend', 'anthropic', '--model', 'claude', 'q'], 'missing API key for Anthropic: pass --api-key or set ANTHROPIC_API_KEY'],
    [['--backend', 'openai', 'q'], 'missing API key for api.openai.com'],
    [['--search', 'brave', '-m', 'x', 'q'], '--search brave needs --brave-key KEY (or BRAVE_API_KEY)'],
    [['--prompt', '/nonexistent/q.txt'], 'cannot read --prompt /nonexistent/q.txt: no such file'],
  ])('usage error %j exits 2 with one line', async (args, message) => {
    const out = await runCli(args)
    expect(out.code).toBe(2)
    expect(out.stdout).toBe('')
    expect(out.stderr).toContain(message)
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1)
  })

  it('an unreachable OpenAI-compatible backend exits 1 with its URL in one line, no stack trace', async () => {
    const port = await closedPort()
    const out = await runCli([
      '--backend',
      'openai',
      '--endpoint',
      `http://127.0.0.1:${port}/v1`,
      '-m',
      'x',
      '--search',
      'searxng',
      '--searxng-url',
      `http://127.0.0.1:${port}`,
      'q',
    ])
    expect(out.code).toBe(1)
    const errors = out.stderr.split('\n').filter((line) => line.startsWith('laconic: error:'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(`http://127.0.0.1:${port}/v1/chat/completions`)
    expect(out.stderr).not.toMatch(/^\s+at /m)
  })

  it('an unreachable Ollama, asked for its models, exits 1 naming the URL and what to do', async () => {
    const port = await closedPort()
    const out = await runCli(['--endpoint', `127.0.0.1:${port}`, 'q'])
    expect(out.code).toBe(1)
    expect(out.stderr).toContain(`laconic: error: cannot reach Ollama at http://127.0.0.1:${port}/api/tags`)
    expect(out.stderr).toContain('is `ollama serve` running?')
    expect(out.stderr).toContain('--backend local -m hf:')
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1)
  })

  it('--version and --help', async () => {
    const version = await runCli(['--version'])
    expect(version.code).toBe(0)
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
    const help = await runCli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Examples:')
    expect(help.stdout).toContain('--strategy NAME')
  })
})
