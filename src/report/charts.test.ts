import { compile } from 'vega-lite'
import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import {
  actorColours,
  costGap,
  costSpec,
  curveRows,
  curvesGap,
  curvesSpec,
  rankGap,
  rankSpec,
  renderSvg,
  revisionShareSpec,
  revisionSuccessGap,
  revisionSuccessSpec,
  trendGap,
  trendSpec,
  withTitles,
  type TrendRow,
} from './charts.js'
import { costPoints, curveWithBands, rankRows, revisionClassPoints } from './data.js'

const { summary, trajectories } = fakeRun({
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: 'sim:b', skill: 0.6 },
    { id: 'sim:<c>&"d"', skill: 0.5 },
  ],
})
const cells = summary.benchmarks[0]!.cells
const colours = actorColours(cells.map((c) => c.actorId))
const verifier = cells.filter((c) => c.mode === 'verifier')
const rows = verifier.flatMap((c) => curveRows(c.actorId, c.fingerprint, 'Seq', curveWithBands(c).points))
const count = (svg: string, re: RegExp) => (svg.match(re) ?? []).length

describe('Vega-Lite specs', () => {
  const { unit, points } = costPoints(cells, trajectories)
  const specs = {
    curves: curvesSpec(rows, { budget: 4, metric: 'Seq', colours }),
    rank: rankSpec(rankRows(cells), { colours }),
    cost: costSpec(
      points.filter((p) => p.mode === 'verifier'),
      { unit, metric: 'Seq', maxCost: Math.max(...points.map((p) => p.cost)), colours },
    ),
    trend: trendSpec(
      [
        {
          actor: 'sim:a',
          runId: 'r1',
          createdAt: '2026-01-01T00:00:00Z',
          commit: 'abc',
          value: 0.5,
          lo: 0.4,
          hi: 0.6,
          current: false,
          label: 'x',
        },
        {
          actor: 'sim:a',
          runId: 'r2',
          createdAt: '2026-01-02T00:00:00Z',
          commit: null,
          value: 0.7,
          lo: null,
          hi: null,
          current: true,
          label: 'y',
        },
      ],
      { metric: 'Seq@4', colours },
    ),
    revisionShares: revisionShareSpec(verifier.flatMap((c) => revisionClassPoints(c) ?? [])),
    revisionSuccess: revisionSuccessSpec(
      verifier.flatMap((c) => revisionClassPoints(c) ?? []),
      { colours },
    ),
  }

  it.each(Object.entries(specs))('%s compiles to Vega without warnings', (_name, spec) => {
    const warnings: string[] = []
    const logger = {
      level: () => logger,
      error: (...m: unknown[]) => void warnings.push(m.join(' ')),
      warn: (...m: unknown[]) => void warnings.push(m.join(' ')),
      info: () => logger,
      debug: () => logger,
    }
    const out = compile(spec, { logger: logger as never })
    expect(out.spec.marks?.length ?? 0).toBeGreaterThan(0)
    expect(warnings).toEqual([])
  })

  it('renders the curves panel to SVG: one line, one band and K points per actor, with tooltips', async () => {
    const svg = await renderSvg(specs.curves)
    expect(svg.startsWith('<svg')).toBe(true)
    expect(count(svg, /aria-roledescription="line mark"/g)).toBe(3)
    expect(count(svg, /aria-roledescription="area mark"/g)).toBe(3)
    expect(count(svg, /<title>sim:a · Seq@\d = /g)).toBe(4)
    // Actor ids reach the SVG escaped.
    expect(svg).not.toContain('<c>')
    expect(svg).toContain('sim:&lt;c&gt;&amp;')
  })

  it('renders the rank and cost charts', async () => {
    const rank = await renderSvg(specs.rank)
    expect(count(rank, /aria-roledescription="line mark"/g)).toBe(3)
    expect(rank).toContain('Seq@4 · verifier')
    const cost = await renderSvg(specs.cost)
    expect(cost).toContain('mean cost per task (USD)')
    expect(count(cost, /aria-roledescription="line mark"/g)).toBeGreaterThanOrEqual(4) // 3 actors + the frontier
  })
})

