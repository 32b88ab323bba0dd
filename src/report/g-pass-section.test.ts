import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { intervalText, percent } from '../metrics/format.js'
import { gPassAtK } from '../metrics/g-pass-at-k.js'
import { htmlText } from './html-template.js'
import { gPassSectionHtml } from './g-pass-section.js'

describe('the G-Pass@K table', () => {
  const run = fakeRun({ repeats: 3, tasks: ['t/1', 't/2', 't/3', 't/4', 't/5', 't/6'] })
  const cells = run.summary.benchmarks[0]!.cells

  it("shows each independent cell's G-Pass@K per τ with its interval, between Pass@K and pass^K", () => {
    const text = htmlText(gPassSectionHtml(cells))
    const independent = cells.filter((c) => c.protocol.kind === 'independent')
    expect(independent.length).toBeGreaterThan(0)
    for (const c of independent) {
      // The summary's value is the mean over tasks of the per-task estimate from its samples.
      const g = c.gPass!.find((x) => x.tau === 0.5)!
      const expected =
        c.perTask.reduce((n, t) => n + gPassAtK(t.samples!, t.passes!, c.budget, 0.5), 0) / c.perTask.length
      expect(g.atK.point).toBeCloseTo(expected, 12)
      expect(text).toContain(`${percent(g.atK.point)} <span class="ci">${intervalText(g.atK.lo, g.atK.hi)}</span>`)
      const K = c.budget - 1
      expect(g.curve[K]! <= c.passAt![K]! + 1e-12 && g.curve[K]! >= c.passHat![K]! - 1e-12).toBe(true)
    }
    expect(text.match(/<tr data-cell=/g)).toHaveLength(independent.length)
  })

  it('is absent when no cell sampled independently (or the file is older)', () => {
    expect(htmlText(gPassSectionHtml(cells.filter((c) => c.protocol.kind !== 'independent')))).toBe('')
    expect(htmlText(gPassSectionHtml(cells.map(({ gPass: _, ...c }) => c)))).toBe('')
  })
})
