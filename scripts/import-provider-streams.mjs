#!/usr/bin/env node
/**
 * Imports recorded provider streams from local git mirrors of public repositories into
 * test/fixtures/provider-streams/<family>/, each beside a sidecar JSON with its provenance
 * (repo, path, commit) and the expected result, read straight off the recorded payloads.
 *
 *   node scripts/import-provider-streams.mjs <mirrors-dir>
 *
 * <mirrors-dir> holds bare mirrors named owner+name/repo (vercel+ai, attogram+ollama-bash-lib).
 * Maintenance only: tests read the committed files and never touch the network.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const mirrors = process.argv[2]
if (!mirrors) throw new Error('usage: import-provider-streams.mjs <mirrors-dir>')
const OUT = new URL('../test/fixtures/provider-streams/', import.meta.url).pathname

const git = (repo, ...args) =>
  execFileSync('git', ['--git-dir', join(mirrors, repo.replace('/', '+'), 'repo'), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    stdio: ['ignore', 'pipe', 'ignore'],
  })

/** The newest commit at which `path` exists, with its text (files later deleted included). */
function newest(repo, path) {
  for (const commit of git(repo, 'log', '--all', '--format=%H', '--', path).split('\n').filter(Boolean)) {
    try {
      return { commit, text: git(repo, 'show', `${commit}:${path}`) }
    } catch {
      // deleted in this commit: try the one before
    }
  }
  return undefined // not in the mirror (a partial clone may lack the blob)
}

const V = 'packages/'
const OPENAI = [
  'openai/src/chat/__fixtures__/openai-text.chunks.txt',
  'openai/src/chat/__fixtures__/azure-model-router.1.chunks.txt',
  'mistral/src/__fixtures__/mistral-text.chunks.txt',
  'mistral/src/__fixtures__/mistral-reasoning.chunks.txt',
  'mistral/src/__fixtures__/mistral-tool-call.chunks.txt',
  'mistral/src/__fixtures__/mistral-incremental-tool-call.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/issue-13703-mistral-thinking.chunks.txt',
  'groq/src/__fixtures__/groq-text.chunks.txt',
  'groq/src/__fixtures__/groq-reasoning.chunks.txt',
  'groq/src/__fixtures__/groq-tool-call.chunks.txt',
  'groq/src/__fixtures__/groq-json-tool-call.chunks.txt',
  'deepseek/src/chat/__fixtures__/deepseek-text.chunks.txt',
  'deepseek/src/chat/__fixtures__/deepseek-reasoning.chunks.txt',
  'deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt',
  'azure/src/__fixtures__/azure-deepseek-reasoning.1.chunks.txt',
  'alibaba/src/__fixtures__/alibaba-text.chunks.txt',
  'alibaba/src/__fixtures__/alibaba-reasoning.chunks.txt',
  'alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt',
  'alibaba/src/__fixtures__/alibaba-reasoning-tool-call.chunks.txt',
  'alibaba/src/__fixtures__/alibaba-reasoning-tool-call-qwen3-coder.chunks.txt',
  'perplexity/src/__fixtures__/perplexity-text.chunks.txt',
  'perplexity/src/__fixtures__/perplexity-citations.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/xai-text.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/xai-tool-call.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/openai-compatible-text.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/openai-compatible-tool-call.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/issue-15789-step-1.chunks.txt',
  'openai-compatible/src/chat/__fixtures__/issue-15789-step-2.chunks.txt',
  'xai/src/__fixtures__/xai-text.chunks.txt',
  'xai/src/__fixtures__/xai-tool-call.chunks.txt',
  'siliconflow/src/chat/__fixtures__/siliconflow-text.chunks.txt',
  'siliconflow/src/chat/__fixtures__/siliconflow-tool-call.chunks.txt',
].map((p) => V + p)

const ANTHROPIC = [
  'anthropic-text.chunks.txt',
  'anthropic-refusal.chunks.txt',
  'anthropic-issue-5942-cache-read.chunks.txt',
  'anthropic-issue-5942-cache-write.chunks.txt',
  'anthropic-clear-thinking.1.chunks.txt',
  'anthropic-claude-sonnet-5-reasoning-generic.chunks.txt',
  'anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt',
  'anthropic-clear-tool-uses.1.chunks.txt',
  'anthropic-tool-no-args.chunks.txt',
  'anthropic-json-tool.1.chunks.txt',
  'anthropic-json-tool.2.chunks.txt',
  'anthropic-json-output-format.1.chunks.txt',
  'anthropic-json-other-tool.1.chunks.txt',
  'anthropic-web-search-tool.1.chunks.txt',
  'anthropic-web-fetch-tool.1.chunks.txt',
  'anthropic-code-execution-20250825.1.chunks.txt',
  'anthropic-code-execution-20250825.2.chunks.txt',
  'anthropic-mcp.1.chunks.txt',
  'anthropic-compaction.1.chunks.txt',
  'anthropic-fallback.chunks.txt',
  'anthropic-fallback-mid-output.chunks.txt',
  'anthropic-message-delta-input-tokens.chunks.txt',
  'anthropic-tool-search-regex.1.chunks.txt',
  'anthropic-tool-search-bm25.1.chunks.txt',
  'anthropic-programmatic-tool-calling.1.chunks.txt',
  'anthropic-combined-context-editing.1.chunks.txt',
  'anthropic-issue-11719-quoted-tool-input.chunks.txt',
  'issue-10781.1.chunks.txt',
].map((p) => `${V}anthropic/src/__fixtures__/${p}`)

