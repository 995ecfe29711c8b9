/**
 * One structured log line per meaningful event, with any console- or pino-style logger.
 *   npx tsx examples/logging/main.ts --demo
 * With pino: `logEvents(run, pino())`.
 */
import { logEvents } from '../../src/streams/index.js'
import { exampleAgent } from '../shared/agent.js'

const { agent, question } = exampleAgent()
// A pino-shaped logger writing JSON lines: (fields, message) per level.
const line = (level: string) => (fields: object, message?: string) => console.log(JSON.stringify({ level, msg: message, ...fields }))
const logger = { info: line('info'), warn: line('warn'), error: line('error') }
await logEvents(agent.research(question), logger)
