import { memoryVectorStore } from '../../src/kb/index.js'
import { vectorStoreContract } from './vector-store-contract.js'

vectorStoreContract('memoryVectorStore', { make: async () => memoryVectorStore() })
