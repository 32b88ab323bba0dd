/**
 * Terminal tables for the analysis and selection reports. Pure: colour only when asked for, and
 * every table reads the same without it (no meaning is carried by colour alone).
 */
import { Chalk, type ChalkInstance } from 'chalk'
import type {
  AnalysisReport,
  Correlation,
  Correlations,
  CostSuccess,
  Ranking,
  ReliabilitySection,
  RevisionAnnotationSection,
  Selection,
  SelectionReport,
  TimingRow,
} from './report-schema.js'
import { annotatorText } from './revision-annotation.js'
import { statisticsRows } from '../protocol/statistics/index.js'
import { headlineMetric } from '../metrics/registry.js'
import type { CellSummary } from '../core/schemas.js'
import { equalCostShort } from '../protocol/equal-cost.js'
import type { EqualCost } from '../core/schemas.js'
import { intervalText, money, ordinal, percent, plural, signedPercent, signedRatio } from '../metrics/format.js'

interface IntervalLike {
  point: number | null
  lo: number | null
  hi: number | null
}

/** The options of the analysis's text rendering. */
export interface RenderOptions {
  /** Colour headings and notes (default false). */
  color?: boolean
}

/** A point and its interval, the interval as every output writes it (`80.7 (53.8–89.7)`). */
function ci(interval: IntervalLike, format: (v: number | null) => string): string {
  if (interval.lo === null || interval.hi === null) return format(interval.point)
  return `${format(interval.point)} (${intervalText(interval.lo, interval.hi, { signed: format === signedPercent })})`
}

/** Columns padded to their widest cell; `right` marks numeric columns. */
function table(
  header: string[],
  rows: string[][],
  right: (i: number) => boolean,
  c: ChalkInstance,
  indent = '  ',
): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cols: string[]): string =>
    indent +
    cols
      .map((col, i) => {
        const fill = ' '.repeat(Math.max(0, (widths[i] as number) - col.length))
        return i === cols.length - 1 && !right(i) ? col : right(i) ? fill + col : col + fill
      })
      .join('  ')
      .trimEnd()
  return [c.dim(line(header)), ...rows.map(line)]
}

function renderRanking(r: Ranking, c: ChalkInstance): string[] {
  const out = [`  ${c.bold(`${r.mode} feedback`)}: Pass@${r.k} vs Seq@${r.k}`]
  if (r.actors.length === 0) {
    out.push('    no actor has both numbers')
  } else {
    const arrow = (d: number): string => (d > 0 ? `up ${d}` : d < 0 ? `down ${-d}` : '=')
    const rows = r.actors.map((a) => [
      a.actorId,
      percent(a.pass),
      ordinal(a.passRank),
      percent(a.seq),
      ordinal(a.seqRank),
      arrow(a.rankChange),
    ])
    rows.push([
      'best–worst gap',
      percent(r.gaps.pass.bestWorst),
      '',
      percent(r.gaps.seq.bestWorst),
      '',
      signedPercent(r.gaps.change.bestWorst),
    ])
    rows.push([
      'mean pairwise gap',
      percent(r.gaps.pass.meanPairwise),
      '',
      percent(r.gaps.seq.meanPairwise),
      '',
      signedPercent(r.gaps.change.meanPairwise),
    ])
    out.push(...table(['actor', `Pass@${r.k}`, 'rank', `Seq@${r.k}`, 'rank', 'change'], rows, (i) => i > 0, c, '    '))
    if (r.reversals.length === 0)
      out.push(`    no reversal: no pair is ordered one way by Pass@${r.k} and the other by Seq@${r.k}`)
    else
      out.push(
        `    ${c.yellow('reversals')} (above under Pass@${r.k}, below under Seq@${r.k}): ${r.reversals.map((x) => `${x.passAbove} over ${x.seqAbove}`).join('; ')}`,
      )
  }
  for (const e of r.excluded) out.push(c.dim(`    left out: ${e.actorId}: ${e.reason}`))
  return out
}

/**
 * The four numbers per actor (a single try, Pass@K, pass^K, Seq@K) and the mode's Seq^K and
 * Cover@1, each with the actor's rank by it, then a line per ranking that differs from Seq@K's
 * and per pair whose single try and rate at K disagree.
 */
