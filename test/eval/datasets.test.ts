/**
 * The dataset readers on a few rows in each published schema, written from the formats' public
 * documentation and files (SimpleQA's `simple_qa_test_set.csv`, FRAMES' `test.tsv`, HotpotQA's
 * dev JSON), plus bad rows: each one is reported with its line and skipped.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePythonLiteral } from '../../src/eval/python-literal.js'
import { type ReadDatasetOptions, readDataset } from '../../src/eval/index.js'
import { localCorpus } from '../../src/adapters/index.js'

/** A dataset read through the public entry: `text` written to a file named `name` (its format guessed from it unless given). */
async function parse(text: string, options: ReadDatasetOptions & { name?: string } = {}) {
  const { name = 'data.txt', ...rest } = options
  const file = join(await mkdtemp(join(tmpdir(), 'laconic-dataset-')), name)
  await writeFile(file, text)
  return readDataset(file, rest)
}

const SIMPLEQA = `metadata,problem,answer
"{'topic': 'Science and technology', 'answer_type': 'Person', 'urls': ['https://en.wikipedia.org/wiki/IEEE_Frank_Rosenblatt_Award', 'https://ieeexplore.ieee.org/author/37271220500']}",Who received the IEEE Frank Rosenblatt Award in 2010?,Michio Sugeno
"{'topic': 'Geography', 'answer_type': 'Place', 'urls': ['https://en.wikipedia.org/wiki/Radcliffe_College']}","What's the name of the women's liberal arts college in Cambridge, Massachusetts?",Radcliffe College
"{'topic': 'Art', 'answer_type': 'Person', 'urls': []}","According to Karl Küchler, what did Empress Elizabeth of Austria's favorite sculpture depict?",
"{'topic': 'Sports', 'answer_type': 'Person', 'urls': ['https://en.wikipedia.org/wiki/Leipzig_1877_chess_tournament']}",In whose honor was the Leipzig 1877 tournament organized?,Adolf Anderssen
`

const FRAMES = [
  '\tPrompt\tAnswer\twikipedia_link_1\twikipedia_link_2\twikipedia_link_11+\treasoning_types\twiki_links',
  "0\tIf my future wife has the same first name as the 15th first lady of the United States' mother and her surname is the same as the second assassinated president's mother's maiden name, what is my future wife's name? \tJane Ballou\thttps://en.wikipedia.org/wiki/President_of_the_United_States\thttps://en.wikipedia.org/wiki/James_Buchanan\t\tMultiple constraints\t['https://en.wikipedia.org/wiki/President_of_the_United_States', 'https://en.wikipedia.org/wiki/James_Buchanan', 'https://en.wikipedia.org/wiki/Harriet_Lane']",
  '1\tImagine there is a building called Bronte tower whose height in feet is the same number as the dewey decimal classification for the Charlotte Bronte book that was published in 1847. Where would this building rank among tallest buildings in New York City, as of August 2024?\t37th\thttps://en.wikipedia.org/wiki/Charlotte_Bront%C3%AB\thttps://en.wikipedia.org/wiki/Jane_Eyre\t\tNumerical reasoning | Tabular reasoning | Multiple constraints\t["https://en.wikipedia.org/wiki/Charlotte_Bront%C3%AB", "https://en.wikipedia.org/wiki/Jane_Eyre"]',
  '2\tToo few cells\tx',
].join('\n')

const HOTPOT = JSON.stringify(
  [
    {
      _id: '5a8b57f25542995d1e6f1371',
      answer: 'yes',
      question: 'Were Scott Derrickson and Ed Wood of the same nationality?',
      supporting_facts: [
        ['Scott Derrickson', 0],
        ['Ed Wood', 0],
      ],
      context: [
        ['Ed Wood (film)', ['Ed Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton.']],
        [
          'Scott Derrickson',
          ['Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.', ' He lives in Los Angeles, California.'],
        ],
        ['Ed Wood', ['Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director.']],
      ],
      type: 'comparison',
      level: 'hard',
    },
    {
      _id: '5a8c7595554299585d9e36b6',
      question: 'What government position was held by the woman who portrayed Corliss Archer?',
      supporting_facts: [],
      context: [],
    },
    {
      _id: '5a85ea095542994775f606a8',
      answer: 'Animorphs',
      question:
        'What science fantasy young adult series, told in first person, has a set of companion books narrating the stories of enslaved worlds and alien species?',
      supporting_facts: [['Animorphs', 0]],
      context: [['Animorphs', ['Animorphs is a science fantasy series of young adult books written by Katherine Applegate and her husband Michael Grant.']]],
      type: 'bridge',
      level: 'hard',
    },
  ],
  null,
  1,
)

