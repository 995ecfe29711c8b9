import type { ResearchResult } from '../../src/index.js'

/** A long report's result, with hostile text where a page or a model could put it. */
export function reportResult(): Pick<ResearchResult, 'answer' | 'citations' | 'report'> {
  return {
    answer: '# ignored by the exports, which read the report',
    citations: [
      { index: 1, url: 'https://own.example/a?x=1&y=2', title: 'Own <b>source</b>' },
      { index: 2, url: 'javascript:alert(1)', title: 'A hostile link' },
    ],
    report: {
      title: 'Tides & <script>window.pwned = 1</script> moons',
      executiveSummary: 'The report covers tides.',
      mainFindings: [],
      conclusions: ['Tides follow the moon.'],
      limitations: [],
      recommendations: [],
      sourcesSummary: '2 source(s) across 2 section(s).',
      sections: [
        {
          title: 'Why tides rise',
          text: 'The moon pulls the oceans [1]. A second paragraph cites both [1, 2].\n\n- a list item [2]\n- another <img src=x onerror="window.pwned=2">',
        },
        { title: 'How often', text: 'Twice a day [1]. An unknown number [9] stays as written.' },
      ],
    },
  }
}
