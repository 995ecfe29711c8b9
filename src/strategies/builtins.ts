import { deep } from './deep/index.js'
import { graphReader } from './graph-reader/index.js'
import { react } from './react/index.js'
import { reflect } from './reflect/index.js'
import { report } from './report/index.js'
import { scratchpad } from './scratchpad/index.js'

/** The strategies every agent knows by name. */
export const builtinStrategies = [scratchpad, graphReader, reflect, deep, react, report] as const

/** The strategy an agent runs when its options name none. */
export const DEFAULT_STRATEGY = 'scratchpad'

/** Top-level options that were renamed, and the name to use now (0.x keeps no silent aliases). */
export const RENAMED_OPTIONS: Readonly<Record<string, string>> = { maxIterations: 'scratchpad.maxSteps' }
