import { memorySessions } from '../../src/index.js'
import { sessionStoreContract } from '../support/session-store-contract.js'

// A memory store lives as long as its object: "reopening" it is handing the same one on.
sessionStoreContract(
  'memorySessions',
  () => {
    const store = memorySessions()
    return { store, reopen: () => store }
  },
  { corruptible: false },
)
