import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ResearchEvent } from '../../src/index.js'
import { logEvents } from '../../src/streams/index.js'

/** The URL `logEvents` writes for a page read from `url`: the one place a log shows a page URL. */
async function loggedUrl(url: string): Promise<string> {
  const messages: string[] = []
  const page = { type: 'page', url, chars: 1, runId: 'r', seq: 0, time: 0 } as ResearchEvent
  await logEvents(
    (async function* () {
      yield page
    })(),
    { info: (_fields, message) => messages.push(message) },
  )
  expect(messages).toHaveLength(1)
  expect(messages[0]!.startsWith('read ')).toBe(true)
  return messages[0]!.slice('read '.length)
}

describe('a page URL in the log', () => {
  it('drops credentials and keeps the rest', async () => {
    expect(await loggedUrl('https://user:pw@a.example/p?q=1#f')).toBe('https://a.example/p?q=1#f')
  })

  it('redacts credential-looking query values', async () => {
    expect(await loggedUrl('https://a.example/p?api_key=SECRET&q=sky&sig=abc')).toBe('https://a.example/p?api_key=%5Bredacted%5D&q=sky&sig=%5Bredacted%5D')
  })

  it('strips any credentials from any web URL', async () => {
    await fc.assert(
      fc.asyncProperty(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.string(), fc.string(), async (url, user, password) => {
        const withCredentials = url.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`)
        const out = await loggedUrl(withCredentials)
        expect([new URL(out).username, new URL(out).password]).toEqual(['', ''])
        expect(new URL(out).hostname).toBe(new URL(url).hostname)
      }),
    )
  })

  it('is text that is not a URL, left as it was (nothing parsed), and never throws', async () => {
    expect(await loggedUrl('not a url')).toBe('not a url')
    await fc.assert(
      fc.asyncProperty(fc.string(), async (raw) => {
        const out = await loggedUrl(raw)
        if (URL.canParse(out)) expect([new URL(out).username, new URL(out).password]).toEqual(['', ''])
        else expect(out).toBe(raw)
      }),
    )
  })
})
