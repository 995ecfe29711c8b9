/**
 * First-run guidance (issue 35, item 8): a subcommand after flags is refused rather than asked,
 * mistyped names get "did you mean", and an embedder of the model's backend uses `--endpoint`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCliArgs, SUBCOMMANDS } from '../../src/cli/args.js'
import { checkStrategy } from '../../src/cli/build-agent.js'
import { closestName, didYouMean } from '../../src/cli/did-you-mean.js'
import { resolveEmbedder } from '../../src/cli/embedder.js'
import { helpText } from '../../src/cli/help.js'
import { KB_COMMANDS, runKbCommand } from '../../src/cli/kb.js'
import { OLLAMA_UNREACHABLE_HINT } from '../../src/cli/ollama-models.js'
import { SCALE_OUT_COMMANDS } from '../../src/cli/scale-out/commands.js'
import { UsageError } from '../../src/cli/usage-error.js'
import { strategyNames } from '../../src/index.js'
import { type EmbeddingServer, FAKE_MODEL, startEmbeddingServer } from '../kb/fake-embeddings.js'

describe('a subcommand after flags', () => {
  it('names every command the CLI dispatches on its first word', () => {
    expect([...SUBCOMMANDS].sort()).toEqual(['mcp', 'eval', ...KB_COMMANDS, ...SCALE_OUT_COMMANDS].sort())
  })

  it.each(SUBCOMMANDS)('%s is refused with where it goes, not asked as the question', (name) => {
    const argv = ['--backend', 'openai', '--endpoint', 'localhost:8080', '-m', 'x', name, '--http', '3001']
    expect(() => parseCliArgs(argv.slice(0, 7))).toThrow(UsageError)
    expect(() => parseCliArgs(argv.slice(0, 7))).toThrow(`${name} is a command: put it first (laconic ${name} [options])`)
  })

  it('a quoted question that starts with a command word is still a question', () => {
    const command = parseCliArgs(['-m', 'x', 'mcp servers: what are they?'])
    expect(command).toMatchObject({ kind: 'run', options: { words: ['mcp servers: what are they?'] } })
  })
})

describe('did you mean', () => {
  it('suggests the strategy meant', () => {
    expect(() => checkStrategy('graphreader')).toThrow('unknown strategy "graphreader" (did you mean graph-reader?): choose one of')
    expect(() => checkStrategy('Graph_Reader')).toThrow('(did you mean graph-reader?)')
    expect(() => checkStrategy('nothing-like-it')).toThrow(/unknown strategy "nothing-like-it": choose one of/)
    expect(() => checkStrategy('graph-reader')).not.toThrow()
  })

  it('suggests the value meant for every enum flag', () => {
    expect(() => parseCliArgs(['--backend', 'opnai', 'q'])).toThrow('got "opnai" (did you mean openai?)')
    expect(() => parseCliArgs(['--format', 'jsn', 'q'])).toThrow('(did you mean json?)')
    expect(() => parseCliArgs(['--search', 'google', 'q'])).toThrow(/got "google"$/)
    expect(() => parseCliArgs(['--search', 'bravo', 'q'])).toThrow('(did you mean brave?)')
    expect(() => parseCliArgs(['--kb', 'k', '--embed-backend', 'olama', 'q'])).toThrow('(did you mean ollama?)')
    expect(() => parseCliArgs(['--modle', 'x', 'q'])).toThrow('unknown option --modle (did you mean --model?)')
  })

  it('suggests the flag meant to laconic index and kb', async () => {
    const io = {
      env: {},
      stdout: { write: () => true },
      stderr: { write: () => true },
      readStdin: async () => '',
      interrupt: new AbortController().signal,
      now: () => 0,
    }
    await expect(runKbCommand(['index', './docs', '--kb', 'k', '--embed-modle', 'x'], { ...io, argv: [] })).rejects.toThrow(
      'laconic index takes --kb and the --embed-* flags, not --embed-modle (did you mean --embed-model?)',
    )
  })

  it('suggests only a candidate, and only one close to what was typed', () => {
    const names = strategyNames()
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (typed) => {
        const best = closestName(typed, names)
        if (best === undefined) return didYouMean(typed, names) === ''
        return names.includes(best) && didYouMean(typed, names) === ` (did you mean ${best}?)`
      }),
    )
    for (const name of names) expect(closestName(name, names)).toBe(name)
  })
})

describe('when no Ollama answers', () => {
  it('names every other way to a model and to search offline, not --model', () => {
    expect(OLLAMA_UNREACHABLE_HINT).toContain('--backend openai --endpoint URL')
    expect(OLLAMA_UNREACHABLE_HINT).toContain('--backend local -m')
    expect(OLLAMA_UNREACHABLE_HINT).toContain('--corpus DIR')
    expect(OLLAMA_UNREACHABLE_HINT).not.toContain('--model NAME')
  })
})

describe('--help', () => {
  it('shows laconic mcp --sessions DIR', () => {
    expect(helpText(strategyNames())).toContain('laconic mcp [--http PORT] [--sessions DIR]')
  })
})

describe('--embed-endpoint defaults to --endpoint', () => {
  let embeddings: EmbeddingServer
  let folder: string
  beforeAll(async () => {
    embeddings = await startEmbeddingServer()
    folder = await mkdtemp(join(tmpdir(), 'laconic-embed-endpoint-'))
  })
  afterAll(async () => {
    await embeddings.close()
    await rm(folder, { recursive: true, force: true })
  })

  const flagsOf = (argv: string[]) => {
    const command = parseCliArgs(argv)
    if (command.kind !== 'run') throw new Error('expected a run')
    return command.options.embed
  }

  it('an embedder of the model backend embeds at the model endpoint, and does not record it', async () => {
    const flags = flagsOf([
      '--backend',
      'openai',
      '--endpoint',
      embeddings.url,
      '-m',
      'x',
      '--kb',
      folder,
      '--embed-backend',
      'openai',
      '--embed-model',
      FAKE_MODEL,
      'q',
    ])
    const { embed, record } = await resolveEmbedder(folder, flags, {})
    await embed.embed(['where does this go?'])
    expect(embeddings.texts).toContain('where does this go?')
    expect(record).toEqual({ backend: 'openai', model: FAKE_MODEL })
  })

  it('an embedder of another backend keeps its own default', async () => {
    const flags = flagsOf(['--backend', 'ollama', '--endpoint', embeddings.url, '--kb', folder, '--embed-backend', 'openai', '--embed-model', FAKE_MODEL, 'q'])
    await expect(resolveEmbedder(folder, flags, {})).rejects.toThrow('missing API key for api.openai.com embeddings')
  })
})
