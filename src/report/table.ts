import { Chalk, type ChalkInstance } from 'chalk'
import type { CellSummary } from '../core/schemas.js'
import { competitionRanks } from '../metrics/ranks.js'
import { compactCount, money, ordinal, percent, ratio, signedPercent } from '../metrics/format.js'

/** The rate curve a row shows: Seq@k for feedback cells, unbiased Pass@k for independent ones. */
function curveOf(cell: CellSummary): { label: 'Seq' | 'Pass'; curve: (number | null)[]; interval: CellSummary['seqAtInterval'] | null } {
  return cell.protocol.kind === 'independent' ? { label: 'Pass', curve: cell.passAt ?? [], interval: cell.passAtInterval } : { label: 'Seq', curve: cell.seqAt, interval: cell.seqAtInterval }
}

/** Length without ANSI colour codes, so coloured and plain tables line up the same. */
function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length
}

function pad(text: string, width: number, right = false): string {
  const fill = ' '.repeat(Math.max(0, width - visibleLength(text)))
  return right ? fill + text : text + fill
}

/**
 * Renders one benchmark's cells as a table (one row per cell). Pure: colour is on only when a
 * colour level is given, and the table reads the same without it.
 */
export function renderBenchmarkTable(benchmark: string, cells: readonly CellSummary[], options: { color?: boolean } = {}): string {
  const c: ChalkInstance = new Chalk({ level: options.color ? 1 : 0 })
  if (cells.length === 0) return ''
  const K = Math.max(...cells.map((x) => x.budget))
  const first = cells[0]!
  const history = cells.find((x) => x.protocol.history)?.protocol.history?.name ?? '—'
  const header = [
    'cell',
    'metric',
    ...Array.from({ length: K }, (_, i) => `@${i + 1}`),
    `95% CI @${K}`,
    `Δ@${K}`,
    'EGS',
    'LGS',
    'unmod',
    'errors',
    'tokens',
    'cost',
    'verdict',
  ]
  const rows = cells.map((cell) => {
    const { label, curve, interval } = curveOf(cell)
    const gateFailed = cell.gate?.status === 'fail' || cell.gate?.status === 'missing' ? 1 : 0
    const failed = cell.thresholds.filter((t) => !t.pass).length + gateFailed
    // A shard's numbers cover its share of the tasks; its thresholds are checked at the merge.
    const verdict = cell.shard ? c.dim(`shard ${cell.shard.index}/${cell.shard.count}`) : cell.verdict === 'pass' ? c.green('pass') : c.red(`FAIL (${failed})`)
    const errors = cell.errors.count === 0 ? '0' : c.yellow(String(cell.errors.count))
    const ciText = interval && interval.lo !== null && interval.hi !== null ? `${percent(interval.lo)}–${percent(interval.hi)}` : '—'
    return [
      cell.cellId,
      label,
      ...Array.from({ length: K }, (_, i) => percent(curve[i])),
      ciText,
      signedPercent(cell.gain),
      ratio(cell.egs),
      ratio(cell.lgs),
      cell.unmodifiedRevisions.revisions === 0 ? '—' : percent(cell.unmodifiedRevisions.rate),
      errors,
      compactCount(cell.usage.inputTokens + cell.usage.outputTokens),
      money(cell.costUsd),
      verdict,
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ''))))
  const numeric = (i: number) => i >= 2 && i < header.length - 1
  const line = (cols: string[]) => ' ' + cols.map((col, i) => (i === cols.length - 1 ? col : pad(col, widths[i]!, numeric(i)))).join('  ')
  const title = `${c.bold(benchmark)} — K=${K}, ${first.tasks} tasks × ${first.repeats} repeats, history ${history}, rates in %`
  const out = [title, c.dim(line(header)), ...rows.map(line)]
  const ranking = rankingChanges(cells)
  if (ranking.length > 0) out.push(...ranking.map((r) => ` ${r}`))
  out.push(...revisionTable(cells).map((l) => ` ${l}`))
  out.push(...revisionAnnotationTable(cells).map((l) => ` ${l}`))
  const spending = spendingLine(cells)
  if (spending) out.push(c.dim(` ${spending}`))
  const notes = [...new Set(cells.map((x) => x.timingNote).filter((n): n is string => n !== null && !n.startsWith('independent')))]
  for (const n of notes) out.push(c.dim(` note: ${n}`))
  out.push(...errorBoundLines(cells).map((l) => c.yellow(` ${l}`)))
  out.push(...intervalNotes(cells).map((l) => c.dim(` ${l}`)))
  for (const cell of cells) for (const t of cell.thresholds.filter((x) => !x.pass)) out.push(c.red(` ✗ ${cell.cellId}: ${t.message}`))
  out.push(...baselineLines(cells).map((l) => (l.startsWith('✗') ? c.red(` ${l}`) : c.dim(` ${l}`))))
  return out.join('\n')
}

