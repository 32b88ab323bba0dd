/**
 * Did the revisions address the feedback, across actors (paper §5.2.2, Figure 5b): per benchmark
 * each actor's share of revisions that addressed none, some or all of the feedback they answered,
 * and the next-attempt success of each class; then the same pooled over benchmarks, as the paper
 * pools its 842 revisions over four. Classes from different annotators (or annotator versions,
 * or annotator models) measure different things: they are never pooled, and a benchmark whose
 * actors were judged by different annotators says so.
 */
import type { CellSummary, IntervalJson, RevisionAnnotationSummary } from '../core/schemas.js'
import { betaQuantile } from '../metrics/distributions.js'
import type { RevisionAnnotationRow, RevisionAnnotationSection, RevisionAnnotatorId } from './report-schema.js'

type ClassName = 'unhelpful' | 'some' | 'all'

/** How the pooled intervals are computed, recorded next to each of them. */
export const STRATIFIED_INTERVAL_METHOD = 'stratified-by-benchmark/1'

/**
 * Who judged a cell's revisions, as the summary names it. The model is read when the summary
 * records one (an LLM annotator), so two LLM annotators on different models never compare as one.
 *
 * @example
 * annotatorOf(cell.revisionAnnotation!) // => { annotator: 'derived', version: 'derived/1', model: null }
 */
export function annotatorOf(summary: RevisionAnnotationSummary): RevisionAnnotatorId {
  const model = (summary as { model?: unknown }).model
  return { annotator: summary.annotator, version: summary.version, model: typeof model === 'string' ? model : null }
}

/**
 * The annotator in words: `derived/1`, `llm/1 (gpt-5-mini)`.
 *
 * @example
 * annotatorText({ annotator: 'llm', version: 'llm/1', model: 'gpt-5-mini' }) // => 'llm/1 (gpt-5-mini)'
 */
export function annotatorText(a: RevisionAnnotatorId): string {
  const name = a.version.startsWith(`${a.annotator}/`) ? a.version : `${a.annotator} ${a.version}`
  return a.model === null ? name : `${name} (${a.model})`
}

const annotatorKey = (a: RevisionAnnotatorId): string => `${a.annotator}\u0000${a.version}\u0000${a.model ?? ''}`

function rowOf(cell: CellSummary, a: RevisionAnnotationSummary): RevisionAnnotationRow {
  return {
    actorId: cell.actorId,
    mode: cell.mode,
    benchmarks: [cell.benchmark],
    annotator: annotatorOf(a),
    revisions: a.revisions,
    annotatable: a.annotatable,
    annotated: a.annotated,
    sampled: a.sampled,
    unobserved: a.unobserved,
    classes: a.classes,
  }
}

/**
 * One benchmark's rows: every sequential cell with annotated revisions, one row per actor and
 * feedback mode. A note names the cells without annotation (what feedback they had), and, when the
 * cells of one mode were judged by different annotators, that their classes are not comparable.
 *
 * @example
 * revisionAnnotationSection(bench.cells).rows.map((r) => [r.actorId, r.classes.all.share.point])
 */
export function revisionAnnotationSection(cells: readonly CellSummary[]): RevisionAnnotationSection {
  const rows: RevisionAnnotationRow[] = []
  const notes: string[] = []
  const without: string[] = []
  for (const cell of cells) {
    if (cell.protocol.kind !== 'sequential') continue
    const a = cell.revisionAnnotation
    if (!a) {
      without.push(cell.mode)
      continue
    }
    rows.push(rowOf(cell, a))
    // What the LLM annotator adds when present: failed annotations and a caution (self-annotation).
    const extra = a as { errors?: unknown; note?: unknown }
    if (typeof extra.errors === 'number' && extra.errors > 0)
      notes.push(`${cell.cellId}: ${extra.errors} annotation${extra.errors === 1 ? '' : 's'} failed (in no class)`)
    if (typeof extra.note === 'string') notes.push(`${cell.cellId}: ${extra.note}`)
  }
  if (rows.length === 0) return { rows, notes: [] }
  const modes = [...new Set(rows.map((r) => r.mode))]
  for (const mode of modes) {
    const inMode = rows.filter((r) => r.mode === mode)
    const annotators = new Map(inMode.map((r) => [annotatorKey(r.annotator), r.annotator]))
    if (annotators.size > 1) {
      const who = inMode.map((r) => `${r.actorId}: ${annotatorText(r.annotator)}`).join(', ')
      notes.push(
        `${mode}: the actors' revisions were judged by different annotators (${who}); their classes are not comparable`,
      )
    }
  }
  const unannotated = [...new Set(without)].filter((m) => !modes.includes(m))
  if (unannotated.length > 0)
    notes.push(`not annotated: ${unannotated.join(', ')} (feedback that names no request, or no annotator configured)`)
  if (rows.some((r) => r.sampled))
    notes.push('sampled: some cells annotated a sample of their revisions (annotated of annotatable)')
  return { rows, notes }
}

