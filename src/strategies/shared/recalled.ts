import type { RecalledFinding } from '../../core/contracts/long-term-memory.js'
import type { StrategyContext } from '../../core/contracts/strategy-types.js'

/**
 * The earlier findings long-term memory recalled for this run (`ctx.input.recalled`): prior
 * knowledge every strategy shows its planner and lets its answer cite as the source each came
 * from. They are never yielded as this run's `fact`s nor counted as its search results.
 */
export function recalledFindings(ctx: StrategyContext): readonly RecalledFinding[] {
  return ctx.input.recalled ?? []
}

/** The findings as prompt lines, each with how the prompt cites its source (`[3]`, or the URL). */
export function recalledLines(findings: readonly RecalledFinding[], cite: (finding: RecalledFinding) => string): string {
  return findings.map((f) => `- ${f.text} ${cite(f)}`).join('\n')
}
