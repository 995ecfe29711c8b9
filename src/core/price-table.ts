/**
 * List prices of common hosted models, in dollars per million tokens, by the model names their
 * APIs take. Data only: `modelPrice()` in cost.ts reads it.
 *
 * Transcribed from the providers' public pricing pages (sources below) as they stood on
 * `asOf`. Prices change: an agent's `pricing` option, or the CLI's `--price IN,OUT`, overrides
 * an entry. `cachedInput` is the price of prompt tokens read from the provider's cache;
 * `cacheWrite` (Anthropic) of prompt tokens written to it (the 5-minute cache).
 */
export const PRICE_TABLE = {
  asOf: '2025-10-01',
  sources: [
    'https://openai.com/api/pricing/',
    'https://docs.anthropic.com/en/docs/about-claude/pricing',
    'https://groq.com/pricing',
    'https://mistral.ai/pricing#api-pricing',
    'https://api-docs.deepseek.com/quick_start/pricing',
    "https://openrouter.ai/models (pass-through names: vendor/model, priced as the vendor's own)",
  ],
  models: {
    // OpenAI
    'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
    'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
    'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
    'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
    'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
    'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
    'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
    'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
    o3: { input: 2, cachedInput: 0.5, output: 8 },
    'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
    'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
    // Anthropic
    'claude-opus-4-1': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
    'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
    'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
    // Groq
    'llama-3.3-70b-versatile': { input: 0.59, output: 0.79 },
    'llama-3.1-8b-instant': { input: 0.05, output: 0.08 },
    'qwen/qwen3-32b': { input: 0.29, output: 0.59 },
    // Mistral
    'mistral-large-latest': { input: 2, output: 6 },
    'mistral-medium-latest': { input: 0.4, output: 2 },
    'mistral-small-latest': { input: 0.1, output: 0.3 },
    'magistral-medium-latest': { input: 2, output: 5 },
    'magistral-small-latest': { input: 0.5, output: 1.5 },
    'open-mistral-nemo': { input: 0.15, output: 0.15 },
    // DeepSeek
    'deepseek-chat': { input: 0.28, cachedInput: 0.028, output: 0.42 },
    'deepseek-reasoner': { input: 0.28, cachedInput: 0.028, output: 0.42 },
  },
} as const satisfies {
  asOf: string
  sources: readonly string[]
  models: Record<string, { input: number; cachedInput?: number; cacheWrite?: number; output: number }>
}