/**
 * For cells with errored trajectories: the rate at K under the cell's error policy, next to the
 * two simple rules it lies between (errors as failures, errors left out).
 */
export function errorBoundLines(cells: readonly CellSummary[]): string[] {
  const out: string[] = []
  for (const cell of cells) {
    const bounds = cell.errors.bounds
    if (!bounds || cell.errors.count === 0) continue
    const K = cell.budget
    const { label, curve } = curveOf(cell)
    const policy = cell.errors.policy ?? (cell.errors.countedAsFailures ? 'failures' : 'left-out')
    const how = policy === 'censored' ? 'censored from their error on' : policy === 'failures' ? 'counted as failures' : 'left out'
    out.push(`${cell.cellId}: ${cell.errors.count} errored ${cell.errors.count === 1 ? 'trajectory' : 'trajectories'} ${how}: ${label}@${K} ${percent(curve[K - 1] ?? null)} (${percent(bounds.asFailures[K - 1] ?? null)} with errors as failures, ${percent(bounds.leftOut[K - 1] ?? null)} with errors left out)`)
  }
  return out
}

/** One line for the cells whose interval at K is too wide to be useful, and what would narrow it. */
function intervalNotes(cells: readonly CellSummary[]): string[] {
  const wide = cells.filter((cell) => curveOf(cell).interval?.note)
  if (wide.length === 0) return []
  const widths = wide.map((cell) => {
    const i = curveOf(cell).interval!
    return Math.round(((i.hi ?? 0) - (i.lo ?? 0)) * 100)
  })
  const names = wide.length <= 3 ? ` (${wide.map((c) => c.cellId).join(', ')})` : ''
  const which = wide.length === cells.length ? `all ${cells.length} cells` : `${wide.length} of ${cells.length} cells${names}`
  const [lo, hi] = [Math.min(...widths), Math.max(...widths)]
  return [`small-N warning: the 95% interval at K is ${lo === hi ? lo : `${lo}–${hi}`} points wide in ${which}, too wide to tell close models apart; more tasks narrow it (about √2 per doubling), more repeats much less`]
}

/**
 * Where actors' order under Pass@K differs from their order under Seq@K for a feedback mode: the
 * paper's headline finding, stated in one line per mode. Rates of one count that differ in their
 * last bits tie (metrics/ranks.ts), so rounding never reads as a change of order.
 */
export function rankingChanges(cells: readonly CellSummary[]): string[] {
  const K = Math.max(...cells.map((x) => x.budget))
  const pass = new Map(cells.filter((x) => x.mode === 'independent' && x.passAt?.[K - 1] != null).map((x) => [x.actorId, x.passAt![K - 1]!]))
  if (pass.size < 2) return []
  const out: string[] = []
  const modes = [...new Set(cells.filter((x) => x.mode !== 'independent').map((x) => x.mode))]
  for (const mode of modes) {
    const seq = new Map(cells.filter((x) => x.mode === mode && pass.has(x.actorId) && x.seqAt[K - 1] != null).map((x) => [x.actorId, x.seqAt[K - 1]!]))
    if (seq.size < 2) continue
    const passRanks = competitionRanks(new Map([...pass].filter(([id]) => seq.has(id))))
    const seqRanks = competitionRanks(seq)
    const moved = [...seqRanks].filter(([id, r]) => passRanks.get(id) !== r)
    if (moved.length === 0) out.push(`ranking: the same under Pass@${K} and Seq@${K} (${mode})`)
    else out.push(`ranking changes from Pass@${K} to Seq@${K} (${mode}): ${moved.map(([id, r]) => `${id} ${ordinal(passRanks.get(id)!)} → ${ordinal(r)}`).join(', ')}`)
  }
  return out
}

