// LLM adapters: each streams tokens as they arrive over the shared HTTP layer.
export { openai } from './openai.js'
export type { OpenAIOptions } from './openai.js'
export { ollama } from './ollama.js'
export type { OllamaOptions } from './ollama.js'
export type { OllamaThink } from './ollama-wire.js'
export { anthropic } from './anthropic.js'
export type { AnthropicOptions } from './anthropic.js'
export type { LLMAdapterOptions } from './options.js'