describe('revision class charts', () => {
  const points = verifier.flatMap((c) => revisionClassPoints(c) ?? [])
  it('stacks one bar per annotated cell, its segments the class shares, with a tooltip naming share and interval', async () => {
    expect(verifier.every((c) => c.revisionAnnotation)).toBe(true)
    const svg = await renderSvg(revisionShareSpec(points))
    expect(count(svg, /aria-roledescription="bar"/g)).toBe(3 * verifier.length)
    // Every class of every cell has a segment with its tooltip (empty ones are zero wide).
    expect(count(svg, /<title>sim:[^<]* · (unhelpful|addressed some|addressed all): [\d.—]+%? of \d+ revisions/g)).toBe(
      3 * verifier.length,
    )
    expect(svg).toContain('share of annotated revisions')
    // Bars are labelled by actor (one mode here), escaped.
    expect(svg).toContain('sim:&lt;c&gt;&amp;')
  })
  it('draws next-attempt success per class with error bars, no point for an empty class', async () => {
    const svg = await renderSvg(revisionSuccessSpec(points, { colours }))
    const nonEmpty = points.filter((p) => p.success !== null).length
    expect(count(svg, /<title>[^<]*next attempt passed \d+ of \d+ = /g)).toBe(nonEmpty)
    expect(nonEmpty).toBeLessThan(points.length) // the fixture's revisions are never "some"
    expect(count(svg, /aria-roledescription="rule mark"/g)).toBe(points.filter((p) => p.successLo !== null).length)
    expect(svg).toContain('next attempt passed')
  })
})

describe('withTitles', () => {
  it('gives labelled symbols a <title> and leaves other paths alone', () => {
    expect(
      withTitles(
        '<path aria-label="a &amp; b" role="graphics-symbol" aria-roledescription="point" d="M0"/><path d="M1"/>',
      ),
    ).toBe(
      '<path aria-label="a &amp; b" role="graphics-symbol" aria-roledescription="point" d="M0"><title>a &amp; b</title></path><path d="M1"/>',
    )
  })
})

describe('charts with nothing to show say so', () => {
  const { unit, points } = costPoints(cells, trajectories)
  it('have something to show for an ordinary run', () => {
    expect(curvesGap(rows, 4)).toBeNull()
    expect(costGap(points, unit)).toBeNull()
    expect(rankGap(rankRows(cells))).toBeNull()
    expect(revisionSuccessGap(verifier.flatMap((c) => revisionClassPoints(c) ?? []))).toBeNull()
  })
  it('curves: no defined rate, K = 1, or one defined k per cell (budget disclosed)', () => {
    expect(
      curvesGap(
        rows.map((r) => ({ ...r, value: null })),
        4,
      ),
    ).toMatch(/^No rate is defined at any k/)
    expect(
      curvesGap(
        rows.filter((r) => r.k === 1),
        1,
      ),
    ).toMatch(/^K = 1: one attempt per task/)
    expect(
      curvesGap(
        rows.map((r) => (r.k === 4 ? r : { ...r, value: null })),
        4,
      ),
    ).toMatch(/^Only one k has a defined rate/)
  })
  it('cost: no point, every cost 0 (no usage reported), a single point, one cost for every point', () => {
    expect(costGap([], 'tokens')).toMatch(/^No point to draw/)
    expect(
      costGap(
        points.map((p) => ({ ...p, cost: 0 })),
        'tokens',
      ),
    ).toMatch(/^Every cost is 0: the models have no price and the server reported no token usage/)
    expect(
      costGap(
        points.map((p) => ({ ...p, cost: 0 })),
        'usd',
      ),
    ).toMatch(/^Every cost is \$0/)
    expect(costGap(points.slice(0, 1), unit)).toMatch(/^A single point/)
    expect(
      costGap(
        points.map((p) => ({ ...p, cost: 0.0042 })),
        'usd',
      ),
    ).toBe('Every point costs the same ($0.0042 per task), so there is no trade-off to draw.')
    expect(
      costGap(
        points.map((p) => ({ ...p, cost: 1234 })),
        'tokens',
      ),
    ).toBe('Every point costs the same (1.2k tokens per task), so there is no trade-off to draw.')
  })
  it('rank: too few actors, or every actor tied in every column', () => {
    expect(rankGap([])).toMatch(/^Needs at least two actors/)
    expect(rankGap(rankRows(cells).map((r) => ({ ...r, rank: 1 })))).toBe(
      'Every actor ties in every column (3 actors at rank 1): no rank to change.',
    )
  })
  it('trend: no run with a rate, or only one', () => {
    const row = (createdAt: string, value: number | null): TrendRow => ({
      actor: 'sim:a',
      runId: createdAt,
      createdAt,
      commit: null,
      value,
      lo: null,
      hi: null,
      current: false,
      label: '',
    })
    expect(trendGap([row('2026-01-01', null), row('2026-01-02', null)])).toMatch(
      /^No run of these protocols has a defined rate/,
    )
    expect(trendGap([row('2026-01-01', null), row('2026-01-02', 0.5)])).toMatch(/^Only one run/)
    expect(trendGap([row('2026-01-01', 0.4), row('2026-01-02', 0.5)])).toBeNull()
  })
  it('revision success: no class holds a revision', () => {
    expect(
      revisionSuccessGap(verifier.flatMap((c) => revisionClassPoints(c) ?? []).map((p) => ({ ...p, success: null }))),
    ).toMatch(/^No revision class holds a revision/)
  })
})
