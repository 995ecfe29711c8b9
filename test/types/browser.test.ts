/**
 * Type-level tests of `laconic-research/browser`: what `browserFetch` takes and gives, and that
 * it plugs in where a fetch provider goes (httpFetch's fallback). Types only: nothing loads
 * playwright-core here.
 */
import { describe, expectTypeOf, it } from 'vitest'
import type { httpFetch } from '../../src/adapters/index.js'
import type { BrowserFetchOptions, BrowserFetchProvider, browserFetch } from '../../src/browser/index.js'
import type { FetchProvider } from '../../src/index.js'

type HttpFetchOptions = NonNullable<Parameters<typeof httpFetch>[0]>

describe('browserFetch', () => {
  it('takes optional options and gives a fetch provider that can be closed', () => {
    expectTypeOf<typeof browserFetch>().parameters.toEqualTypeOf<[options?: BrowserFetchOptions]>()
    expectTypeOf<ReturnType<typeof browserFetch>>().toEqualTypeOf<BrowserFetchProvider>()
    expectTypeOf<BrowserFetchProvider>().toExtend<FetchProvider>()
    expectTypeOf<BrowserFetchProvider['close']>().toEqualTypeOf<() => Promise<void>>()
  })

  it('is httpFetch fallback', () => {
    expectTypeOf<BrowserFetchProvider>().toExtend<NonNullable<HttpFetchOptions['fallback']>>()
  })

  it('names its limits and its allowed destinations', () => {
    expectTypeOf<BrowserFetchOptions['allowOrigins']>().toEqualTypeOf<readonly string[] | undefined>()
    expectTypeOf<BrowserFetchOptions['executablePath']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<BrowserFetchOptions['maxPages']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<BrowserFetchOptions['timeoutMs']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<BrowserFetchOptions['maxBytes']>().toEqualTypeOf<number | undefined>()
  })
})