/** The Clopper–Pearson bounds of a share `point` over `m` (possibly fractional) units. */
function clopperPearson(point: number, m: number, level: number): { lo: number; hi: number } {
  const tail = (1 - level) / 2
  const x = point * m
  return {
    lo: point === 0 ? 0 : betaQuantile(tail, x, m - x + 1),
    hi: point === 1 ? 1 : betaQuantile(1 - tail, x + 1, m - x),
  }
}

/**
 * The effective number of independent units behind a stratum's interval: the m whose
 * Clopper–Pearson interval around the point has the bound shown on the side away from the nearer
 * edge (the per-benchmark intervals are Clopper–Pearson at an effective size, so this reads it
 * back). 0 for an empty stratum.
 */
function effectiveSize(interval: IntervalJson, units: number): number {
  const { point, lo, hi } = interval
  if (point === null || lo === null || hi === null || units === 0) return 0
  const upper = point < 0.5
  const target = upper ? hi : lo
  // Nothing learnt: the bound sits at the far edge.
  if ((upper && target >= 1) || (!upper && target <= 0)) return 0.01
  let a = Math.log(0.01)
  let b = Math.log(Math.max(units, 1) * 4)
  for (let i = 0; i < 60; i++) {
    const mid = (a + b) / 2
    const bound = clopperPearson(point, Math.exp(mid), interval.level)
    // More units pull both bounds towards the point.
    const tooWide = upper ? bound.hi > target : bound.lo < target
    if (tooWide) a = mid
    else b = mid
  }
  return Math.exp((a + b) / 2)
}

/**
 * A share pooled over benchmarks (independent strata): Σ hits / Σ units. Each benchmark's interval
 * (task-clustered) is read back as an effective number of independent units m_b; the pooled share
 * then has the variance of a stratified ratio, Σ w_b² R(1 − R)/m_b (w_b = the stratum's share of
 * units), so its effective size is 1 / Σ (w_b² / m_b), handed to Clopper–Pearson as the
 * per-benchmark intervals are. Using the pooled R in every stratum keeps 0% and 100% strata
 * informative and ignores that stratifying removes the between-benchmark spread (conservative).
 * Exact for the point, an approximation for the interval (the summaries keep no per-task counts),
 * named by its method.
 *
 * @example
 * pooledStrata([{ hits: 3, units: 10, interval: a }, { hits: 5, units: 20, interval: b }]).point // => 8 / 30
 */
export function pooledStrata(
  strata: readonly { hits: number; units: number; interval: IntervalJson }[],
  level = 0.95,
): IntervalJson {
  const present = strata.filter((s) => s.units > 0)
  const units = present.reduce((n, s) => n + s.units, 0)
  const hits = present.reduce((n, s) => n + s.hits, 0)
  const base = {
    level,
    method: STRATIFIED_INTERVAL_METHOD,
    tasks: present.reduce((n, s) => n + (s.interval.tasks ?? 0), 0),
  }
  if (units === 0) return { point: null, lo: null, hi: null, ...base }
  const point = hits / units
  // A stratum whose interval is unknown counts as next to nothing: it adds the most variance it can.
  const inverse = present.reduce(
    (n, s) => n + (s.units / units) ** 2 / Math.max(0.01, effectiveSize(s.interval, s.units)),
    0,
  )
  const m = Math.min(units, 1 / inverse)
  const { lo, hi } = clopperPearson(point, m, level)
  return { point, lo: Math.min(lo, point), hi: Math.max(hi, point), ...base }
}

