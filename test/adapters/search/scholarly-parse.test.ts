/**
 * arXiv's and NCBI's XML read on the extraction thread: hostile bodies are bounded in time there
 * and expand no entities of their own.
 */
import { describe, expect, it } from 'vitest'
import { readXmlAnswer } from '../../../src/adapters/search/scholarly-parse.js'

describe('XML answers off the main thread', () => {
  it('a body nested too deep to read in its budget is unreadable, the thread stopped', { timeout: 60_000 }, async () => {
    // 200,000 nested elements take linkedom tens of seconds; the budget here is 200 ms.
    const deep = `<feed xmlns="http://www.w3.org/2005/Atom">${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</feed>`
    await expect(readXmlAnswer('arxiv', deep, undefined, 200)).resolves.toMatchObject({ kind: 'unreadable' })
    // The pool goes on with a fresh thread.
    await expect(readXmlAnswer('esearch', '<eSearchResult><IdList><Id>1</Id></IdList></eSearchResult>')).resolves.toEqual({ kind: 'ids', ids: ['1'] })
  })

  it('expands no entity a body declares (no billion laughs)', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2202.12139v1</id><title>&lol2; &amp; more</title><summary>&#233;t&#xE9;</summary></entry></feed>`
    const feed = await readXmlAnswer('arxiv', laughs)
    expect(feed).toMatchObject({ kind: 'results', results: [{ title: '&lol2; & more', snippet: 'été', url: 'https://arxiv.org/abs/2202.12139v1' }] })
  })
})
