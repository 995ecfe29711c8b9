// `laconic-research/adapters`: the providers, one factory each. A factory's options are its first
// parameter (`Parameters<typeof openai>[0]` names them); the cache store is the one contract here
// users implement.
export { openai, ollama, anthropic, aiSdkModel, local } from './llm/index.js'
export {
  duckduckgo,
  brave,
  tavily,
  searxng,
  localCorpus,
  arxiv,
  openAlex,
  semanticScholar,
  pubmed,
  wikipedia,
  combineSearch,
  createPacer,
} from './search/index.js'
export { httpFetch } from './fetch/index.js'
export { cached, memoryCache, type CacheStore } from './cache/index.js'
export { openAIEmbeddings, ollamaEmbeddings, localEmbeddings, aiSdkEmbeddings } from './embed/index.js'
