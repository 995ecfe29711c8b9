import { describe, expect, it } from 'vitest'
import { LaconicError } from '../../src/index.js'
import { encodeSSEComment, encodeSSEFrame } from '../../src/streams/sse-frame.js'

describe('encodeSSEFrame', () => {
  it('writes id, event, retry and data lines, then the blank line', () => {
    expect(encodeSSEFrame({ id: '3', event: 'fact', retry: 1500, data: '{"a":1}' })).toBe('id: 3\nevent: fact\nretry: 1500\ndata: {"a":1}\n\n')
  })

  it.each([
    ['LF', 'one\ntwo'],
    ['CR', 'one\rtwo'],
    ['CRLF', 'one\r\ntwo'],
  ])('splits multi-line data on %s into data lines', (_name, data) => {
    expect(encodeSSEFrame({ data })).toBe('data: one\ndata: two\n\n')
  })

  it('keeps empty data and empty lines as data lines', () => {
    expect(encodeSSEFrame({ data: '' })).toBe('data: \n\n')
    expect(encodeSSEFrame({ data: '\n' })).toBe('data: \ndata: \n\n')
  })

  it.each([['id'], ['event']] as const)('refuses a line break in %s (field injection)', (field) => {
    expect(() => encodeSSEFrame({ [field]: 'x\ndata: injected' })).toThrow(LaconicError)
  })

  it('refuses a retry that is not a non-negative integer', () => {
    expect(() => encodeSSEFrame({ retry: -1 })).toThrow(/retry/)
    expect(() => encodeSSEFrame({ retry: 1.5 })).toThrow(/retry/)
  })

  it('writes comments as a colon line', () => {
    expect(encodeSSEComment('heartbeat')).toBe(': heartbeat\n\n')
    expect(() => encodeSSEComment('a\nb')).toThrow(LaconicError)
  })
})
