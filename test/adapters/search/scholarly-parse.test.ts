/**
 * arXiv's and NCBI's XML, as `arxiv()` and `pubmed()` read it on the extraction thread: hostile
 * bodies are bounded in time there and expand no entities of their own.
 */
import { describe, expect, it } from 'vitest'
import { arxiv, createPacer, pubmed } from '../../../src/adapters/index.js'
import { readXmlAnswer } from '../../../src/adapters/search/scholarly-parse.js'
import { loopbacks } from '../http/loopback.js'

const serve = loopbacks()
const once = { pacer: createPacer({ intervalMs: 0 }), maxRetries: 0 }

/** A server answering every request with `body`, as XML. */
const servingXml = (body: string) =>
  serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/atom+xml; charset=UTF-8' })
    res.end(body)
  })

describe('XML answers off the main thread', () => {
  it('a body nested too deep to read in its budget is unreadable, the thread stopped', { timeout: 60_000 }, async () => {
    // 200,000 nested elements take linkedom tens of seconds; a 200 ms budget ends the read on any
    // machine. The adapters' own 5 s budget and their bad-response error are scholarly-unreadable.test.ts's.
    const deep = `<feed xmlns="http://www.w3.org/2005/Atom">${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</feed>`
    await expect(readXmlAnswer('arxiv', deep, undefined, 200)).resolves.toMatchObject({ kind: 'unreadable' })
    // The pool goes on with a fresh thread: esearch's one id is what esummary is asked for.
    const eutils = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/xml; charset=UTF-8' })
      res.end(req.url.startsWith('/esearch.fcgi') ? '<eSearchResult><IdList><Id>1</Id></IdList></eSearchResult>' : '<eSummaryResult></eSummaryResult>')
    })
    await expect(pubmed({ baseURL: eutils.url, ...once }).search('llama')).resolves.toEqual([])
    expect(new URL(eutils.requests[1]?.url ?? '/', 'http://x').searchParams.get('id')).toBe('1')
  })

  it('expands no entity a body declares (no billion laughs)', async () => {
    const laughs = `<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2202.12139v1</id><title>&lol2; &amp; more</title><summary>&#233;t&#xE9;</summary></entry></feed>`
    const feed = await servingXml(laughs)
    const results = await arxiv({ baseURL: feed.url, ...once }).search('llama')
    expect(results).toMatchObject([{ title: '&lol2; & more', snippet: 'été', url: 'https://arxiv.org/abs/2202.12139v1' }])
  })
})
