import { htmlText } from './html-template.js'
import { describe, expect, it } from 'vitest'
import { cellStartOf, fakeRun } from '../../test/report-fixtures.js'
import { DisclosureCardSchema } from '../core/disclosure.js'
import { disclosureCard, disclosureLines, type DisclosureInput } from './disclosure.js'
import { disclosureCommentLines, disclosureSectionHtml } from './disclosure-section.js'

const HARNESS: DisclosureInput['harness'] = {
  vitestSeqk: '0.1.0',
  vitest: '4.1.12',
  node: 'v20.20.2',
  python: null,
  pythonUsed: false,
  sdks: { openai: '6.49.0' },
  os: { platform: 'linux', release: '6.1.0', version: '#1 SMP', arch: 'x64' },
  git: { commit: 'b'.repeat(40), clean: false, branch: 'main' },
  collected: { at: '2026-01-01T00:00:06.000Z', by: 'reporter' },
}

function cardOf(benchmark: string) {
  const { summary, trajectories } = fakeRun({ benchmark })
  const starts = summary.benchmarks.flatMap((b) => b.cells.map((c) => cellStartOf(c, b.file)))
  return DisclosureCardSchema.parse(disclosureCard({ summary, starts, trajectories, harness: HARNESS }))
}

describe('the disclosure card in the report and the PR comment', () => {
  it('the report section has every line seqk disclose prints, under its part, each escaped (hostile benchmark name)', () => {
    const card = cardOf('<img src=x onerror=alert(1)> & co')
    const html = htmlText(disclosureSectionHtml(card))
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; co')
    const headings = [...html.matchAll(/<h3>([^<]*)<\/h3>/g)].map((m) => m[1])
    expect(headings.slice(0, 5)).toEqual(['Benchmark', 'Harness', 'Inference', 'Cost', 'Failures'])
    expect(headings[5]).toMatch(/^Completeness \d+% \(\d+ of \d+ required fields known\)$/)
    const items = [...html.matchAll(/<li>([^<]*)<\/li>/g)].length
    expect(items).toBe(disclosureLines(card).filter((l) => l.startsWith(' ')).length)
  })

  it('the PR comment gets two lines: completeness and harness, then cost', () => {
    const card = cardOf('toy')
    const [first, second] = disclosureCommentLines(card)
    expect(first).toMatch(
      new RegExp(
        `^\\*\\*Disclosure\\*\\* ${Math.round(card.completeness.score * 100)}% complete \\(${card.completeness.known} of ${card.completeness.required} fields\\)`,
      ),
    )
    expect(first).toContain('vitest-seqk 0.1.0 · Vitest 4.1.12 · Node v20.20.2 · commit bbbbbbbbbbbb (modified)')
    expect(first).not.toContain('Python')
    expect(second).toMatch(/^\*\*Cost\*\* \$\S+ for \d+ calls \(/)
    expect(second).not.toContain('cost cap')
    const capped = {
      ...card,
      failures: {
        ...card.failures,
        unfinishedCells: [
          { benchmark: 'toy', cellId: 'a', reason: 'stopped at the cost cap (run maxCostUsd $1.00, $1.02 spent): …' },
        ],
      },
    }
    expect(disclosureCommentLines(capped)[1]).toMatch(/ · 1 cell stopped at the cost cap$/)
  })
})