function renderReliability(s: ReliabilitySection, c: ChalkInstance): string[] {
  const K = s.k
  const P = s.passK
  const rankOf = (metric: string, actorId: string): string => {
    const r = s.rankings.find((x) => x.metric === metric)?.ranks.find((x) => x.actorId === actorId)
    return r ? ` ${ordinal(r.rank)}` : ''
  }
  const seqRank = (actorId: string): string => {
    const r = s.rankings[0]?.ranks.find((x) => x.actorId === actorId)
    return r ? ` ${ordinal(r.seqRank)}` : ''
  }
  // One source for the whole column names it in the header; mixed sources mark each Seq@1 value
  // (a sequential cell's first attempt, for an actor with no independent cell) and say so below.
  const labels = [...new Set(s.rows.filter((r) => r.singleTry.source !== null).map((r) => r.singleTry.label))]
  const mixed = labels.length > 1
  const single = mixed ? 'single try' : (labels[0] ?? 'Pass@1')
  const fromSeq = s.rows.filter((r) => r.singleTry.source === 'Seq@1')
  // G-Pass@K_τ beside pass^K: the τ any row carries (none without an independent cell).
  const taus = [...new Set(s.rows.flatMap((r) => (r.gPassK ?? []).map((g) => g.tau)))].sort((a, b) => a - b)
  const header = [
    'actor',
    single,
    `Pass@${P ?? 'K'}`,
    `pass^${P ?? 'K'}`,
    ...taus.map((tau) => `G-Pass@${P ?? 'K'}_${tau}`),
    `Seq@${K}`,
    `Seq^${K}`,
    'Cover@1',
  ]
  const rows = s.rows.map((r) => [
    r.actorId,
    percent(r.singleTry.value) + (mixed && r.singleTry.source === 'Seq@1' ? '*' : '') + rankOf('Pass@1', r.actorId),
    percent(r.passAtK) + rankOf(`Pass@${P}`, r.actorId),
    percent(r.passHatK) + rankOf(`pass^${P}`, r.actorId),
    ...taus.map((tau) => percent(r.gPassK?.find((g) => g.tau === tau)?.value ?? null)),
    percent(r.seqAtK) + seqRank(r.actorId),
    percent(r.seqHatK) + rankOf(`Seq^${K}`, r.actorId),
    percent(r.coverAt1) + rankOf('Cover@1', r.actorId),
  ])
  const out = [
    `  ${c.bold(`${s.mode} feedback`)}: the four numbers (a single try, Pass@${P ?? 'K'}, pass^${P ?? 'K'}, Seq@${K}) and the mode's Seq^${K} and Cover@1, each with its rank`,
  ]
  out.push(...table(header, rows, (i) => i > 0, c, '    '))
  if (fromSeq.length > 0)
    out.push(
      `    ${mixed ? '* ' : ''}single try of ${fromSeq.map((r) => `${r.actorId}: ${r.singleTry.label}`).join(', ')} (no independent cell; the first attempt sees the same prompt and no feedback yet, so it is the same single try, from its repeats)`,
    )
  const differing = s.rankings.filter((r) => r.differsFromSeq).map((r) => r.metric)
  if (differing.length === 0) out.push(`    every ranking agrees with the ranking by Seq@${K}`)
  for (const n of s.notes) out.push(`    ${c.yellow('•')} ${n.slice(s.mode.length + 2)}`)
  return out
}

function renderTiming(rows: readonly TimingRow[], c: ChalkInstance): string[] {
  if (rows.length === 0) return []
  const ks = [...new Set(rows.map((r) => r.k))]
  const K = ks.length === 1 ? String(ks[0]) : 'K'
  const out = [
    c.bold(`Revision timing (paper Table 4)`) +
      ` — EGS = (Seq@2 − Seq@1)/ΔSeq@${K}, LGS = (Seq@${K} − Seq@${K === 'K' ? 'K−1' : Number(K) - 1})/ΔSeq@${K}, in %`,
  ]
  out.push(
    ...table(
      ['actor', 'mode', 'Seq@1', `Seq@${K}`, `ΔSeq@${K}`, 'EGS', 'LGS', 'why undefined'],
      rows.map((r) => [
        r.actorId,
        r.mode,
        percent(r.seqAt1),
        percent(r.seqAtK),
        signedPercent(r.gain),
        percent(r.egs),
        percent(r.lgs),
        r.reason ?? '',
      ]),
      (i) => i >= 2 && i <= 6,
      c,
    ),
  )
  return out
}

/** Every registered statistic of the benchmark's cells (protocol/statistics/), one row per cell. */
function renderStatistics(cells: readonly Pick<CellSummary, 'cellId' | 'statistics'>[], c: ChalkInstance): string[] {
  const rows = statisticsRows(cells)
  if (!rows) return []
  // One line per cell and statistic, so the table fits 120 columns however many statistics there are.
  const long = rows.rows.flatMap(([cell, ...values]) =>
    values.flatMap((v, i) => (v === '—' ? [] : [[cell!, rows.header[i + 1]!, v]])),
  )
  return [
    c.bold('Statistics') + ' — in % unless a definition says otherwise; [95% CI], n: what it is over',
    ...table(['cell', 'statistic', 'value'], long, (i) => i === 2, c, '  '),
  ]
}

