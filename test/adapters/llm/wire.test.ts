import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { parseAnthropicData } from '../../../src/adapters/llm/anthropic-wire.js'
import { parseOllamaLine } from '../../../src/adapters/llm/ollama-wire.js'
import { parseOpenAIData } from '../../../src/adapters/llm/openai-wire.js'

const parsers = { openai: parseOpenAIData, ollama: parseOllamaLine, anthropic: parseAnthropicData }

describe.each(Object.entries(parsers))('%s frame parser', (_name, parse) => {
  test('is total over arbitrary text and arbitrary JSON', () => {
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
  test('a truncated object is malformed, not an exception', () => {
    expect(parse('{"message":{"content":"x"').map((s) => s.type)).toEqual(['malformed'])
  })
})

test('openai: usage carries a reported cost (OpenRouter) and reasoning stays out of text', () => {
  expect(parseOpenAIData('{"choices":[{"delta":{"reasoning":"hmm","content":"A"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"cost":0.0002}}')).toEqual([
    { type: 'reasoning', text: 'hmm' },
    { type: 'text', text: 'A' },
    { type: 'usage', inputTokens: 3, outputTokens: 1, cost: 0.0002 },
  ])
})

test('openai: a transient error object is retryable, a refusal is not', () => {
  expect(parseOpenAIData('{"error":{"message":"upstream overloaded","code":502}}')[0]).toMatchObject({ type: 'error', retryable: true })
  expect(parseOpenAIData('{"error":{"message":"bad request","type":"invalid_request_error"}}')[0]).toMatchObject({ type: 'error', retryable: false })
})

test('ollama: /api/generate lines (response, thinking) read the same way', () => {
  expect(parseOllamaLine('{"model":"m","response":"Hi","thinking":"t","done":false}')).toEqual([
    { type: 'reasoning', text: 't' },
    { type: 'text', text: 'Hi' },
  ])
})

test('anthropic: input tokens include cached ones; message_delta updates output', () => {
  expect(parseAnthropicData('{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":10,"output_tokens":1}}}')).toEqual([
    { type: 'usage', inputTokens: 15, outputTokens: 1 },
  ])
  expect(parseAnthropicData('{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":42}}')).toEqual([
    { type: 'usage', outputTokens: 42 },
  ])
})
