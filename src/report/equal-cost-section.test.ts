import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { htmlText } from './html-template.js'
import { equalCostSectionHtml } from './equal-cost-section.js'

describe('the equal-cost section', () => {
  const { summary } = fakeRun({ repeats: 3, costPerAttempt: 0.001 })
  const pairs = summary.equalCost!

  it('shows every pair with its verdicts in tokens and dollars and a chart of both curves', () => {
    const text = htmlText(equalCostSectionHtml(pairs, 'toy benchmark'))
    expect(text.match(/<tr data-pair=/g)).toHaveLength(pairs.length)
    for (const p of pairs) {
      expect(text).toContain(`data-verdict="${p.tokens.verdict}"`)
      expect(text).toContain(p.usd.note)
    }
    expect(text.match(/<svg class="equal-cost-chart"/g)).toHaveLength(pairs.length)
    // Priced and not all $0: drawn in dollars.
    expect(text).toContain('against mean dollars per task')
    expect(text).toContain('a solved task stops spending')
  })

  it('says unknown, never draws a curve at $0, when the spend is unknown; nothing for another benchmark', () => {
    const unknown = pairs.map((p) => ({
      ...p,
      tokens: { ...p.tokens, verdict: 'unknown' as const, note: 'unknown: tokens; unknown is not 0' },
      usd: { ...p.usd, verdict: 'unknown' as const, note: 'unknown: dollars; unknown is not 0' },
    }))
    const text = htmlText(equalCostSectionHtml(unknown, 'toy benchmark'))
    expect(text).not.toContain('<svg')
    expect(text).toContain('no curve: the spend is unknown')
    expect(htmlText(equalCostSectionHtml(pairs, 'another benchmark'))).toBe('')
  })
})