/**
 * One line on money when there is something to say: the total, what helpers (critics,
 * summarisers, graders) cost, the prompt-cache share and saving, and replayed calls.
 */
export function spendingLine(cells: readonly CellSummary[]): string | null {
  const parts: string[] = []
  const known = cells.every((x) => x.costUsd !== null)
  const total = cells.reduce((n, x) => n + (x.costUsd ?? 0), 0)
  if (total > 0 || !known) parts.push(`cost ${money(known ? total : null)}${known ? '' : ' (some models unpriced)'}`)
  const helpers = cells.reduce((n, x) => n + Object.entries(x.byRole).filter(([role]) => role !== 'actor').reduce((m, [, r]) => m + (r.costUsd ?? 0), 0), 0)
  if (helpers > 0) parts.push(`helpers ${money(helpers)}`)
  const input = cells.reduce((n, x) => n + x.usage.inputTokens, 0)
  const cached = cells.reduce((n, x) => n + x.usage.cacheReadTokens, 0)
  if (cached > 0) {
    const saved = cells.reduce((n, x) => n + (x.cache.savedUsd ?? 0), 0)
    parts.push(`${percent(cached / input, { digits: 0 })}% of input tokens from prompt cache, saving ${money(saved)}`)
  }
  const replayed = cells.reduce((n, x) => n + x.replayedCalls, 0)
  if (replayed > 0) parts.push(`${replayed} of ${cells.reduce((n, x) => n + x.calls, 0)} calls served without a new request (a cassette, or the rubric grader's cache; nominal cost shown)`)
  return parts.length > 0 ? parts.join('; ') : null
}

/** What the baseline gate said about a benchmark's cells: failures one by one, the rest in a line. */
export function baselineLines(cells: readonly CellSummary[]): string[] {
  const gated = cells.filter((x) => x.gate)
  if (gated.length === 0) return []
  const out: string[] = []
  for (const cell of gated) {
    const gate = cell.gate!
    if (gate.status === 'fail' || gate.status === 'missing') for (const m of gate.messages) out.push(`✗ ${cell.cellId}: baseline: ${m}`)
    // A passing gate still says which tasks it could not compare (added, removed, changed).
    else for (const m of gate.messages.filter((x) => /^\d+ tasks |^the baseline has up to/.test(x))) out.push(`${cell.cellId}: baseline: ${m}`)
  }
  const files = [...new Set(gated.map((x) => x.gate!.file))].join(', ')
  const count = (status: string) => gated.filter((x) => x.gate!.status === status).length
  const parts = [
    count('pass') > 0 ? `${count('pass')} cells without regression` : '',
    count('written') > 0 ? `${count('written')} written` : '',
    count('updated') > 0 ? `${count('updated')} updated` : '',
    count('fail') + count('missing') > 0 ? `${count('fail') + count('missing')} failed` : '',
  ].filter(Boolean)
  out.push(`baseline ${files}: ${parts.join(', ')}${powerText(gated.filter((x) => x.gate!.status === 'pass'))}`)
  return out
}

/**
 * What the passing gates could see, in one clause: the range of drops they catch 80% of the time,
 * and how many are too small to catch any (a green gate there means little).
 */
function powerText(passed: readonly CellSummary[]): string {
  const powers = passed.flatMap((x) => (x.gate?.power ? [x.gate.power] : []))
  if (powers.length === 0) return ''
  const drops = powers.flatMap((p) => (p.detectableDrop === null ? [] : [Math.round(p.detectableDrop * 100)]))
  const blind = powers.length - drops.length
  const parts: string[] = []
  if (drops.length > 0) {
    const [lo, hi] = [Math.min(...drops), Math.max(...drops)]
    parts.push(`at these sizes they catch a drop of ${lo === hi ? lo : `${lo}–${hi}`} points 80% of the time`)
  }
  if (blind > 0) parts.push(`${blind} ${blind === 1 ? 'is' : 'are'} too small to catch even a drop to zero`)
  return `; ${parts.join(', and ')} (npx seqk power says what more tasks or repeats would buy)`
}

