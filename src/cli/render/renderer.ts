import type { ResearchEvent } from '../../core/contracts/events.js'
import type { ResearchResult } from '../../core/contracts/result.js'

/** Shows a run: fed every event as it arrives, then told how it ended. */
export interface Renderer {
  event(event: ResearchEvent): void
  /** After `run-end`: print what remains (citations, the JSON result, a summary). */
  end(result: ResearchResult, how: { interrupted: boolean; runId?: string }): void
  /** Stops drawing while the terminal asks the user something (`--approve-plan`); returns the function that starts it again. */
  hold?(): () => void
}
