/**
 * Wire transcripts written from WIRE.md: realistic field order, unknown extra fields, `\r\n`
 * line ends, comments, pings and non-ASCII text (so random cuts land inside characters).
 */

const openaiChunk = (delta: string, extra = '') =>
  `{"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1732233600,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":null}],"usage":null${extra}}`

export const openaiTranscript = [
  ': OPENROUTER PROCESSING\r\n\r\n',
  `data: ${openaiChunk('{"role":"assistant","content":"","refusal":null}', ',"obfuscation":"q9Zx"')}\r\n\r\n`,
  `data: ${openaiChunk('{"reasoning_content":"Zürich is in Switzerland…"}')}\n\n`,
  `data: ${openaiChunk('{"content":"Zürich "}', ',"obfuscation":"a1"')}\r\n\r\n`,
  ': keep-alive\n\n',
  `data: ${openaiChunk('{"content":"ist 🏔️ schön,"}')}\n\n`,
  `data: ${openaiChunk('{"content":" 東京も。"}')}\r\n\r\n`,
  'data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1732233600,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\r\n\r\n',
  'data: {"id":"chatcmpl-AbC123","object":"chat.completion.chunk","created":1732233600,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":7,"total_tokens":26,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}}}\r\n\r\n',
  'data: [DONE]\r\n\r\n',
].join('')

export const ollamaTranscript = [
  '{"model":"qwen3:4b","created_at":"2025-11-22T02:24:46.1Z","message":{"role":"assistant","content":"","thinking":"Zürich \\u003e Bern?"},"done":false}\n',
  '{"model":"qwen3:4b","created_at":"2025-11-22T02:24:46.2Z","message":{"role":"assistant","content":"Zürich "},"done":false}\n',
  '{"model":"qwen3:4b","created_at":"2025-11-22T02:24:46.3Z","message":{"role":"assistant","content":"ist 🏔️ schön,"},"done":false}\r\n',
  '{"model":"qwen3:4b","created_at":"2025-11-22T02:24:46.4Z","message":{"role":"assistant","content":" 東京も。"},"done":false}\n',
  '{"model":"qwen3:4b","created_at":"2025-11-22T02:24:46.5Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":912345678,"load_duration":12345678,"prompt_eval_count":19,"prompt_eval_duration":23456789,"eval_count":7,"eval_duration":345678901}\n',
].join('')

const sse = (event: string, data: string, lineEnd = '\n') => `event: ${event}${lineEnd}data: ${data}${lineEnd}${lineEnd}`

export const anthropicTranscript = [
  sse(
    'message_start',
    '{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":15,"cache_creation_input_tokens":0,"cache_read_input_tokens":4,"output_tokens":1,"service_tier":"standard"}}}',
    '\r\n',
  ),
  sse('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}'),
  sse('content_block_delta', '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Zürich is in Switzerland…"}}'),
  sse('content_block_stop', '{"type":"content_block_stop","index":0}'),
  sse('ping', '{"type": "ping"}', '\r\n'),
  sse('content_block_start', '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}'),
  sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Zürich "}}', '\r\n'),
  sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ist 🏔️ schön,"}}'),
  sse('ping', '{"type": "ping"}'),
  sse('content_block_delta', '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":" 東京も。"}}'),
  sse('content_block_stop', '{"type":"content_block_stop","index":1}'),
  sse('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}', '\r\n'),
  sse('message_stop', '{"type":"message_stop"}'),
].join('')

/** What every transcript above says. */
export const expectedText = 'Zürich ist 🏔️ schön, 東京も。'
export const expectedUsage = { type: 'usage', inputTokens: 19, outputTokens: 7 } as const
