import type { StrategyDefinition } from '../core/contracts/strategy-types.js'
import { deepDefinition } from './deep/index.js'
import { graphReaderDefinition } from './graph-reader/index.js'
import { reactDefinition } from './react/index.js'
import { reflectDefinition } from './reflect/index.js'
import { reportDefinition } from './report/index.js'
import { scratchpadDefinition } from './scratchpad/index.js'

/** The strategies every agent knows by name. */
export const builtinStrategies: Readonly<Record<string, StrategyDefinition<unknown>>> = {
  scratchpad: scratchpadDefinition,
  'graph-reader': graphReaderDefinition,
  reflect: reflectDefinition,
  deep: deepDefinition,
  react: reactDefinition,
  report: reportDefinition,
}

/** The strategy an agent runs when its options name none. */
export const DEFAULT_STRATEGY = 'scratchpad'

/** Top-level options that were renamed, and the name to use now (0.x keeps no silent aliases). */
export const RENAMED_OPTIONS: Readonly<Record<string, string>> = { maxIterations: 'scratchpad.maxSteps' }