/** Upstream test data written by hand rather than recorded: kept out of the corpus. */
function looksHandWritten(payloads) {
  const first = payloads[0] ?? {}
  const id = String(first.id ?? first.message?.id ?? first.response?.id ?? '')
  const created = first.created
  return /^(?:chatcmpl-(?:\d{1,4}|test|stream)|abc123|test-\d+)$/.test(id) || created === 1234567890 || first.model === 'test-model'
}

const lines = (text) => text.split('\n').filter((line) => line.trim() !== '')

/** OpenAI-compatible chat-completions chunks: what a reader of the payloads sees. */
function expectOpenAI(payloads) {
  const out = { text: '', reasoning: '', refusal: '', usage: undefined, error: undefined }
  for (const chunk of payloads) {
    if (chunk.error) out.error ??= typeof chunk.error === 'string' ? chunk.error : chunk.error.message
    const delta = chunk.choices?.[0]?.delta ?? {}
    if (typeof delta.reasoning_content === 'string') out.reasoning += delta.reasoning_content
    else if (typeof delta.reasoning === 'string') out.reasoning += delta.reasoning
    if (typeof delta.content === 'string') out.text += delta.content
    if (Array.isArray(delta.content)) {
      for (const part of delta.content) {
        if (part?.type === 'text' && typeof part.text === 'string') out.text += part.text
        if (part?.type === 'thinking') {
          for (const inner of [part.thinking].flat()) {
            if (typeof inner === 'string') out.reasoning += inner
            else if (typeof inner?.text === 'string') out.reasoning += inner.text
          }
        }
      }
    }
    if (typeof delta.refusal === 'string') out.refusal += delta.refusal
    const usage = chunk.usage ?? chunk.x_groq?.usage
    if (usage && typeof usage === 'object') {
      const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.cached_tokens
      out.usage = {
        inputTokens: usage.prompt_tokens,
        outputTokens: usage.completion_tokens,
        ...(typeof cached === 'number' && cached > 0 && { cachedInputTokens: cached }),
      }
    }
  }
  return out
}

/** Anthropic Messages events. */
function expectAnthropic(payloads) {
  const out = { text: '', reasoning: '', refusal: '', usage: undefined, error: undefined }
  const counts = {}
  let stop
  for (const event of payloads) {
    if (event.type === 'message_start') Object.assign(counts, event.message?.usage)
    if (event.type === 'message_delta') {
      for (const [key, value] of Object.entries(event.usage ?? {})) if (typeof value === 'number') counts[key] = value
      stop = event.delta?.stop_reason ?? stop
      if (stop === 'refusal') out.refusal = event.delta?.stop_details?.explanation ?? ''
    }
    if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') out.text += event.delta.text
    if (event.type === 'content_block_delta' && event.delta?.type === 'thinking_delta') out.reasoning += event.delta.thinking
    if (event.type === 'error') out.error ??= event.error?.message
  }
  if (stop === 'refusal' && out.refusal === '') out.refusal = out.text
  if (Object.keys(counts).length > 0) {
    const read = counts.cache_read_input_tokens ?? 0
    const write = counts.cache_creation_input_tokens ?? 0
    out.usage = {
      inputTokens: (counts.input_tokens ?? 0) + read + write,
      outputTokens: counts.output_tokens,
      ...(read > 0 && { cachedInputTokens: read }),
      ...(write > 0 && { cacheWriteTokens: write }),
    }
  }
  return out
}

/** Ollama `/api/generate` or `/api/chat` NDJSON lines. */
function expectOllama(payloads) {
  const out = { text: '', reasoning: '', refusal: '', usage: undefined, error: undefined }
  for (const line of payloads) {
    const message = line.message ?? line
    if (typeof message.thinking === 'string') out.reasoning += message.thinking
    if (typeof message.content === 'string') out.text += message.content
    else if (typeof line.response === 'string') out.text += line.response
    if (typeof line.error === 'string') out.error ??= line.error
    if (line.done === true && (line.prompt_eval_count !== undefined || line.eval_count !== undefined)) {
      out.usage = {
        ...(line.prompt_eval_count !== undefined && { inputTokens: line.prompt_eval_count }),
        ...(line.eval_count !== undefined && { outputTokens: line.eval_count }),
      }
    }
  }
  return out
}

