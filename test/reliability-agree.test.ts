// The report and `seqk analyze` tell the same story about one run's four numbers: for an actor with
// an independent cell, and for one without (its single try is its sequential first attempt, Seq@1,
// named so in both; its Pass@K and pass^K are unknown in both, never a number nobody measured).
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { analyzeRuns } from '../src/analysis/analyze.js'
import { renderAnalysis } from '../src/analysis/render.js'
import type { RunSummary } from '../src/core/schemas.js'
import { percent } from '../src/metrics/format.js'
import { actorColours } from '../src/report/charts.js'
import { htmlText } from '../src/report/html-template.js'
import { reliabilitySectionHtml } from '../src/report/reliability-section.js'
import { fakeRun } from './report-fixtures.js'

const full = fakeRun({
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: 'sim:b', skill: 0.7 },
    { id: 'sim:c', skill: 0.5 },
  ],
  tasks: ['t/1', 't/2', 't/3', 't/4', 't/5', 't/6'],
  repeats: 3,
}).summary
// sim:c ran with feedback only: no independent cell.
const cells = full.benchmarks[0]!.cells.filter((c) => !(c.actorId === 'sim:c' && c.mode === 'independent'))
const run: RunSummary = { ...full, benchmarks: [{ ...full.benchmarks[0]!, cells }] }

/** The report's four numbers per actor, as its HTML shows them (text of each data-four cell). */
async function reportFour(): Promise<Map<string, Record<string, string>>> {
  const text = htmlText(await reliabilitySectionHtml(cells, { colours: actorColours(cells.map((c) => c.actorId)) }))
  const out = new Map<string, Record<string, string>>()
  for (const row of text.matchAll(/<tr data-actor="([^"]+)">(.*?)<\/tr>/gs)) {
    const values: Record<string, string> = {}
    for (const td of row[2]!.matchAll(/<td class="n[^"]*" data-four="([^"]+)"[^>]*>(.*?)<\/td>/gs))
      values[td[1]!] = td[2]!.replace(/<[^>]+>/g, ' ').trim()
    out.set(row[1]!, values)
  }
  return out
}

describe('the report and seqk analyze agree on the four numbers', () => {
  it('show the same single try, Pass@K and pass^K per actor, unknown where no cell measured one', async () => {
    const report = await reportFour()
    const analysis = analyzeRuns([run], { resamples: 20, selection: false })
    const text = stripVTControlCharacters(renderAnalysis(analysis))
    const sections = analysis.benchmarks[0]!.reliability
    expect(sections.length).toBeGreaterThan(0)
    expect([...report.keys()].sort()).toEqual(['sim:a', 'sim:b', 'sim:c'])
    for (const s of sections)
      for (const row of s.rows) {
        const html = report.get(row.actorId)!
        const shown = (v: number | null, cell: string | undefined) =>
          v === null ? expect(cell).toBe('unknown') : expect(cell?.split(' ')[0]).toBe(percent(v))
        shown(row.singleTry.value, html.single)
        shown(row.passAtK, html.passAtK)
        shown(row.passHatK, html.passHatK)
        if (row.actorId === 'sim:c') {
          // Measured, and named as what it is in both: the first attempt of a sequential cell.
          expect(row.singleTry.value).not.toBeNull()
          expect(row.singleTry.source).toBe('Seq@1')
          expect(html.single).toContain('Seq@1')
          expect(text).toContain(`sim:c: ${row.singleTry.label}`)
          expect([row.passAtK, row.passHatK]).toEqual([null, null])
        } else expect(row.singleTry.source).toBe('Pass@1')
      }
    // The analyze table marks the Seq@1 value among Pass@1 values and never prints a number for unknown:
    // Pass@K, pass^K and G-Pass@K at τ = 0.5 and 0.75 all need the independent cell sim:c lacks.
    const line = text.split('\n').find((l) => /^\s+sim:c\s/.test(l))!
    expect(line).toMatch(/\d+(\.\d+)?\*/)
    expect(line.split(/\s+/).filter((x) => x === '—').length).toBe(4)
  })
})
