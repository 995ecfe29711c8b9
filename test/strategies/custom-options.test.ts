/**
 * A strategy of your own gets its options as a built-in one does: its section of the agent's
 * options (declared by augmenting `AgentOptions`), checked and filled by its `normalize`, typed in
 * `run`, and saved normalised in every checkpoint.
 */
import { describe, expect, expectTypeOf, it } from 'vitest'
import { createAgent, LaconicError, memoryCheckpoints, registerStrategy } from '../../src/index.js'
import { defineStrategy } from '../../src/strategy.js'
import { optionsSection, wholeNumberOption } from '../../src/strategy.js'
import { mockSearch, scriptedLLM } from '../../src/testing/index.js'

interface StepperOptions {
  steps?: number
  label?: string
}

declare module '../../src/index.js' {
  interface AgentOptions {
    stepper?: StepperOptions
  }
}

interface StepperSettings {
  steps: number
  label: string
}

function stepperSettings(raw: unknown): StepperSettings {
  const options = optionsSection(raw, 'stepper', ['steps', 'label'])
  const label = options.label ?? 'step'
  if (typeof label !== 'string') throw new LaconicError('`stepper.label` must be a string', { code: 'config' })
  return { steps: wholeNumberOption(options.steps, 'stepper.steps', 2, 1), label }
}

/** What each run got, to see the section reach it normalised. */
const created: StepperSettings[] = []

const stepper = defineStrategy({
  name: 'stepper',
  optionsKey: 'stepper',
  normalize: stepperSettings,
  async *run(question, ctx, settings) {
    expectTypeOf(settings).toEqualTypeOf<StepperSettings>()
    created.push(settings)
    const done = (ctx.resumed?.state as number | null) ?? 0
    for (let i = done; i < settings.steps; i++) {
      yield* ctx.runSearch(`${settings.label} ${i} ${question}`)
      yield* ctx.checkpoint(i + 1)
    }
    yield { type: 'answer', text: `${settings.label} x${settings.steps}`, citations: [] }
  },
})
registerStrategy(stepper)

const world = () => ({ llm: scriptedLLM({ replies: [] }), search: mockSearch({ results: (q) => [{ title: q, url: 'https://x.example/', snippet: q }] }) })

describe('a custom strategy and its options section', () => {
  it('gets its section normalised in run, defaults filled', async () => {
    created.length = 0
    const result = await createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 3 } }).answer('q')
    expect(result.answer).toBe('step x3')
    expect(created.at(-1)).toEqual({ steps: 3, label: 'step' })
    await createAgent({ ...world(), strategy: 'stepper' }).answer('q')
    expect(created.at(-1)).toEqual({ steps: 2, label: 'step' })
  })

  it('has its section checked by its normalize when the agent is made', () => {
    expect(() => createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 0 } })).toThrow(/`stepper.steps` must be a whole number >= 1/)
    expect(() => createAgent({ ...world(), stepper: { label: 7 as never } })).toThrow(/`stepper.label` must be a string/)
    expect(() =>
      // @ts-expect-error the augmented section keeps its own types
      createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 'many' } }),
    ).toThrow(/`stepper.steps`/)
  })

  it('refuses the removed (name, definition) form, naming defineStrategy', () => {
    const old = registerStrategy as unknown as (name: string, definition: object) => void
    expect(() => old('bare', { create: () => ({ name: 'bare', run: async function* () {} }) })).toThrow(
      expect.objectContaining({ code: 'config', hint: expect.stringMatching(/registerStrategy\(defineStrategy\(\{ name: 'bare'/) }),
    )
    expect(() => registerStrategy({ name: 'bare' } as never)).toThrow(/expects `run`/)
  })

  it('makes the strategy with options of its section when called, checked by normalize', async () => {
    const result = await createAgent({ ...world(), strategy: stepper({ steps: 1, label: 'hop' }) }).answer('q')
    expect(result.answer).toBe('hop x1')
    expect(() => stepper({ steps: 0 })).toThrow(/`stepper.steps` must be a whole number >= 1/)
    expect(stepper({ steps: 2 })).toMatchObject({ name: 'stepper', settings: { steps: 2, label: 'step' } })
  })

  it('saves the settings as JSON, a toJSON method picking what is saved, and sizes the run limit by concurrency', () => {
    const tooled = defineStrategy({
      name: 'tooled',
      normalize: (options: { size?: number } | undefined) => ({
        size: options?.size ?? 2,
        tool: () => 'not data',
        toJSON: () => ({ size: options?.size ?? 2 }),
      }),
      concurrency: (settings) => settings.size,
      async *run(_question, _ctx, settings) {
        yield { type: 'answer', text: settings.tool(), citations: [] }
      },
    })
    expect(tooled({ size: 3 })).toMatchObject({ name: 'tooled', settings: { size: 3 }, concurrency: 3 })
    expect(tooled().settings).toEqual({ size: 2 })
    // Without normalize or concurrency: no settings saved, the run's default limit.
    const bare = defineStrategy({ name: 'bare', async *run() {} })()
    expect(bare).not.toHaveProperty('settings')
    expect(bare).not.toHaveProperty('concurrency')
  })
})

describe('a checkpoint holds the strategy its normalised settings', () => {
  it('saves them, resumes under the same settings however they were written, and refuses different ones by field', async () => {
    const store = memoryCheckpoints()
    const paused = new AbortController()
    let saves = 0
    const run = createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 3 } }).research('q', {
      signal: paused.signal,
      checkpoints: {
        ...store,
        async save(checkpoint) {
          await store.save(checkpoint)
          if (++saves === 1) paused.abort()
        },
      },
    })
    expect((await run.result).reason).toBe('aborted')
    const saved = await store.load(run.runId)
    expect(saved?.options).toEqual({ settings: { steps: 3, label: 'step' } })

    const other = createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 4 } }).resume(run.runId, { checkpoints: store })
    await expect(other.result).rejects.toMatchObject({ code: 'config', message: expect.stringMatching(/the agent's `steps` differ/) })

    // The default written out is the same setting as the default left out.
    const same = createAgent({ ...world(), strategy: 'stepper', stepper: { steps: 3, label: 'step' } }).resume(run.runId, { checkpoints: store })
    expect(await same.result).toMatchObject({ reason: 'answered', answer: 'step x3' })
  })
})