function tidy(expect) {
  return Object.fromEntries(Object.entries(expect).filter(([, value]) => value !== undefined && value !== ''))
}

function save(family, name, body, source, transform, expect, extension) {
  mkdirSync(join(OUT, family), { recursive: true })
  writeFileSync(join(OUT, family, `${name}.${extension}`), body)
  writeFileSync(join(OUT, family, `${name}.json`), `${JSON.stringify({ source, transform, expect: tidy(expect) }, null, 2)}\n`)
}

const skipped = []
const counts = { 'openai-compatible': 0, anthropic: 0, ollama: 0 }

for (const path of OPENAI) {
  const found = newest('vercel/ai', path)
  if (!found) {
    skipped.push(`${path} (absent)`)
    continue
  }
  const { commit, text } = found
  const payloads = lines(text).map((line) => JSON.parse(line))
  if (looksHandWritten(payloads)) {
    skipped.push(path)
    continue
  }
  const name = `${path.split('/')[1]}--${path
    .split('/')
    .at(-1)
    .replace(/\.chunks\.txt$/, '')}`
  const body = `${lines(text)
    .map((line) => `data: ${line}\n\n`)
    .join('')}data: [DONE]\n\n`
  save(
    'openai-compatible',
    name,
    body,
    { repo: 'vercel/ai', path, commit },
    'each recorded payload line sent as one SSE `data:` event, then `data: [DONE]`',
    expectOpenAI(payloads),
    'sse',
  )
  counts['openai-compatible']++
}

for (const path of ANTHROPIC) {
  const found = newest('vercel/ai', path)
  if (!found) {
    skipped.push(`${path} (absent)`)
    continue
  }
  const { commit, text } = found
  const payloads = lines(text).map((line) => JSON.parse(line))
  if (looksHandWritten(payloads)) {
    skipped.push(path)
    continue
  }
  const base = path
    .split('/')
    .at(-1)
    .replace(/\.chunks\.txt$/, '')
  // Some recordings hold several responses back to back (one per step of a tool loop): one fixture each.
  const responses = []
  for (const line of lines(text)) {
    if (JSON.parse(line).type === 'message_start' || responses.length === 0) responses.push([])
    responses.at(-1).push(line)
  }
  responses.forEach((response, index) => {
    const name = responses.length === 1 ? base : `${base}.response-${index + 1}`
    const body = response.map((line) => `event: ${JSON.parse(line).type}\ndata: ${line}\n\n`).join('')
    const transform = `each recorded payload line sent as one SSE event named after its \`type\`${responses.length === 1 ? '' : `; response ${index + 1} of ${responses.length} in the recording`}`
    save('anthropic', name, body, { repo: 'vercel/ai', path, commit }, transform, expectAnthropic(response.map((line) => JSON.parse(line))), 'sse')
    counts.anthropic++
  })
}

// attogram/ollama-bash-lib re-records the same demo at each release: every version is a different live run.
const OLLAMA_DEMO = 'demos/ollama_generate_stream_json.md'
const seenModels = new Map()
for (const commit of git('attogram/ollama-bash-lib', 'log', '--all', '--format=%H', '--', OLLAMA_DEMO).split('\n').filter(Boolean)) {
  let markdown
  try {
    markdown = git('attogram/ollama-bash-lib', 'show', `${commit}:${OLLAMA_DEMO}`)
  } catch {
    continue
  }
  const block = /```json\n([\s\S]*?)```/.exec(markdown)?.[1]
  if (!block) continue
  const objects = []
  try {
    // The demo pretty-prints one JSON object per streamed line.
    let rest = block.trim()
    while (rest) {
      let end = 0,
        depth = 0,
        inString = false
      for (; end < rest.length; end++) {
        const c = rest[end]
        if (inString) {
          if (c === '\\') end++
          else if (c === '"') inString = false
        } else if (c === '"') inString = true
        else if (c === '{') depth++
        else if (c === '}' && --depth === 0) break
      }
      objects.push(JSON.parse(rest.slice(0, end + 1)))
      rest = rest.slice(end + 1).trim()
    }
  } catch {
    continue
  }
  const done = objects.at(-1)
  if (!done?.done || objects.length < 3) continue
  const model = done.model
  const taken = seenModels.get(model) ?? 0
  if (taken >= (model.startsWith('gpt-oss') ? 4 : 1)) continue
  seenModels.set(model, taken + 1)
  const name = `${model.replace(/[^\w.-]+/g, '_')}--${commit.slice(0, 7)}`
  const body = objects.map((object) => `${JSON.stringify(object)}\n`).join('')
  save(
    'ollama',
    name,
    body,
    { repo: 'attogram/ollama-bash-lib', path: OLLAMA_DEMO, commit },
    'the demo prints each streamed NDJSON line pretty-printed; re-serialised one object per line',
    expectOllama(objects),
    'ndjson',
  )
  counts.ollama++
}

console.log(JSON.stringify({ counts, skipped }, null, 2))
