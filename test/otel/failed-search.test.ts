import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { failedQueryId } from '../../src/otel/failed-search.js'

describe('failedQueryId', () => {
  const open = new Map([
    ['q1', { query: 'sky colour' }],
    ['q2', { query: 'sky' }],
    ['q3', { query: 'sky colour' }],
  ])

  it('finds the open search a failure warning names, the oldest first', () => {
    expect(failedQueryId('search "sky colour" failed: 503', open)).toBe('q1')
    expect(failedQueryId('search "sky" failed: timeout', open)).toBe('q2')
  })

  it('ignores retries, other warnings and searches that are not open', () => {
    expect(failedQueryId('search "sky": attempt 1 failed (503); retrying in 200 ms', open)).toBeUndefined()
    expect(failedQueryId('no results for "sky"', open)).toBeUndefined()
    expect(failedQueryId('search "rain" failed: 503', open)).toBeUndefined()
  })

  it('never throws, whatever the message and queries', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.tuple(fc.string(), fc.string())), (message, entries) => {
        const found = failedQueryId(message, new Map(entries.map(([id, query]) => [id, { query }])))
        expect(found === undefined || entries.some(([id]) => id === found)).toBe(true)
      }),
    )
  })
})
