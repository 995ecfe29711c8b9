import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseAnthropicData } from '../../../src/adapters/llm/anthropic-wire.js'
import { parseOllamaLine } from '../../../src/adapters/llm/ollama-wire.js'
import { parseOpenAIData } from '../../../src/adapters/llm/openai-wire.js'

const parsers = { openai: parseOpenAIData, ollama: parseOllamaLine, anthropic: parseAnthropicData }

describe.each(Object.entries(parsers))('%s frame parser', (_name, parse) => {
  it('is total over arbitrary text and arbitrary JSON', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ choices: [v], message: v, delta: v, type: 'content_block_delta', usage: v })),
        ),
        (frame) => {
          expect(Array.isArray(parse(frame))).toBe(true)
        },
      ),
    )
  })
  it('a truncated object is malformed, not an exception', () => {
    expect(parse('{"message":{"content":"x"').map((s) => s.type)).toEqual(['malformed'])
  })
})

it('openai: usage carries a reported cost (OpenRouter) and reasoning stays out of text', () => {
  expect(parseOpenAIData('{"choices":[{"delta":{"reasoning":"hmm","content":"A"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"cost":0.0002}}')).toEqual([
    { type: 'reasoning', text: 'hmm' },
    { type: 'text', text: 'A' },
    { type: 'usage', inputTokens: 3, outputTokens: 1, cost: 0.0002 },
  ])
})

it('openai: a transient error object is retryable, a refusal is not', () => {
  expect(parseOpenAIData('{"error":{"message":"upstream overloaded","code":502}}')[0]).toMatchObject({ type: 'error', retryable: true })
  expect(parseOpenAIData('{"error":{"message":"bad request","type":"invalid_request_error"}}')[0]).toMatchObject({ type: 'error', retryable: false })
})

it('ollama: /api/generate lines (response, thinking) read the same way', () => {
  expect(parseOllamaLine('{"model":"m","response":"Hi","thinking":"t","done":false}')).toEqual([
    { type: 'reasoning', text: 't' },
    { type: 'text', text: 'Hi' },
  ])
})

it('anthropic: input tokens include cached ones; message_delta updates output', () => {
  expect(parseAnthropicData('{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":10,"output_tokens":1}}}')).toEqual([
    { type: 'usage', inputTokens: 15, outputTokens: 1, cachedInputTokens: 10 },
  ])
  expect(parseAnthropicData('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}')).toEqual([
    { type: 'usage', outputTokens: 42 },
  ])
})

describe('provider quirks seen in recorded streams', () => {
  it('openai: array content parts (Mistral) split into text and reasoning', () => {
    const frame = JSON.stringify({
      choices: [
        {
          delta: {
            content: [
              { type: 'thinking', thinking: [{ type: 'text', text: 'Two plus two.' }] },
              { type: 'text', text: '4' },
              { type: 'image_url', image_url: 'x' },
            ],
          },
        },
      ],
    })
    expect(parseOpenAIData(frame)).toEqual([
      { type: 'reasoning', text: 'Two plus two.' },
      { type: 'text', text: '4' },
    ])
    expect(parseOpenAIData('{"choices":[{"delta":{"content":[{"type":"thinking","thinking":"plain"}]}}]}')).toEqual([{ type: 'reasoning', text: 'plain' }])
  })

  it('openai: delta.refusal is a refusal step, not text', () => {
    expect(parseOpenAIData('{"choices":[{"delta":{"content":null,"refusal":"I can\'t help with that."}}]}')).toEqual([
      { type: 'refusal', text: "I can't help with that." },
    ])
  })

  it('openai: usage under x_groq alone is read, and cached prompt tokens are kept', () => {
    expect(parseOpenAIData('{"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":45,"completion_tokens":662}}}')).toEqual([
      { type: 'usage', inputTokens: 45, outputTokens: 662 },
    ])
    expect(parseOpenAIData('{"choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920}}}')).toEqual([
      { type: 'usage', inputTokens: 2006, outputTokens: 300, cachedInputTokens: 1920 },
    ])
  })

  it('anthropic: cache writes are named within the input tokens; stop_reason refusal is a refusal', () => {
    expect(
      parseAnthropicData(
        '{"type":"message_start","message":{"usage":{"input_tokens":3,"cache_creation_input_tokens":2000,"cache_read_input_tokens":0,"output_tokens":1}}}',
      ),
    ).toEqual([{ type: 'usage', inputTokens: 2003, outputTokens: 1, cacheWriteTokens: 2000 }])
    expect(
      parseAnthropicData(
        '{"type":"message_delta","delta":{"stop_reason":"refusal","stop_details":{"explanation":"Blocked under the usage policy."}},"usage":{"output_tokens":5}}',
      ),
    ).toEqual([
      { type: 'usage', outputTokens: 5 },
      { type: 'refusal', text: 'Blocked under the usage policy.' },
    ])
  })

  it('ollama: a done line without counts reports no counts (not zero)', () => {
    expect(parseOllamaLine('{"model":"m","message":{"content":""},"done":true,"done_reason":"stop"}')).toEqual([{ type: 'done' }])
    expect(parseOllamaLine('{"model":"m","response":"","done":true,"eval_count":12}')).toEqual([{ type: 'usage', outputTokens: 12 }, { type: 'done' }])
  })
})
