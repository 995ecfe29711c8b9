/**
 * The smallest useful program: research a question, show progress on stderr, stream the answer
 * to stdout, then list the sources.
 *   npx tsx examples/basic/main.ts --demo
 *   OLLAMA_MODEL=qwen3:4b npx tsx examples/basic/main.ts "Why is the sky blue?"
 */
import { describeEnd, exampleAgent } from '../shared/agent.js'

const { agent, question, fix } = exampleAgent()
const run = agent.research(question)

for await (const event of run) {
  if (event.type === 'query') console.error(`searching: ${event.query}`)
  if (event.type === 'fact') console.error(`fact: ${event.fact.text}`)
  if (event.type === 'warning') console.error(`warning: ${event.message}`)
  if (event.type === 'answer-token') process.stdout.write(event.text)
}

const result = await run.result
process.stdout.write('\n')
for (const citation of result.citations) console.log(`[${citation.index}] ${citation.title ?? ''} ${citation.url}`)
console.error(describeEnd(result, fix))
process.exitCode = result.reason === 'answered' ? 0 : 1