describe('SimpleQA CSV', () => {
  it('reads problem, answer and the metadata dict (topic and answer type as tags, urls as evidence)', async () => {
    const dataset = await parse(SIMPLEQA, { name: 'simple_qa_test_set.csv' })
    expect(dataset.rows.map((row) => row.answers)).toEqual([['Michio Sugeno'], ['Radcliffe College'], ['Adolf Anderssen']])
    expect(dataset.rows[0]).toMatchObject({
      question: 'Who received the IEEE Frank Rosenblatt Award in 2010?',
      tags: ['Science and technology', 'Person'],
      evidence: [{ url: 'https://en.wikipedia.org/wiki/IEEE_Frank_Rosenblatt_Award' }, { url: 'https://ieeexplore.ieee.org/author/37271220500' }],
    })
    expect(dataset.rows[1]?.question).toBe("What's the name of the women's liberal arts college in Cambridge, Massachusetts?")
    // The row with no answer is reported at its line, not dropped silently.
    expect(dataset.problems).toEqual([{ line: 4, message: expect.stringContaining('answers') }])
    expect(new Set(dataset.rows.map((row) => row.id)).size).toBe(3)
  })

  it('names the missing column of a file that is not SimpleQA', async () => {
    await expect(parse('metadata,question\n{},x\n', { format: 'simpleqa' })).rejects.toThrow(/no column "problem", "answer"/)
  })
})

describe('FRAMES TSV', () => {
  it('reads Prompt and Answer, wiki_links as evidence (Python or JSON list), reasoning_types as tags, the index as id', async () => {
    const dataset = await parse(FRAMES, { name: 'test.tsv' })
    expect(dataset.rows).toHaveLength(2)
    expect(dataset.rows[0]).toMatchObject({ id: 'frames-0', answers: ['Jane Ballou'], tags: ['Multiple constraints'] })
    expect(dataset.rows[0]?.evidence?.map((e) => e.url)).toEqual([
      'https://en.wikipedia.org/wiki/President_of_the_United_States',
      'https://en.wikipedia.org/wiki/James_Buchanan',
      'https://en.wikipedia.org/wiki/Harriet_Lane',
    ])
    expect(dataset.rows[1]?.tags).toEqual(['Numerical reasoning', 'Tabular reasoning', 'Multiple constraints'])
    expect(dataset.rows[1]?.evidence).toHaveLength(2)
    expect(dataset.problems).toEqual([{ line: 4, message: '3 columns where the header has 8' }])
  })
})

describe('HotpotQA JSON', () => {
  it('reads the questions, the supporting sentences as evidence, and the context paragraphs as a corpus', async () => {
    const dataset = await parse(HOTPOT, { name: 'hotpot_dev_distractor_v1.json' })
    expect(dataset.rows.map((row) => row.id)).toEqual(['5a8b57f25542995d1e6f1371', '5a85ea095542994775f606a8'])
    expect(dataset.rows[0]).toMatchObject({ answers: ['yes'], tags: ['comparison', 'hard'] })
    expect(dataset.rows[0]?.evidence?.map((e) => e.text)).toEqual([
      'Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.',
      'Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director.',
    ])
    // The second item has no answer (a test-set question): reported at the line its object starts on.
    const secondLine = HOTPOT.split('\n').findIndex((line) => line.includes('5a8c7595554299585d9e36b6')) // its `_id` line
    expect(dataset.problems).toEqual([{ line: secondLine, message: expect.stringContaining('answer') }])
    expect(dataset.documents?.map((d) => d.title)).toEqual(['Ed Wood (film)', 'Scott Derrickson', 'Ed Wood', 'Animorphs'])
    // The corpus runs offline: searching it finds the supporting paragraph.
    const corpus = localCorpus({ documents: dataset.documents ?? [] })
    const hits = await corpus.search('Scott Derrickson nationality director')
    expect(hits[0]?.url).toBe(dataset.rows[0]?.evidence?.[0]?.url)
  })
})

