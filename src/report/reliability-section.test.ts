import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { coverAt, coverCurve } from '../metrics/cover-at.js'
import { outcomeConsistencyOf } from '../metrics/consistency.js'
import { percent } from '../metrics/format.js'
import { fourNumbers } from '../protocol/four-numbers.js'
import { actorColours } from './charts.js'
import { htmlText } from './html-template.js'
import { cellTries, coverVertices, reliabilitySectionHtml, taskConsistency } from './reliability-section.js'

const run = fakeRun({
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: 'sim:b', skill: 0.7 },
  ],
  tasks: ['t/1', 't/2', 't/3', 't/4', 't/5', 't/6'],
  repeats: 3,
})
const cells = run.summary.benchmarks[0]!.cells
const colours = actorColours(cells.map((c) => c.actorId))

describe('the reliability section', () => {
  it("reads each task's tries as the summary's reliability block counted them", () => {
    for (const cell of cells) {
      const tries = cellTries(cell)
      const r = cell.reliability!
      const point = (tau: number) => r.coverAt.find((c) => c.tau === tau)!.interval.point
      expect(coverAt(tries, 1), cell.cellId).toBeCloseTo(point(1)!, 12)
      expect(coverAt(tries, 0.5), cell.cellId).toBeCloseTo(point(0.5)!, 12)
      expect(coverCurve(tries)).toEqual(r.coverCurve)
      expect(outcomeConsistencyOf(tries).inconsistent.point).toBeCloseTo(r.outcome.inconsistent.point!, 12)
      // The strip's classes count the same tasks.
      const kinds = tries.map(taskConsistency)
      expect(kinds.filter((k) => k === 'always').length / tries.length).toBeCloseTo(point(1)!, 12)
    }
  })

  it('draws the step curve the summary gives: the vertices hold Cover(τ) at every step', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.integer({ min: 1, max: 6 }), c: fc.nat({ max: 6 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        (raw) => {
          const tries = raw.map((t, i) => ({ taskId: `t${i}`, n: t.n, c: Math.min(t.c, t.n) }))
          const vertices = coverVertices(coverCurve(tries))
          expect(vertices[0]!.tau).toBe(0)
          expect(vertices.at(-1)!.tau).toBe(1)
          // Between consecutive vertices at different τ the curve is flat at Cover(τ) of their right end.
          for (let i = 1; i < vertices.length; i++) {
            const [a, b] = [vertices[i - 1]!, vertices[i]!]
            expect(b.tau).toBeGreaterThanOrEqual(a.tau)
            if (b.tau > a.tau) {
              expect(a.cover).toBe(b.cover)
              const inside = (a.tau + b.tau) / 2
              expect(coverAt(tries, inside)).toBeCloseTo(b.cover, 12)
            }
          }
        },
      ),
      { seed: 30, numRuns: 200 },
    )
  })

  it('shows the figures of summary.json, a strip square per task and the four numbers per actor', async () => {
    const page = htmlText(await reliabilitySectionHtml(cells, { colours }))
    for (const cell of cells) {
      const one = cell.reliability!.coverAt.find((c) => c.tau === 1)!.interval
      expect(page).toContain(`data-figure="cover100">${percent(one.point)} <span class="ci">${percent(one.lo)}–`)
      const tries = cellTries(cell)
      const always = tries.filter((t) => taskConsistency(t) === 'always').length
      expect(page).toContain(`data-cell="${cell.cellId}" data-always="${always}"`)
    }
    expect(page.match(/<i class="(always|sometimes|never|unknown)"/g)).toHaveLength(6 * cells.length)
    for (const f of fourNumbers(cells)) {
      expect(page).toContain(`<tr data-actor="${f.actorId}">`)
      expect(f.passHatK!.value).toBe(
        cells.find((c) => c.actorId === f.actorId && c.mode === 'independent')!.passHat!.at(-1),
      )
    }
    expect(page).toContain('<figure class="cover" data-lines="6">')
  })

  it('says unknown, never 0, for a cell that measured nothing', async () => {
    const failing = fakeRun({
      tasks: ['t/1', 't/2'],
      errorFor: (_task, _r, actor) => (actor === 'sim:quick' ? 'connect ECONNREFUSED 127.0.0.1:9' : undefined),
    })
    const fcells = failing.summary.benchmarks[0]!.cells
    const page = htmlText(await reliabilitySectionHtml(fcells, { colours: actorColours(fcells.map((c) => c.actorId)) }))
    const quick = fcells.filter((c) => c.actorId === 'sim:quick')
    expect(quick.length).toBeGreaterThan(0)
    for (const cell of quick) {
      const row = page.slice(page.indexOf(`<tr data-cell="${cell.cellId}">`))
      const end = row.indexOf('</tr>')
      expect(row.slice(0, end)).toContain('data-figure="cover100">unknown')
      expect(row.slice(0, end)).not.toMatch(/>0\.0</)
      expect(page).toContain(
        `data-cell="${cell.cellId}" data-always="0" data-sometimes="0" data-never="0" data-unknown="2"`,
      )
    }
    const four = page.slice(page.indexOf('<tr data-actor="sim:quick">'))
    expect(four.slice(0, four.indexOf('</tr>'))).toContain('data-four="passHatK">unknown')
  })
})
