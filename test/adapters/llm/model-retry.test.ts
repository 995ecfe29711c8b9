/** A model call retried by the adapter shows in the run as a `warning` of code `retry`. */
import { expect, it } from 'vitest'
import { openai } from '../../../src/adapters/index.js'
import { createAgent } from '../../../src/index.js'
import { mockSearch } from '../../../src/testing/index.js'
import { loopbacks } from '../http/loopback.js'

const serve = loopbacks()

it('a 503 then a stream: the run warns `retry` for the model call and goes on', async () => {
  const server = await serve((req, res, attempt) => {
    if (attempt === 1) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}')
      return
    }
    const planner = req.body.includes('You are the planner')
    const text = planner ? 'Action: Answer' : 'Blue.'
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end(`data: {"choices":[{"delta":{"content":${JSON.stringify(text)}}}]}\n\ndata: [DONE]\n\n`)
  })
  const llm = openai({ baseURL: `${server.url}/v1`, model: 'local-model', backoff: { initialMs: 1, maxMs: 1 } })
  const run = createAgent({ llm, search: mockSearch({ results: () => [] }) }).research('Why is the sky blue?', { knowledge: 'Rayleigh scattering.' })
  const warnings: { code: string; message: string }[] = []
  for await (const event of run) if (event.type === 'warning') warnings.push(event)
  expect(warnings.find((w) => w.code === 'retry')?.message).toMatch(/model: attempt 1 failed/)
  expect((await run.result).reason).toBe('answered')
})