describe('JSONL, and CSV or JSONL with a column mapping', () => {
  it('reads laconic rows and reports each bad line (not JSON, no question, repeated id) with its number', async () => {
    const text = [
      JSON.stringify({ id: 'q1', question: 'Who?', answers: ['Ada'], evidence: [{ url: 'https://x.test', text: 'Ada did' }], tags: ['t'] }),
      '',
      '{not json',
      JSON.stringify({ id: 'q2', answers: ['x'] }),
      JSON.stringify({ id: 'q1', question: 'Again?', answers: ['y'] }),
      JSON.stringify({ id: 3, question: 'Numbered?', answers: ['z'], evidence: [{}] }),
      JSON.stringify({ id: 4, question: 'Numbered?', answers: ['z'] }),
    ].join('\n')
    const dataset = await parse(text, { format: 'jsonl' })
    expect(dataset.rows.map((row) => row.id)).toEqual(['q1', '4'])
    expect(dataset.problems.map((problem) => problem.line)).toEqual([3, 4, 5, 6])
    expect(dataset.problems[2]?.message).toBe('id "q1" repeats line 1')
  })

  it('maps CSV columns, splitting a plain answers cell on the separator and reading a list cell as a list', async () => {
    const csv = 'qid,query,gold,links\nA,"What, exactly?",x|y,"[""https://a.test"", ""some passage""]"\nB,Second?,z,\n'
    const dataset = await parse(csv, { format: 'csv', mapping: { id: 'qid', question: 'query', answers: 'gold', evidence: 'links', separator: '|' } })
    expect(dataset.rows).toEqual([
      { id: 'A', question: 'What, exactly?', answers: ['x', 'y'], evidence: [{ url: 'https://a.test' }, { text: 'some passage' }] },
      { id: 'B', question: 'Second?', answers: ['z'] },
    ])
    await expect(parse(csv, { format: 'csv' })).rejects.toThrow(/column mapping/)
  })

  it('maps JSONL fields of another shape', async () => {
    const text = `${JSON.stringify({ q: 'Who?', a: 'Ada' })}\n${JSON.stringify({ q: 'Which?', a: ['B', 'C'] })}\n`
    const dataset = await parse(text, { format: 'jsonl', mapping: { question: 'q', answers: 'a' } })
    expect(dataset.rows.map((row) => [row.id, row.answers])).toEqual([
      ['line-1', ['Ada']],
      ['line-2', ['B', 'C']],
    ])
  })

  it('readDataset reads a file and guesses its format from the name and header', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'laconic-dataset-'))
    await writeFile(join(dir, 'simple.csv'), SIMPLEQA)
    expect((await readDataset(join(dir, 'simple.csv'))).rows).toHaveLength(3)
  })
})

describe('parsePythonLiteral', () => {
  it('reads what repr writes for dicts, lists and strings with quotes and escapes', () => {
    expect(parsePythonLiteral(`{'a': "it's", 'b': [1, 2.5, True, None], 'c': 'x\\'y\\n\\u00e9'}`)).toEqual({ a: "it's", b: [1, 2.5, true, null], c: "x'y\né" })
  })

  it('is total: any text gives a value or undefined, never an exception', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parsePythonLiteral(text)
      }),
    )
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(
          parsePythonLiteral(
            JSON.stringify(value)
              .replace(/\btrue\b/g, 'True')
              .replace(/\bfalse\b/g, 'False')
              .replace(/\bnull\b/g, 'None'),
          ),
        ).toBeDefined()
      }),
    )
  })
})
