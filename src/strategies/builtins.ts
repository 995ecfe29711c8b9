import type { StrategyFactory } from '../core/index.js'
import { deep } from './deep/index.js'
import { graphReader } from './graph-reader/index.js'
import { react } from './react/index.js'
import { reflect } from './reflect/index.js'
import { scratchpad } from './scratchpad/index.js'

/** The strategies every agent knows by name. */
export const builtinStrategies: Readonly<Record<string, StrategyFactory>> = {
  scratchpad,
  'graph-reader': graphReader,
  reflect,
  deep,
  react,
}
