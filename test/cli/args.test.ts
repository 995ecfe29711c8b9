import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DEFAULT_SERVE_PORT, FLAG_NAMES, parseCliArgs, type CliOptions } from '../../src/cli/args.js'
import { UsageError } from '../../src/cli/usage-error.js'

const run = (argv: string[]): CliOptions => {
  const command = parseCliArgs(argv)
  if (command.kind !== 'run') throw new Error(`expected a run, got ${command.kind}`)
  return command.options
}

describe('--allow, --deny, --after, --before', () => {
  it("become the run's sources: domains repeatable or comma-separated, dates as given", () => {
    expect(run(['q']).sources).toBeUndefined()
    expect(
      run(['--allow', 'example.com,arxiv.org', '--allow', 'nih.gov', '--deny', 'ads.example.com', '--after', '2024-01', '--before', '2025', 'q']),
    ).toMatchObject({
      sources: { allow: ['example.com', 'arxiv.org', 'nih.gov'], deny: ['ads.example.com'], after: '2024-01', before: '2025' },
      words: ['q'],
    })
  })
  it('refuses a date or domain that is not one, naming the flag', () => {
    expect(() => run(['--after', 'last week', 'q'])).toThrow(UsageError)
    expect(() => run(['--after', 'last week', 'q'])).toThrow(/--after must be an ISO date/)
    expect(() => run(['--deny', 'not a domain', 'q'])).toThrow(/--deny/)
    expect(() => run(['--after', '2025', '--before', '2024', 'q'])).toThrow(/--after .* is later than --before/)
  })
})

describe('--language', () => {
  it('takes a BCP 47 tag in its canonical form and refuses anything else', () => {
    expect(run(['q']).language).toBeUndefined()
    expect(run(['--language', 'PT-br', 'q'])).toMatchObject({ language: 'pt-BR', words: ['q'] })
    expect(() => run(['--language', 'en_US', 'q'])).toThrow(/--language must be a BCP 47 language tag/)
  })
})

describe('--verify', () => {
  it('takes an optional mode: annotate when none follows, a word after it stays the question', () => {
    expect(run(['q']).verify).toBeUndefined()
    expect(run(['--verify', 'q'])).toMatchObject({ verify: 'annotate', words: ['q'] })
    expect(run(['--verify', 'revise', 'q'])).toMatchObject({ verify: 'revise', words: ['q'] })
    expect(run(['--verify=annotate', 'q']).verify).toBe('annotate')
    expect(() => run(['--verify=strict', 'q'])).toThrow(/--verify must be one of annotate, revise/)
  })
})

describe('--price and --max-cost', () => {
  it('read dollars per million tokens and a budget', () => {
    expect(run(['--price', '0.15,0.60', '--max-cost', '0.05', 'q'])).toMatchObject({
      price: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      maxCost: 0.05,
    })
  })
  it('refuse what is not a price pair or a positive amount', () => {
    for (const argv of [
      ['--price', '0.15', 'q'],
      ['--price', 'a,b', 'q'],
      ['--price', '1,-2', 'q'],
      ['--max-cost', '0', 'q'],
      ['--max-cost', 'lots', 'q'],
    ]) {
      expect(() => parseCliArgs(argv), argv.join(' ')).toThrow(UsageError)
    }
  })
})

