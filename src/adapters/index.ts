// `laconic-research/adapters`: each family re-exports from its own folder so optional parts stay optional.
export * from './llm/index.js'
export * from './search/index.js'
export * from './fetch/index.js'
export * from './cache/index.js'
export * from './embed/index.js'