/** Each sequential cell against its actor's independent cell at equal spend per task, in tokens and dollars. */
function renderEqualCost(pairs: readonly EqualCost[], c: ChalkInstance): string[] {
  if (pairs.length === 0) return []
  return [
    c.bold('At equal cost') +
      " — Seq@k at the mean spend by attempt k (solved tasks stop spending) against Pass@k at k samples' spend",
    ...table(
      ['actor', 'feedback', 'in tokens', 'in dollars'],
      pairs.map((p) => [p.actorId, p.mode, equalCostShort(p.tokens, 'tokens'), equalCostShort(p.usd, 'usd')]),
      () => false,
      c,
    ),
    c.dim(
      '  straight between budgets, compared from where both can run, each held at its budget K beyond its last point',
    ),
  ]
}

function renderCostSuccess(cs: CostSuccess, c: ChalkInstance): string[] {
  const out = [
    c.bold('Cost–success (paper Figure 3)') +
      " — success % and mean cost per task at budget k; * = on that protocol's Pareto frontier",
  ]
  const K = Math.max(0, ...cs.series.flatMap((s) => s.points.map((p) => p.k)))
  const rows: string[][] = []
  for (const s of cs.series) {
    const actors = [...new Set(s.points.map((p) => p.actorId))]
    for (const actor of actors) {
      const cells = Array.from({ length: K }, (_, i) => {
        const p = s.points.find((x) => x.actorId === actor && x.k === i + 1)
        if (p === undefined) return ''
        return `${percent(p.success)} ${money(p.cost)}${p.onFrontier ? '*' : ' '}`
      })
      rows.push([`${s.metric} (${s.protocol})`, actor, ...cells])
    }
  }
  out.push(
    ...table(['protocol', 'actor', ...Array.from({ length: K }, (_, i) => `k=${i + 1}`)], rows, (i) => i >= 2, c),
  )
  if (cs.combinedFrontier.length > 0) {
    out.push(
      `  frontier over all protocols: ${cs.combinedFrontier.map((p) => `${headlineMetric(p.protocol === 'independent').label(p.k)} (${p.protocol}) ${p.actorId} ${percent(p.success)}% at ${money(p.cost)}`).join('; ')}`,
    )
  }
  const unpriced = cs.series.flatMap((s) =>
    s.points.filter((p) => p.reason !== null).map((p) => `${s.protocol} ${p.actorId} k=${p.k}: ${p.reason}`),
  )
  if (unpriced.length > 0 && unpriced.length <= 6) for (const u of unpriced) out.push(c.dim(`  left out: ${u}`))
  if (cs.note) out.push(c.dim(`  note: ${cs.note}`))
  return out
}

/**
 * Figure 5b as two tables: each actor's share of annotated revisions per class, then the
 * next-attempt success of each class (solved/revisions), both with their intervals. `pooled` rows
 * name their benchmarks.
 */