/**
 * For rubric tasks (verdicts with criteria): per cell, the share of criteria failed in attempt 1
 * that the best later attempt met, the criteria that passed earlier and broke later, and the
 * success of revisions that changed the answer versus those that did not (paper §5.2–5.3).
 */
export function revisionTable(cells: readonly CellSummary[]): string[] {
  const rows = cells.filter((c) => c.criterionRepair)
  if (rows.length === 0) return []
  const header = ['cell', 'criteria repaired', 'broken later', 'next attempt: changed', 'unchanged']
  const frac = (n: number, d: number, rate: number | null | undefined) => (d === 0 ? '—' : `${percent(rate)} (${n}/${d})`)
  const body = rows.map((c) => {
    const r = c.criterionRepair!
    const next = c.nextAttemptSuccess
    return [
      c.cellId,
      frac(r.repaired, r.failedFirst, r.repairRate),
      frac(r.broken, r.passedEarlier, r.brokenRate),
      next ? frac(next.changed.solved, next.changed.revisions, next.changed.rate) : '—',
      next ? frac(next.unchanged.solved, next.unchanged.revisions, next.unchanged.rate) : '—',
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => visibleLength(r[i] ?? ''))))
  const line = (cols: string[]) => cols.map((col, i) => pad(col, widths[i]!, i > 0)).join('  ')
  return ['revision analysis (criteria, %):', line(header), ...body.map(line)]
}

/** What each annotator reads as a request, for the title of the revision annotation lines. */
const ANNOTATOR_TEXT: Readonly<Record<string, string>> = {
  derived: 'derived annotator: the requests are the failing tests and unmet criteria the feedback named',
}

/**
 * Per cell with annotated revisions (paper §5.2.2, Figure 5b): the share of revisions that
 * addressed none, some or all of the feedback they answered, and the next-attempt success of each
 * class, pooled over revisions; their intervals (clustered by task) are in summary.json.
 *
 * @example
 * revisionAnnotationTable(cells)
 * // ['revision annotation (derived annotator: …; %):', 'cell  annotated  unhelpful …', …]
 */
export function revisionAnnotationTable(cells: readonly CellSummary[]): string[] {
  const rows = cells.filter((c) => c.revisionAnnotation)
  if (rows.length === 0) return []
  const annotators = [...new Set(rows.map((c) => c.revisionAnnotation!.annotator))]
  const header = ['cell', 'annotated', 'unhelpful', 'some', 'all', 'solved: unhelpful', 'some', 'all']
  const success = (k: { revisions: number; solved: number; success: { point: number | null } }) => (k.revisions === 0 ? '—' : `${percent(k.success.point)} (${k.solved}/${k.revisions})`)
  const body = rows.map((c) => {
    const a = c.revisionAnnotation!
    const { unhelpful, some, all } = a.classes
    return [c.cellId, a.sampled ? `${a.annotated} of ${a.annotatable}` : String(a.annotated), percent(unhelpful.share.point), percent(some.share.point), percent(all.share.point), success(unhelpful), success(some), success(all)]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => visibleLength(r[i] ?? ''))))
  const line = (cols: string[]) => cols.map((col, i) => pad(col, widths[i]!, i > 0)).join('  ')
  const title = `revision annotation (${annotators.map((a) => ANNOTATOR_TEXT[a] ?? `${a} annotator`).join('; ')}; %):`
  return [title, line(header), ...body.map(line)]
}

/** One line per history comparison: the paired effect of summarising the history. */
export function historyComparisonLines(comparisons: readonly { actorId: string; mode: string; baseline: { history: string; seqAtK: number | null }; other: { history: string; seqAtK: number | null }; diff: { point: number | null; lo: number | null; hi: number | null }; commonTasks: number }[]): string[] {
  return comparisons.map((c) => {
    const d = c.diff
    return `history ${c.other.history} vs ${c.baseline.history} (${c.actorId} · ${c.mode}): Seq@K ${percent(c.baseline.seqAtK)} → ${percent(c.other.seqAtK)}, difference ${signedPercent(d.point)} points (95% CI ${signedPercent(d.lo)} to ${signedPercent(d.hi)}) on ${c.commonTasks} common tasks`
  })
}
