import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { EvalRow } from '../../src/eval/index.js'
import { scriptedLLM } from '../../src/testing/index.js'
import { answering, evalRows, type RowRun } from './eval-rows.js'

const PASSAGE = 'The Eiffel Tower was designed by the engineering firm of Gustave Eiffel and completed in 1889 for the World Fair in Paris.'

/** A run whose model sees each of `prompts` in a call of its own, then answers. */
const prompting = (prompts: readonly string[]): RowRun =>
  async function* (question, ctx) {
    for (const prompt of prompts) yield* ctx.complete('planner', { prompt })
    yield* answering('ok')(question, ctx)
  }

/** The evidence recall `evaluate` measured of a row with `evidence` whose run prompted `prompts`. */
async function recall(evidence: EvalRow['evidence'], prompts: readonly string[]): Promise<number | undefined> {
  const row: EvalRow = { id: 'r', question: 'q?', answers: ['x'], ...(evidence ? { evidence } : {}) }
  const { rows } = await evalRows([row], prompting(prompts))
  expect(rows).toHaveLength(1)
  return rows[0]?.evidenceRecall
}

describe('evidence recall', () => {
  it('counts a passage that reached a prompt whole, or mostly (a snippet of it), whatever the case and punctuation', async () => {
    expect(await recall([{ text: PASSAGE }], [`Results:\n[1] ${PASSAGE.toUpperCase()}`])).toBe(1)
    const snippet = PASSAGE.split(' ').slice(0, 16).join(' ')
    expect(await recall([{ text: PASSAGE }], [`…${snippet}…`])).toBe(1)
    expect(await recall([{ text: PASSAGE }], [PASSAGE.split(' ').slice(0, 6).join(' ')])).toBe(0)
    expect(await recall([{ text: 'He lives in Los Angeles.' }], ['notes: he lives in los angeles, california'])).toBe(1)
  })

  it('counts a page whose URL reached a prompt, encoded or not', async () => {
    const evidence = [{ url: 'https://en.wikipedia.org/wiki/Charlotte_Bront%C3%AB' }, { url: 'https://en.wikipedia.org/wiki/Jane_Eyre' }]
    expect(await recall(evidence, ['[1] https://en.wikipedia.org/wiki/Charlotte_Brontë'])).toBe(0.5)
  })

  it('is undefined without evidence, and always in [0, 1]', async () => {
    expect(await recall(undefined, ['x'])).toBeUndefined()
    expect(await recall([], ['x'])).toBeUndefined()
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text: fc.string(), url: fc.webUrl() }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.string()),
        async (evidence, prompts) => {
          const measured = (await recall(evidence, prompts)) as number
          expect(measured).toBeGreaterThanOrEqual(0)
          expect(measured).toBeLessThanOrEqual(1)
        },
      ),
    )
  })

  it('sees the system prompt, the prompt and every turn of each call, through a model that keeps its name', async () => {
    const evidence = [
      { text: 'Llamas hum softly to each other when they feel anxious in the herd.' },
      { text: 'The Analytical Engine was a design for a general purpose mechanical computer.' },
      { text: 'Rayleigh scattering makes short wavelengths of sunlight spread across the sky.' },
      { text: 'Glaciers in the Andes have lost a third of their surface since the seventies.' },
    ]
    const rows: EvalRow[] = [{ id: 'r', question: 'q?', answers: ['x'], evidence }]
    const call: RowRun = async function* (question, ctx) {
      yield* ctx.complete('planner', {
        system: evidence[0]!.text,
        prompt: evidence[1]!.text,
        turns: [{ role: 'tool', callId: 'c', name: 'read', content: evidence[2]!.text }],
      })
      yield* answering('ok')(question, ctx)
    }
    // A model the price table knows: the row has a cost only if the watched model kept its name.
    const llm = scriptedLLM({ model: 'gpt-4o-mini', replies: () => 'ok' })
    const [row] = (await evalRows(rows, call, { llm })).rows
    // Three of the four reached a prompt; the fourth is only in the answer.
    expect(row?.evidenceRecall).toBe(0.75)
    expect(row?.cost).toBeGreaterThan(0)
  })
})
