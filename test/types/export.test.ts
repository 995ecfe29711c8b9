import { expectTypeOf, it } from 'vitest'
import type { ResearchResult } from '../../src/index.js'
import { type ExportableResult, type PdfOptions, toDOCX, toHTML, toMarkdown, toPDF } from '../../src/export/index.js'

it('export: a result in, a text or the bytes of a file out', () => {
  expectTypeOf<ResearchResult>().toMatchTypeOf<ExportableResult>()
  expectTypeOf(toMarkdown).toEqualTypeOf<(result: ExportableResult) => string>()
  expectTypeOf(toHTML).toEqualTypeOf<(result: ExportableResult) => string>()
  expectTypeOf(toDOCX).returns.toEqualTypeOf<Promise<Uint8Array>>()
  expectTypeOf(toPDF).parameters.toEqualTypeOf<[result: ExportableResult, options?: PdfOptions]>()
  expectTypeOf<PdfOptions['executablePath']>().toEqualTypeOf<string | undefined>()
})