describe('parseCliArgs', () => {
  it('defaults', () => {
    expect(run(['why', 'is', 'the', 'sky', 'blue?'])).toMatchObject({
      words: ['why', 'is', 'the', 'sky', 'blue?'],
      backend: 'ollama',
      search: [{ name: 'duckduckgo' }],
      fetch: true,
      format: 'pretty',
      debug: false,
      vars: {},
      servePort: undefined,
    })
  })

  it('every flag lands where it belongs', () => {
    const options = run([
      '--backend',
      'openai',
      '-m',
      'gpt-4o-mini',
      '--endpoint',
      'localhost:8080',
      '--api-key',
      'k',
      '-s',
      'graph-reader',
      '--max-steps',
      '6',
      '--concurrency',
      '2',
      '--search',
      'tavily',
      '--tavily-key',
      't',
      '--no-fetch',
      '--knowledge',
      'k.txt',
      '-f',
      'ndjson',
      '--var',
      'A=1',
      '--var',
      'B=x=y',
      '--debug',
      'q',
    ])
    expect(options).toMatchObject({
      backend: 'openai',
      model: 'gpt-4o-mini',
      endpoint: 'localhost:8080',
      apiKey: 'k',
      strategy: 'graph-reader',
      maxSteps: 6,
      concurrency: 2,
      search: [{ name: 'tavily' }],
      tavilyKey: 't',
      fetch: false,
      knowledge: 'k.txt',
      format: 'ndjson',
      vars: { A: '1', B: 'x=y' },
      debug: true,
      words: ['q'],
    })
  })

  it('--browser turns the browser fallback on, and conflicts with runs that read no web page', () => {
    expect(run(['q']).browser).toBe(false)
    expect(run(['--browser', 'q']).browser).toBe(true)
    expect(() => run(['--browser', '--no-fetch', 'q'])).toThrow('--browser reads pages, and --no-fetch reads none')
    expect(() => run(['--browser', '--corpus', 'docs', 'q'])).toThrow('this run reads only local documents')
    expect(() => run(['--browser', '--kb', 'kb', 'q'])).toThrow('this run reads only local documents')
    expect(run(['--browser', '--kb', 'kb', '--search', 'duckduckgo', 'q']).browser).toBe(true)
  })

  it('--corpus implies --search local, and conflicts with another search', () => {
    expect(run(['--corpus', 'docs', 'q'])).toMatchObject({ search: [{ name: 'local' }], corpus: 'docs' })
    expect(() => run(['--corpus', 'docs', '--search', 'brave', 'q'])).toThrow('cannot be combined with --search brave')
    expect(() => run(['--search', 'local', 'q'])).toThrow('--search local needs --corpus DIR')
  })

  it('--search takes one provider or several, and wikipedia:LANG for another Wikipedia', () => {
    expect(run(['--search', 'arxiv', 'q']).search).toEqual([{ name: 'arxiv' }])
    expect(run(['--search', 'arxiv, wikipedia:DE ,duckduckgo', 'q']).search).toEqual([
      { name: 'arxiv' },
      { name: 'wikipedia', lang: 'de' },
      { name: 'duckduckgo' },
    ])
    expect(run(['--search', 'wikipedia,wikipedia:de', 'q']).search).toEqual([{ name: 'wikipedia' }, { name: 'wikipedia', lang: 'de' }])
  })

  it.each([
    [
      'arxiv,pubmd',
      '--search must name duckduckgo, brave, tavily, searxng, local, arxiv, openalex, semanticscholar, pubmed, wikipedia; got "pubmd" (did you mean pubmed?)',
    ],
    ['semantic-scholar', '(did you mean semanticscholar?)'],
    ['arxiv,,pubmed', '--search takes names separated by commas'],
    ['arxiv:en', 'only wikipedia takes a language'],
    ['wikipedia:evil.example', 'must be a Wikipedia language code'],
    ['arxiv,arxiv', '--search names arxiv twice'],
    ['wikipedia,wikipedia:en', '--search names wikipedia twice'],
  ])('--search %s is a usage error', (value, message) => {
    expect(() => run(['--search', value, 'q'])).toThrow(message)
  })

  it('--search local stays alone', () => {
    expect(() => run(['--corpus', 'docs', '--search', 'local,arxiv', 'q'])).toThrow('cannot be combined with other providers')
  })

  it('--serve takes an optional port', () => {
    expect(run(['--serve']).servePort).toBe(DEFAULT_SERVE_PORT)
    expect(run(['--serve', '8080']).servePort).toBe(8080)
    expect(run(['--serve=9000']).servePort).toBe(9000)
    // A word after --serve is not a port but a question, which --serve does not take.
    expect(() => run(['--serve', 'why'])).toThrow('give no question')
    expect(() => run(['--serve', '70000'])).toThrow('at most 65535')
  })

  it('--help and --version win over everything else', () => {
    expect(parseCliArgs(['q', '--help'])).toEqual({ kind: 'help' })
    expect(parseCliArgs(['-v'])).toEqual({ kind: 'version' })
  })

  it.each([
    [['--backend', 'gpt'], '--backend must be one of ollama, openai, anthropic, local; got "gpt"'],
    [['--concurrency', '0', 'q'], '--concurrency must be a whole number >= 1; got "0"'],
    [['--max-steps', '2.5', 'q'], '--max-steps must be a whole number >= 1; got "2.5"'],
    [['--max-iterations', '3', 'q'], '--max-iterations was renamed: use --max-steps'],
    [['--graph-max-steps', '3', 'q'], '--graph-max-steps was renamed: use --max-steps'],
    [['--var', 'NOEQUALS', 'q'], '--var expects KEY=VALUE; got "NOEQUALS"'],
    [['--var', '=x', 'q'], '--var expects KEY=VALUE; got "=x"'],
    [['--prompt', 'f.txt', 'words'], 'either as words or with --prompt FILE, not both'],
    [['--model'], '--model needs a value'],
    [['--model', ' ', 'q'], '--model is empty'],
    [['--serach', 'brave'], 'unknown option --serach (did you mean --search?)'],
    [['--zzzzzzzz'], 'unknown option --zzzzzzzz; see laconic --help'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError)
    expect(() => parseCliArgs(argv)).toThrow(message)
  })

  it('any argv either parses or is a UsageError, never another exception', () => {
    const token = fc.oneof(
      fc.constantFrom(...FLAG_NAMES.map((f) => `--${f}`), '-m', '-s', '-f', '-h', '-v', '--', '-', '--serve=', '--no-fetch=1'),
      fc.string({ maxLength: 12 }),
      fc.integer({ min: -5, max: 100_000 }).map(String),
    )
    fc.assert(
      fc.property(fc.array(token, { maxLength: 10 }), (argv) => {
        try {
          parseCliArgs(argv)
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError)
        }
      }),
      { numRuns: 500 },
    )
  })
})