/**
 * Each actor's rows pooled over benchmarks, per feedback mode and annotator, as the paper pools
 * its revisions over four benchmarks. A benchmark joins a pool once per task set: a second
 * benchmark over the same tasks (the same eval under another history policy) is left out of it
 * with a note, as its revisions are not independent of the first's. Pools of one benchmark are
 * not repeated; rows of different annotators never share a pool.
 *
 * @example
 * pooledRevisionAnnotation(report.benchmarks.map((b) => ({ name: b.name, cells }))).rows
 */
export function pooledRevisionAnnotation(
  benchmarks: readonly { name: string; cells: readonly CellSummary[] }[],
  level = 0.95,
): RevisionAnnotationSection {
  const pools = new Map<
    string,
    { first: RevisionAnnotationRow; members: { row: RevisionAnnotationRow; hash: string }[] }
  >()
  const notes: string[] = []
  const left = new Set<string>()
  for (const b of benchmarks) {
    for (const cell of b.cells) {
      const a = cell.revisionAnnotation
      if (cell.protocol.kind !== 'sequential' || !a) continue
      const row = rowOf(cell, a)
      const key = `${cell.actorId}\u0000${cell.mode}\u0000${annotatorKey(row.annotator)}`
      const pool = pools.get(key) ?? { first: row, members: [] }
      pools.set(key, pool)
      const hash = cell.protocol.benchmark.contentHash
      const same = pool.members.find((m) => m.hash === hash)
      if (same) {
        left.add(`${b.name} (same tasks as ${same.row.benchmarks[0]})`)
        continue
      }
      pool.members.push({ row, hash })
    }
  }
  const rows: RevisionAnnotationRow[] = []
  for (const { first, members } of pools.values()) {
    if (members.length < 2) continue
    const sum = (f: (r: RevisionAnnotationRow) => number) => members.reduce((n, m) => n + f(m.row), 0)
    const annotated = sum((r) => r.annotated)
    const classOf = (k: ClassName) => ({
      revisions: sum((r) => r.classes[k].revisions),
      share: pooledStrata(
        members.map((m) => ({
          hits: m.row.classes[k].revisions,
          units: m.row.annotated,
          interval: m.row.classes[k].share,
        })),
        level,
      ),
      solved: sum((r) => r.classes[k].solved),
      success: pooledStrata(
        members.map((m) => ({
          hits: m.row.classes[k].solved,
          units: m.row.classes[k].revisions,
          interval: m.row.classes[k].success,
        })),
        level,
      ),
    })
    rows.push({
      actorId: first.actorId,
      mode: first.mode,
      benchmarks: members.map((m) => m.row.benchmarks[0]!),
      annotator: first.annotator,
      revisions: sum((r) => r.revisions),
      annotatable: sum((r) => r.annotatable),
      annotated,
      sampled: members.some((m) => m.row.sampled),
      unobserved: sum((r) => r.unobserved),
      classes: { unhelpful: classOf('unhelpful'), some: classOf('some'), all: classOf('all') },
    })
  }
  if (rows.length === 0) return { rows, notes: [] }
  if (left.size > 0)
    notes.push(
      `left out of the pools: ${[...left].join('; ')}: their revisions are not independent of the first benchmark's`,
    )
  const byMode = new Map<string, Set<string>>()
  for (const r of rows) byMode.set(r.mode, (byMode.get(r.mode) ?? new Set()).add(annotatorText(r.annotator)))
  for (const [mode, names] of byMode)
    if (names.size > 1)
      notes.push(
        `${mode}: pooled separately per annotator (${[...names].join(', ')}); rows of different annotators are not comparable`,
      )
  notes.push(
    `pooled intervals: ${STRATIFIED_INTERVAL_METHOD} (benchmarks as independent strata, each stratum's effective size read back from its task-clustered interval)`,
  )
  return { rows, notes }
}
