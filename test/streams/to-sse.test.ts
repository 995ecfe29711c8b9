import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { zeroCost } from '../support/cost.js'
import { broadcast, toSSE } from '../../src/streams/index.js'
import { eventFrame, gate, readText, scriptedRun } from './helpers.js'

const start: ResearchEvent = { type: 'run-start', question: 'why?', strategy: 'scratchpad', runId: 'r', seq: 0, time: 10 }
const token: ResearchEvent = { type: 'answer-token', text: 'line one\nline two', runId: 'r', seq: 1, time: 11 }
const end: ResearchEvent = { type: 'run-end', reason: 'answered', cost: zeroCost(), runId: 'r', seq: 2, time: 12 }

describe('toSSE', () => {
  it('writes the exact wire text: retry hint, one frame per event, the end frame', async () => {
    const text = await readText(toSSE(scriptedRun([start, token, end]), { retryMs: 1000, heartbeatMs: 0 }))
    expect(text).toBe(
      'retry: 1000\n\n' +
        'id: 0\nevent: run-start\ndata: {"type":"run-start","question":"why?","strategy":"scratchpad","runId":"r","seq":0,"time":10}\n\n' +
        'id: 1\nevent: answer-token\ndata: {"type":"answer-token","text":"line one\\nline two","runId":"r","seq":1,"time":11}\n\n' +
        'id: 2\nevent: run-end\ndata: {"type":"run-end","reason":"answered","cost":{"llm":0,"search":0,"embedding":0,"total":0,"inputTokens":0,"outputTokens":0,"llmCalls":0,"unpricedCalls":0,"embeddingTokens":0,"searches":0,"fetches":0},"runId":"r","seq":2,"time":12}\n\n' +
        'event: end\ndata: [DONE]\n\n',
    )
  })

  it('closes without the end frame when the source stops before run-end', async () => {
    const text = await readText(toSSE(scriptedRun([start, token]), { heartbeatMs: 0 }))
    expect(text).not.toContain('event: end')
    expect(text.endsWith('"seq":1,"time":11}\n\n')).toBe(true)
  })

  it('sends heartbeat comments while the run is quiet, then carries on', async () => {
    const heartbeatsSeen = gate()
    const run = scriptedRun([start, end], { 2: heartbeatsSeen.promise })
    const reader = toSSE(run, { heartbeatMs: 5 }).getReader()
    const decoder = new TextDecoder()
    let text = ''
    let heartbeats = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const chunk = decoder.decode(value)
      text += chunk
      if (chunk === ': heartbeat\n\n' && ++heartbeats === 2) heartbeatsSeen.open()
    }
    expect(heartbeats).toBeGreaterThanOrEqual(2)
    // The heartbeats sit between the two frames: the quiet gap is exactly where they belong.
    expect(text.indexOf(': heartbeat')).toBeGreaterThan(text.indexOf('event: run-start'))
    expect(text.lastIndexOf(': heartbeat')).toBeLessThan(text.indexOf('event: run-end'))
    expect(text.endsWith('event: end\ndata: [DONE]\n\n')).toBe(true)
  })

  it('aborts the run when the reader cancels (a client disconnect)', async () => {
    const never = gate()
    const run = scriptedRun([start, token, end], { 1: never.promise })
    const reader = toSSE(run, { heartbeatMs: 0 }).getReader()
    await reader.read() // retry hint
    await reader.read() // run-start
    await reader.cancel(new Error('client went away'))
    expect(run.state.aborted).toBe(true)
    expect(run.state.returned).toBe(true)
    expect(run.state.pulled).toBe(1)
  })

  it('errors the stream when the source throws', async () => {
    async function* failing(): AsyncGenerator<ResearchEvent> {
      yield start
      throw new Error('bug in a strategy')
    }
    await expect(readText(toSSE(failing(), { heartbeatMs: 0 }))).rejects.toThrow('bug in a strategy')
  })

  it('a failing broadcast gives each reader the events before the failure, then the error', async () => {
    const tokens = [1, 2, 3, 4, 5].map((seq): ResearchEvent => ({ ...token, seq }))
    async function* failing(): AsyncGenerator<ResearchEvent> {
      yield start
      yield* tokens
      throw new Error('bug in a strategy')
    }
    const hub = broadcast(failing())
    const live = toSSE(hub.subscribe(), { heartbeatMs: 0 }).getReader()
    await hub.finished
    // A late reader finds the events and the failure all waiting at its first pull.
    const readers = [live, toSSE(hub.subscribe(), { heartbeatMs: 0 }).getReader()]
    for (const reader of readers) {
      const decoder = new TextDecoder()
      let text = ''
      const failure = await (async () => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return undefined
          text += decoder.decode(value)
        }
      })().catch((error: unknown) => error)
      expect(text).toBe(`retry: 3000\n\n${[start, ...tokens].map(eventFrame).join('')}`)
      expect(failure).toEqual(new Error('bug in a strategy'))
    }
  })
})
