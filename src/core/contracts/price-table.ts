/**
 * List prices of common hosted models, in dollars per million tokens, by the model names their
 * APIs take. Data only: `modelPrice()` in run-cost.ts reads it.
 *
 * `asOf` is the day every entry was checked against the sources it names in `from` (keys of
 * `sources`: a provider's own page, or a price dataset at a fixed commit). A price that could not
 * be confirmed is left out, so the model shows "cost unknown" instead of a guess; an agent's
 * `pricing` option, or the CLI's `--price IN,OUT`, prices it.
 *
 * `cachedInput` is the price of prompt tokens read from the provider's cache; `cacheWrite` of
 * prompt tokens written to it (Anthropic's 5-minute cache, OpenAI's GPT-6 cache writes).
 *
 * Not modelled, so read these as the short-prompt price: long-prompt surcharges (OpenAI above
 * 272K input tokens, Claude Haiku 5.5 above 100K), and DeepSeek's off-peak discount — DeepSeek is
 * priced at its peak rate, so its costs are an upper bound (off-peak is half).
 */
export const PRICE_TABLE = {
  asOf: '2026-11-23',
  sources: {
    'openai-pages':
      "https://developers.openai.com/api/docs/models/<model> — the 'Text tokens' table of each model's page (gpt-5-nano, gpt-6-sol, gpt-6.2-sol, gpt-6-luna)",
    'anthropic-pages':
      'https://platform.claude.com/docs/en/about-claude/pricing (model pricing table) and https://platform.claude.com/docs/<lang>/models/<model>/overview (opus-5, opus-5-5, sonnet-5, sonnet-5-5, haiku-5-5)',
    'anthropic-2026-10-07':
      'Sonnet 5.5 cache reads cut to $0.10 and Haiku 5.5 short-prompt rates from 2026-10-07, as re-read from the Anthropic pricing page by github.com/kurofune/claudit release v1.9.2 (2026-10-24) and github.com/TheKrush/PromptFuel release v1.0.23 (2026-10-16); the localised overview pages stored earlier still show $0.20',
    deepseek: 'https://api-docs.deepseek.com/quick_start/pricing (Models & Pricing, DeepSeek-V4.1-Flash-1017 and DeepSeek-V4-Pro-0813; peak rates)',
    'genai-prices':
      'github.com/pydantic/genai-prices prices/providers/{openai,anthropic,groq,mistral}.yml @ 47df840a5ab10bbcffb8e5ac01b9899032245d1b (2026-08-21)',
    'genai-prices-openrouter':
      "github.com/pydantic/genai-prices prices/providers/openrouter.yml @ 47df840a5ab10bbcffb8e5ac01b9899032245d1b (OpenRouter's vendor/model names at the vendor's price)",
    'llm-prices': 'github.com/simonw/llm-prices data/{openai,anthropic}.json @ 723ef0bd3a6254436e9fe8d7f05d4d787e99f4c5 (2026-08-05)',
  },
  models: {
    // OpenAI
    'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10, from: ['genai-prices', 'llm-prices'] },
    // Its own price: without this entry the date would be stripped and it would cost as gpt-4o.
    'gpt-4o-2024-05-13': { input: 5, output: 15, from: ['genai-prices-openrouter'] },
    'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6, from: ['genai-prices', 'llm-prices'] },
    'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8, from: ['genai-prices', 'llm-prices'] },
    'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6, from: ['genai-prices', 'llm-prices'] },
    'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4, from: ['genai-prices', 'llm-prices'] },
    'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10, from: ['genai-prices', 'llm-prices'] },
    'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2, from: ['genai-prices', 'llm-prices'] },
    'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4, from: ['openai-pages', 'genai-prices', 'llm-prices'] },
    'gpt-5.4': { input: 2.5, cachedInput: 0.25, output: 15, from: ['genai-prices', 'llm-prices'] },
    'gpt-5.4-mini': { input: 0.75, cachedInput: 0.075, output: 4.5, from: ['genai-prices', 'llm-prices'] },
    'gpt-5.4-nano': { input: 0.2, cachedInput: 0.02, output: 1.25, from: ['genai-prices', 'llm-prices'] },
    'gpt-5.5': { input: 5, cachedInput: 0.5, output: 30, from: ['genai-prices', 'llm-prices'] },
    'gpt-6-sol': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10, from: ['openai-pages'] },
    'gpt-6.2-sol': { input: 2, cachedInput: 0.1, cacheWrite: 2.5, output: 10, from: ['openai-pages'] },
    'gpt-6-luna': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.125, output: 0.5, from: ['openai-pages'] },
    // The June 2025 price (llm-prices still has the launch price of $10/$40).
    o3: { input: 2, cachedInput: 0.5, output: 8, from: ['genai-prices'] },
    'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4, from: ['genai-prices', 'llm-prices'] },
    'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4, from: ['genai-prices', 'llm-prices'] },
    // Anthropic
    'claude-opus-5-5': { input: 4, cachedInput: 0.2, cacheWrite: 5, output: 20, from: ['anthropic-pages'] },
    'claude-opus-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-8': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-7': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-6': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-1': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, from: ['anthropic-pages', 'genai-prices'] },
    'claude-opus-4-0': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, from: ['anthropic-pages', 'genai-prices'] },
    'claude-sonnet-5-5': { input: 2, cachedInput: 0.1, cacheWrite: 2.5, output: 10, from: ['anthropic-pages', 'anthropic-2026-10-07'] },
    'claude-sonnet-5': { input: 2, cachedInput: 0.2, cacheWrite: 2.5, output: 10, from: ['anthropic-pages'] },
    'claude-sonnet-4-6': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, from: ['anthropic-pages', 'genai-prices'] },
    'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, from: ['anthropic-pages', 'genai-prices'] },
    'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, from: ['anthropic-pages', 'genai-prices'] },
    'claude-sonnet-4-0': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, from: ['anthropic-pages', 'genai-prices'] },
    'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, from: ['anthropic-pages', 'genai-prices'] },
    'claude-haiku-5-5': { input: 0.1, cachedInput: 0.01, cacheWrite: 0.125, output: 0.5, from: ['anthropic-pages', 'anthropic-2026-10-07'] },
    'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5, from: ['anthropic-pages', 'genai-prices'] },
    'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4, from: ['anthropic-pages', 'genai-prices'] },
    // Groq
    'llama-3.3-70b-versatile': { input: 0.59, output: 0.79, from: ['genai-prices'] },
    'llama-3.1-8b-instant': { input: 0.05, output: 0.08, from: ['genai-prices'] },
    'openai/gpt-oss-120b': { input: 0.15, cachedInput: 0.075, output: 0.6, from: ['genai-prices'] },
    'openai/gpt-oss-20b': { input: 0.075, cachedInput: 0.0375, output: 0.3, from: ['genai-prices'] },
    'qwen/qwen3-32b': { input: 0.29, output: 0.59, from: ['genai-prices'] },
    // Mistral: dated versions only. The `-latest` aliases move to new versions at new prices.
    'mistral-large-2512': { input: 0.5, cachedInput: 0.05, output: 1.5, from: ['genai-prices', 'genai-prices-openrouter'] },
    'mistral-small-2603': { input: 0.15, cachedInput: 0.015, output: 0.6, from: ['genai-prices', 'genai-prices-openrouter'] },
    // DeepSeek, at the peak rate. `deepseek-v4-flash` is a retired name now served and billed as Flash.
    'deepseek-flash': { input: 0.3, cachedInput: 0.006, output: 1.2, from: ['deepseek'] },
    'deepseek-v4-flash': { input: 0.3, cachedInput: 0.006, output: 1.2, from: ['deepseek'] },
    'deepseek-v4-pro': { input: 1.32, cachedInput: 0.044, output: 3.96, from: ['deepseek'] },
  },
  /** Embedding models: prompt tokens only, there is no output to price. */
  embeddings: {
    'text-embedding-3-small': { input: 0.02, from: ['genai-prices'] },
    'text-embedding-3-large': { input: 0.13, from: ['genai-prices'] },
    'text-embedding-ada-002': { input: 0.1, from: ['genai-prices'] },
  },
} as const satisfies {
  asOf: string
  sources: Record<string, string>
  models: Record<string, { input: number; cachedInput?: number; cacheWrite?: number; output: number; from: readonly string[] }>
  embeddings: Record<string, { input: number; from: readonly string[] }>
}
