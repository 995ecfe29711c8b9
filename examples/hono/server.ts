/**
 * `examples/hono/app.ts` served by Bun or Deno, which serve a default export's `fetch`:
 *
 *   bun examples/hono/server.ts --demo
 *   deno serve --allow-env --allow-net examples/hono/server.ts --demo
 *
 * Node serves no default export: use `createLiveServer` of `laconic-research/node` (the same
 * handler on `node:http`), or `serve(app)` of `@hono/node-server`.
 */
import { exampleAgent } from '../shared/agent.js'
import { createApp } from './app.js'

const { agent, demo, label } = exampleAgent()
export default createApp(agent, { label: demo ? 'Scripted demo: no model, no network' : label }).app
