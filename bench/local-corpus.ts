/**
 * localCorpus at scale: index 10,000 generated small documents (a heading and a few
 * paragraphs each) and run 1,000 two- and three-word queries. The issue asks that
 * indexing take seconds, not minutes. No network.
 *
 * Two corpora: words drawn from a 5,000-word vocabulary with a Zipf-like (1/rank)
 * frequency, as in real text; and a worst case where the whole corpus uses 48 words,
 * so every query term occurs in nearly every chunk and each query scores all of them.
 */
import { localCorpus } from '../src/adapters/search/index.js'
import type { LocalDocument } from '../src/adapters/search/index.js'
import { percentile, round } from './stats.js'
import { random, vocabulary, zipf } from './made-up-words.js'

const SUBJECTS = ['llama', 'alpaca', 'vicuña', 'guanaco', 'camel', 'yak', 'reindeer', 'bison', 'tapir', 'okapi', 'quokka', 'wombat']
const TOPICS = ['diet', 'habitat', 'migration', 'breeding', 'wool', 'altitude', 'water', 'predators', 'herds', 'domestication', 'disease', 'climate']
const WORDS = [
  'grass',
  'hay',
  'minerals',
  'selenium',
  'valley',
  'plateau',
  'winter',
  'summer',
  'calf',
  'fibre',
  'market',
  'farmers',
  'survey',
  'census',
  'tracking',
  'collar',
  'study',
  'report',
  'river',
  'desert',
  'forest',
  'ridge',
  'season',
  'growth',
]

function generate(count: number, rand: () => number, word: () => string): LocalDocument[] {
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(rand() * 10) }, () => (rand() < 0.2 ? pick(SUBJECTS, rand) : word()))
    return `${words.join(' ')} ${Math.floor(rand() * 3000)}.`
  }
  return Array.from({ length: count }, (_, n) => {
    const subject = pick(SUBJECTS, rand)
    const topic = pick(TOPICS, rand)
    const paragraphs = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => Array.from({ length: 2 + Math.floor(rand() * 3) }, sentence).join(' '))
    return { id: `doc-${n}`, text: `# ${subject} ${topic}\n\n${paragraphs[0]}\n\n## ${pick(TOPICS, rand)}\n\n${paragraphs.slice(1).join('\n\n')}` }
  })
}

async function measure(label: string, documents: LocalDocument[], queries: string[]): Promise<Record<string, unknown>> {
  const corpus = localCorpus({ documents })
  const indexStarted = performance.now()
  await corpus.search('warm') // the first call builds the index
  const indexSeconds = (performance.now() - indexStarted) / 1000

  const timings: number[] = []
  let results = 0
  for (const query of queries) {
    const started = performance.now()
    results += (await corpus.search(query, { limit: 8 })).length
    timings.push(performance.now() - started)
  }
  return {
    corpus: label,
    documents: documents.length,
    queries: queries.length,
    indexSeconds: round(indexSeconds, 2),
    queryP50Ms: round(percentile(timings, 50), 2),
    queryP99Ms: round(percentile(timings, 99), 2),
    meanResults: round(results / queries.length, 1),
  }
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[] }> {
  const rand = random(42)
  const words = vocabulary(5_000, rand)
  // Query words of middling frequency (ranks 50–2000), as a researcher's terms would be.
  const realistic = Array.from({ length: 1_000 }, () =>
    [pick(SUBJECTS, rand), ...Array.from({ length: 1 + Math.floor(rand() * 2) }, () => words[50 + Math.floor(rand() * 1950)] as string)].join(' '),
  )
  const worst = Array.from({ length: 1_000 }, () =>
    [pick(SUBJECTS, rand), pick(TOPICS, rand), pick(WORDS, rand)].slice(0, 2 + Math.floor(rand() * 2)).join(' '),
  )
  return {
    name: 'local-corpus',
    rows: [
      await measure(
        'zipf vocabulary (5,000 words)',
        generate(10_000, rand, () => zipf(words, rand)),
        realistic,
      ),
      await measure(
        'worst case (48 words)',
        generate(10_000, rand, () => pick(WORDS, rand)),
        worst,
      ),
    ],
  }
}

function pick<T>(list: readonly T[], rand: () => number): T {
  return list[Math.floor(rand() * list.length)] as T
}
