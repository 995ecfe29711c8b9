/**
 * Records the offline eval sample's cassette (`npm run eval:sample`): `laconic eval` over
 * examples/eval/questions.jsonl with the local corpus beside it, its model a loopback
 * OpenAI-compatible server that answers as the extractive model of test/support (no language
 * model), priced per call like a small hosted model. Re-record whenever a strategy's prompts
 * change: the sample's replay (test/eval/sample.test.ts) then names the first request it lacks.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../src/cli/cli.js'
import { estimateTokens } from '../src/core/util/text.js'
import { readResults, summarize } from '../src/eval/index.js'
import { extractiveReply } from '../test/support/extractive-model.js'

const server = createServer(async (req, res) => {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { messages: { role: string; content: string }[] }
  const system = body.messages.find((m) => m.role === 'system')?.content ?? ''
  const prompt = body.messages.find((m) => m.role === 'user')?.content ?? ''
  const text = extractiveReply({ system, prompt })
  const promptTokens = estimateTokens(system + prompt)
  const completionTokens = estimateTokens(text)
  // Priced like a small hosted model ($0.15 / $0.60 per million tokens), reported as OpenRouter reports a call's cost.
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens, cost: (promptTokens * 0.15 + completionTokens * 0.6) / 1e6 }
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  for (const piece of text.match(/\s*\S+/g) ?? []) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`)
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`)
  res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`)
  res.end('data: [DONE]\n\n')
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address() as AddressInfo
const out = await mkdtemp(join(tmpdir(), 'laconic-eval-sample-'))
await rm('examples/eval/cassette', { recursive: true, force: true })
const code = await runCli({
  argv: [
    'eval',
    'examples/eval/questions.jsonl',
    '--out',
    out,
    '--corpus',
    'examples/eval/corpus',
    '--cassette',
    'examples/eval/cassette',
    '--record',
    '--backend',
    'openai',
    '--endpoint',
    `http://127.0.0.1:${port}`,
    '-m',
    'extractive',
  ],
  env: {},
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin: async () => '',
  interrupt: new AbortController().signal,
  now: Date.now,
})
server.close()
// What the replay must reproduce (wall times aside): test/eval/sample.test.ts compares with it.
const recorded = summarize(await readResults(out)).map(({ p50Ms: _p50, p95Ms: _p95, ...rest }) => rest)
await writeFile('examples/eval/recorded-summary.json', `${JSON.stringify(recorded, null, 2)}\n`)
await rm(out, { recursive: true, force: true })
process.exitCode = code
