import { optionsSection, wholeNumberOption } from '../../core/run/shared-options.js'

/** The `scratchpad` section of the agent's options. */
export interface ScratchpadOptions {
  /** Search iterations (plan → search → rewrite) at most. @defaultValue 5 */
  maxSteps?: number
  /** Hard cap on the knowledge summary, in characters (the synthesizer is told the same budget). @defaultValue 1500 */
  knowledgeChars?: number
  /** Past queries shown to the planner. @defaultValue 8 */
  historySize?: number
}

/** The scratchpad's options, checked, with their defaults filled. */
export type ScratchpadSettings = Required<ScratchpadOptions>

const FIELDS = ['maxSteps', 'knowledgeChars', 'historySize'] as const

/** Checks the `scratchpad` section (a `config` error names the field) and fills its defaults. */
export function scratchpadSettings(raw: unknown): ScratchpadSettings {
  const options = optionsSection(raw, 'scratchpad', FIELDS, { maxIterations: 'scratchpad.maxSteps' })
  return {
    maxSteps: wholeNumberOption(options.maxSteps, 'scratchpad.maxSteps', 5, 0),
    knowledgeChars: wholeNumberOption(options.knowledgeChars, 'scratchpad.knowledgeChars', 1500, 1),
    historySize: wholeNumberOption(options.historySize, 'scratchpad.historySize', 8, 0),
  }
}
