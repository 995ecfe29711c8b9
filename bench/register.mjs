// `npm run bench` runs TypeScript directly: this registers tsx's ESM loader before bench/run.ts loads,
// then installs Node's parts into the sources the benches import (the extraction pool, the
// DNS-pinned guard, folder and file readers), as Node's builds of the entries do for a user.
import { register } from 'tsx/esm/api'

register()
const { installNodeRuntime } = await import('../src/node/runtime.ts')
installNodeRuntime()
