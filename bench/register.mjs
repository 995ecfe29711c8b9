// `npm run bench` runs TypeScript directly: this registers tsx's ESM loader before bench/run.ts loads.
import { register } from 'tsx/esm/api'

register()