function renderRevisionAnnotation(section: RevisionAnnotationSection, c: ChalkInstance, pooled: boolean): string[] {
  if (section.rows.length === 0) return []
  const annotators = [...new Set(section.rows.map((r) => annotatorText(r.annotator)))]
  const title = pooled
    ? 'Did revisions address the feedback? Pooled over benchmarks (paper §5.2.2, Figure 5b)'
    : 'Did revisions address the feedback? (paper §5.2.2, Figure 5b)'
  const out = [
    c.bold(title) + ` — annotator ${annotators.join(', ')}; in %, 95% intervals${pooled ? '' : ' clustered by task'}`,
  ]
  const several = annotators.length > 1
  // Pooled rows name their benchmarks by a set number: the names are long and mostly shared.
  const sets = [...new Set(section.rows.map((r) => r.benchmarks.join('\u0000')))]
  const setOf = (r: RevisionAnnotationSection['rows'][number]): string =>
    `set ${sets.indexOf(r.benchmarks.join('\u0000')) + 1}`
  const who = (r: RevisionAnnotationSection['rows'][number]): string[] => [
    r.actorId,
    r.mode,
    ...(several ? [annotatorText(r.annotator)] : []),
    ...(pooled ? [`${setOf(r)} (${r.benchmarks.length})`] : []),
  ]
  const head = ['actor', 'mode', ...(several ? ['annotator'] : []), ...(pooled ? ['benchmarks'] : [])]
  const lead = head.length
  const count = (r: RevisionAnnotationSection['rows'][number]): string =>
    r.sampled ? `${r.annotated} of ${r.annotatable}` : String(r.annotated)
  out.push('  share of revisions:')
  out.push(
    ...table(
      [...head, 'annotated', 'unhelpful', 'some', 'all'],
      section.rows.map((r) => [
        ...who(r),
        count(r),
        ci(r.classes.unhelpful.share, percent),
        ci(r.classes.some.share, percent),
        ci(r.classes.all.share, percent),
      ]),
      (i) => i >= lead,
      c,
      '    ',
    ),
  )
  const success = (k: RevisionAnnotationSection['rows'][number]['classes']['all']): string =>
    k.revisions === 0 ? '—' : `${ci(k.success, percent)} ${k.solved}/${k.revisions}`
  out.push('  next-attempt success by class:')
  out.push(
    ...table(
      [...head, 'unhelpful', 'some', 'all'],
      section.rows.map((r) => [
        ...who(r),
        success(r.classes.unhelpful),
        success(r.classes.some),
        success(r.classes.all),
      ]),
      (i) => i >= lead,
      c,
      '    ',
    ),
  )
  if (pooled)
    for (const [i, set] of sets.entries()) out.push(`  benchmark set ${i + 1}: ${set.split('\u0000').join(' + ')}`)
  for (const n of section.notes) out.push(c.dim(`  note: ${n}`))
  return out
}

function renderCorrelations(list: readonly Correlations[], c: ChalkInstance): string[] {
  if (list.length === 0) return []
  const out = [
    c.bold('Correlations over actor × benchmark pairs (paper Figure 4)') +
      ' — Spearman with 95% bootstrap intervals over pairs',
  ]
  const ks = [...new Set(list.flatMap((x) => x.pairs.map((p) => p.k)))]
  const K = ks.length === 1 ? String(ks[0]) : 'K'
  const fmt = (x: Correlation): string =>
    x.lo === null || x.hi === null
      ? signedRatio(x.rho)
      : `${signedRatio(x.rho)} [${signedRatio(x.lo)}, ${signedRatio(x.hi)}]`
  out.push(
    ...table(
      ['Seq@k from', 'pairs', `ρ(Pass@${K}, Seq@${K})`, `ρ(ΔPass@${K}, ΔSeq@${K})`],
      list.map((x) => [x.feedback, String(x.pairs.length), fmt(x.levels), fmt(x.gains)]),
      (i) => i >= 1,
      c,
    ),
  )
  for (const x of list) if (x.note) out.push(c.dim(`  note (${x.feedback}): ${x.note}`))
  return out
}

/** One selection experiment as the paper's Figure 2 (by n) and Table 2 (at n = 10, or the largest n). */
export function renderSelectionBlock(s: Selection, options: RenderOptions = {}): string {
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const last = s.sizes[s.sizes.length - 1]
  const pass = `Pass@${s.passK}`
  const seq = `Seq@${s.calibrationK}`
  const out = [
    c.bold(`Model selection (paper Figure 2, Table 2)`) +
      ` — deploy with ${s.mode} feedback, scored by held-out Seq@${s.deployK}; calibrate with ${pass} or ${seq}`,
    `  ${s.actors.length} candidates (${s.actors.join(', ')}); groups A ${s.groups.a.length} and B ${s.groups.b.length} tasks (seed ${s.seed}); ${s.draws} draws per n and direction; loss and gain in points, 95% bootstrap intervals over tasks (${last?.gain.resamples ?? 0} resamples)`,
  ]
  const rows = s.sizes.map((z) => [
    String(z.n),
    ci(z.pass.loss, percent),
    ci(z.seq.loss, percent),
    ci(z.gain, signedPercent),
    money(z.pass.cost),
    money(z.seq.cost),
  ])
  out.push(
    ...table(
      ['n', `loss ${pass}`, `loss ${seq}`, `gain (${seq} − ${pass} pick)`, `cost ${pass}`, `cost ${seq}`],
      rows,
      (i) => i >= 0,
      c,
    ),
  )
  out.push(
    `  random choice: loss ${ci(s.random.loss, percent)}, held-out Seq@${s.deployK} ${ci(s.random.heldout, percent)}, no calibration cost`,
  )
  const at = s.sizes.find((z) => z.n === 10) ?? last
  if (at !== undefined) {
    out.push(
      `  at n = ${at.n}: held-out Seq@${s.deployK} of the ${pass} pick ${ci(at.pass.heldout, percent)}, of the ${seq} pick ${ci(at.seq.heldout, percent)}; gain ${ci(at.gain, signedPercent)} points; calibration cost ${money(at.pass.cost)} (${pass}) vs ${money(at.seq.cost)} (${seq})`,
    )
    const picks = (p: Record<string, number>): string =>
      Object.entries(p)
        .sort((x, y) => y[1] - x[1])
        .map(([id, v]) => `${id} ${percent(v, { digits: 0 })}%`)
        .join(', ')
    out.push(`  picks at n = ${at.n}: ${pass} → ${picks(at.pass.picks)}; ${seq} → ${picks(at.seq.picks)}`)
  }
  const held = s.actors
    .map((id) => `${id} ${percent(s.heldoutByGroup.a[id])}/${percent(s.heldoutByGroup.b[id])}`)
    .join(', ')
  out.push(c.dim(`  held-out Seq@${s.deployK} on A/B: ${held}`))
  if (s.excludedTasks.length > 0)
    out.push(c.dim(`  tasks left out: ${s.excludedTasks.map((t) => `${t.taskId} (${t.reason})`).join('; ')}`))
  for (const n of s.notes) out.push(c.dim(`  note: ${n}`))
  return out.join('\n')
}

