import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Node's parts installed as the Node builds of the entries install them (see the file).
    setupFiles: ['test/support/node-runtime.ts'],
    testTimeout: 20_000,
  },
})
