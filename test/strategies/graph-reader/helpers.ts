import type { LLMRequest, ResearchEvent, ResearchRun, SearchResult } from '../../../src/index.js'
import { assertEventInvariants, scriptedLLM, type ScriptedLLM } from '../../../src/testing/index.js'
import { roleOf as systemRole } from '../../support/roles.js'

export async function collect(run: ResearchRun): Promise<ResearchEvent[]> {
  const events: ResearchEvent[] = []
  for await (const event of run) events.push(event)
  return assertEventInvariants(events) as ResearchEvent[]
}

export type Role = 'planner' | 'extractor' | 'neighbor' | 'condenser' | 'finalizer'

export function roleOf(req: LLMRequest): Role {
  const role = systemRole(req.system)
  if (!role?.startsWith('graph-reader ')) throw new Error(`unexpected system prompt: ${req.system}`)
  return role.slice('graph-reader '.length) as Role
}

/** The query an extractor or neighbor prompt is about. */
export function queryOf(req: LLMRequest): string {
  return /Results for the search "([^"]*)"/.exec(req.prompt)?.[1] ?? /Last search: (.*)/.exec(req.prompt)?.[1] ?? ''
}

export interface Script {
  plan?: string
  extract?: (req: LLMRequest) => string
  check?: (req: LLMRequest, n: number) => string | Promise<string>
  condense?: (req: LLMRequest) => string
  final?: string
  latencyMs?: number
}

/** One scripted model playing every role, by system prompt. */
export function graphModel(script: Script): ScriptedLLM {
  let checks = 0
  return scriptedLLM({
    latencyMs: script.latencyMs ?? 0,
    replies: (req) => {
      switch (roleOf(req)) {
        case 'planner':
          return script.plan ?? '{"goal": "g", "steps": ["s"], "key_elements": ["k"], "queries": ["alpha", "beta"]}'
        case 'extractor':
          return script.extract?.(req) ?? '{"facts": []}'
        case 'neighbor':
          return script.check?.(req, checks++) ?? '{"answerable": false, "queries": []}'
        case 'condenser':
          return script.condense?.(req) ?? '{"facts": []}'
        case 'finalizer':
          return script.final ?? 'The answer [1].'
      }
    },
  })
}

export function result(url: string, snippet = `About ${url}.`, title = `Title of ${url}`): SearchResult {
  return { title, url, snippet }
}

export const calls = (llm: ScriptedLLM, role: Role) => llm.calls.filter((req) => roleOf(req) === role)
export const ofType = <T extends ResearchEvent['type']>(events: readonly ResearchEvent[], type: T) =>
  events.filter((e): e is Extract<ResearchEvent, { type: T }> => e.type === type)
