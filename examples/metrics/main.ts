/**
 * Counters and latency histograms of a run: model calls, searches, tokens, dollars, time to
 * first token. Feed them to Prometheus, StatsD or a dashboard.
 *   npx tsx examples/metrics/main.ts --demo
 */
import { collectMetrics } from '../../src/streams/index.js'
import { exampleAgent } from '../shared/agent.js'

const { agent, question } = exampleAgent()
const metrics = await collectMetrics(agent.research(question))
console.log(JSON.stringify(metrics, null, 2))
