import { LaconicError } from '../core/contracts/laconic-error.js'
import { documentOf, linkable, paragraphsOf, referenceLine, type ExportableResult } from './document.js'

type Docx = typeof import('docx')

/** `docx` is an optional peer: loaded on first use, with the command that installs it when missing. */
async function loadDocx(): Promise<Docx> {
  try {
    return await import('docx')
  } catch (error) {
    throw new LaconicError('toDOCX needs the `docx` package, which is not installed', { code: 'config', hint: 'npm install docx', cause: error })
  }
}

/** The result as a Word document (.docx bytes): the title, a heading a block, its paragraphs and lists, and the references with their links. */
export async function toDOCX(result: ExportableResult): Promise<Uint8Array> {
  const { Document, ExternalHyperlink, HeadingLevel, Packer, Paragraph, TextRun } = await loadDocx()
  const doc = documentOf(result)
  const children: InstanceType<Docx['Paragraph']>[] = [new Paragraph({ text: doc.title, heading: HeadingLevel.TITLE })]
  for (const block of doc.blocks) {
    if (block.heading) children.push(new Paragraph({ text: block.heading, heading: HeadingLevel.HEADING_1 }))
    for (const p of paragraphsOf(block.text)) {
      if (p.kind === 'list') for (const item of p.items) children.push(new Paragraph({ text: item, bullet: { level: 0 } }))
      else children.push(new Paragraph({ text: p.text }))
    }
  }
  if (doc.references.length) {
    children.push(new Paragraph({ text: 'References', heading: HeadingLevel.HEADING_1 }))
    for (const ref of doc.references) {
      const label = referenceLine({ ...ref, url: '' }).trimEnd()
      children.push(
        new Paragraph({
          children: [
            new TextRun(`${label} `),
            linkable(ref.url) ? new ExternalHyperlink({ link: ref.url, children: [new TextRun({ text: ref.url, style: 'Hyperlink' })] }) : new TextRun(ref.url),
          ],
        }),
      )
    }
  }
  const file = new Document({ title: doc.title, sections: [{ children }] })
  return new Uint8Array(await Packer.toArrayBuffer(file))
}