function sourcesLine(report: { sources: AnalysisReport['sources'] }): string {
  const runs = report.sources.map((s) => s.runId)
  return `${runs.length} run${runs.length === 1 ? '' : 's'} (${runs.join(', ')})`
}

/**
 * The analysis report as terminal text: per benchmark the rankings, revision timing, whether
 * revisions addressed the feedback, cost–success and model selection; then the correlations over
 * every benchmark, the revision classes pooled over benchmarks, and notes.
 *
 * @example
 * console.log(renderAnalysis(analyzeRuns(runs), { color: process.stdout.isTTY }))
 */
export function renderAnalysis(report: AnalysisReport, options: RenderOptions = {}): string {
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const out = [
    c.bold(
      `seqk analyze — ${sourcesLine(report)}, ${report.benchmarks.length} benchmark${report.benchmarks.length === 1 ? '' : 's'}`,
    ),
  ]
  for (const b of report.benchmarks) {
    out.push(
      '',
      c.bold(`━━ ${b.name}`) +
        ` — ${plural(b.actors.length, 'actor')}; feedback modes: ${b.modes.join(', ') || 'none'}`,
    )
    for (const n of b.notes) out.push(c.dim(`  note: ${n}`))
    if (b.rankings.length > 0) {
      out.push('', c.bold('Rankings and gaps (paper Table 3)') + ' — rates in %, gaps in points')
      for (const r of b.rankings) out.push(...renderRanking(r, c))
    }
    if (b.reliability.length > 0) {
      out.push('', c.bold('Reliability: does it, every time') + ' — rates in %, each with its rank')
      for (const r of b.reliability) out.push(...renderReliability(r, c))
    }
    if (b.timing.length > 0) out.push('', ...renderTiming(b.timing, c))
    if (b.revisionAnnotation.rows.length > 0) out.push('', ...renderRevisionAnnotation(b.revisionAnnotation, c, false))
    out.push('', ...renderStatistics(b.statistics ?? [], c))
    out.push('', ...renderCostSuccess(b.costSuccess, c))
    const equalCost = renderEqualCost(b.equalCost ?? [], c)
    if (equalCost.length > 0) out.push('', ...equalCost)
    for (const s of b.selection) out.push('', renderSelectionBlock(s, options))
    for (const s of b.selectionSkipped) out.push('', c.bold('Model selection') + ` (${s.mode}): not run — ${s.reason}`)
  }
  if (report.correlations.length > 0) out.push('', ...renderCorrelations(report.correlations, c))
  if (report.revisionAnnotationPooled.rows.length > 0)
    out.push('', ...renderRevisionAnnotation(report.revisionAnnotationPooled, c, true))
  if (report.notes.length > 0) out.push('', ...report.notes.map((n) => c.dim(`note: ${n}`)))
  return out.join('\n')
}

/**
 * The selection report (`seqk select`) as terminal text.
 *
 * @example
 * console.log(renderSelection(selectModels(runs, { k: 3 })))
 */
export function renderSelection(report: SelectionReport, options: RenderOptions = {}): string {
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const out = [c.bold(`seqk select — ${sourcesLine(report)}`)]
  for (const s of report.selections) out.push('', c.bold(`━━ ${s.benchmark}`), renderSelectionBlock(s, options))
  if (report.notes.length > 0) out.push('', ...report.notes.map((n) => c.dim(`note: ${n}`)))
  return out.join('\n')
}
