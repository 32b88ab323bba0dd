/**
 * What the live page shows, as text, from a snapshot (pure; no Node, no DOM): the server renders
 * it into the page it answers and the browser script renders it again as events arrive, so both
 * say the same thing in the same words.
 */
import { STATUS_TEXT } from '../../core/kinds.js'
import type { CellPhase, LiveCell, LiveSnapshot, LiveTrajectory } from './events.js'

export type BadgeKind = 'waiting' | 'running' | 'pass' | 'fail' | 'none'

export interface LiveCellRow {
  key: string
  benchmark: string
  cellId: string
  phase: CellPhase
  done: number
  /** The progress bar's maximum. */
  max: number
  /** `3/6`, or `3` while the total is unknown. */
  count: string
  solved: number
  failed: number
  errored: number
  /** `running`, `ended in 3.2 s`, `kept from the earlier run (ended in 12.3 s then)`, `unfinished: …`, `skipped: …`. */
  state: string
  /** `pass`, `fail (2)`, `no thresholds`, `shard`, `not run` (skipped); empty until the cell ends. */
  verdict: string
  verdictKind: BadgeKind
  /** The verifier-unstable sentence every output prints for the cell (`verifierUnstableLine`); empty when none. */
  unstable: string
}

export interface LiveView {
  title: string
  badge: { text: string; kind: BadgeKind }
  runLine: string
  loadErrors: string[]
  cells: LiveCellRow[]
  /** Newest first. */
  recent: { status: LiveTrajectory['status']; outcome: string; where: string; summary: string }[]
  /** Newest first. */
  errors: { where: string; message: string }[]
  batches: { batchId: string; status: string; text: string }[]
  malformed: string[]
  /** The run ended: a sentence, the verdict's reasons, and whether the report can be opened. */
  ended: { text: string; reasons: string[]; report: boolean } | null
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

function stateText(c: LiveCell): string {
  if (c.phase === 'planned') return 'planned'
  if (c.phase === 'skipped') return `skipped: ${c.skipped ?? 'it will not run'}`
  if (c.phase === 'running') return 'running'
  if (c.phase === 'unfinished') return `unfinished: ${c.unfinished ?? 'it did not run to its end'}`
  if (c.phase === 'kept')
    return c.keptDurationMs === null
      ? 'kept from the earlier run'
      : `kept from the earlier run (ended in ${seconds(c.keptDurationMs)} then)`
  const ended = c.durationMs === null ? 'ended' : `ended in ${seconds(c.durationMs)}`
  return c.progress.capped > 0
    ? `${ended} · stopped at the cost cap (${plural(c.progress.capped, 'trajectory', 'trajectories')} unfinished)`
    : ended
}

function verdictOf(c: LiveCell): { text: string; kind: BadgeKind } {
  // In the words every output uses for a cell that did not run.
  if (c.phase === 'skipped') return { text: STATUS_TEXT['not-run'], kind: 'none' }
  if (c.verdict === null) return { text: '', kind: 'none' }
  if (c.verdict === 'fail') return { text: `fail (${c.failedChecks ?? '?'})`, kind: 'fail' }
  if (c.verdict === 'pass') return { text: 'pass', kind: 'pass' }
  return { text: c.verdict === 'no-thresholds' ? 'no thresholds' : 'shard', kind: 'none' }
}

function where(t: LiveTrajectory): string {
  return `${t.benchmark} › ${t.cellId} › ${t.taskId} #${t.repeat + 1}`
}

/**
 * The page's text for a snapshot.
 *
 * @example
 * liveView(snapshot).badge // => { text: 'running · 79 of 240 trajectories', kind: 'running' }
 */
export function liveView(s: LiveSnapshot): LiveView {
  let done = 0
  let total = 0
  for (const c of s.cells) {
    done += c.progress.done
    total += c.progress.total ?? c.progress.done
  }
  // Files queued but not loaded yet add cells the total cannot count yet.
  const pending = Math.max(0, s.files.planned - s.files.loaded)
  const of = total > 0 ? ` of ${pending > 0 ? 'at least ' : ''}${total}` : ''
  const still = pending > 0 ? ` (${plural(pending, 'file')} still loading)` : ''
  let badge: LiveView['badge']
  if (s.runId === null) badge = { text: 'waiting for a run', kind: 'waiting' }
  else if (s.reading)
    badge = {
      text: `reading the run · ${s.reading.of === 0 ? 0 : Math.floor((100 * s.reading.bytes) / s.reading.of)}% of its trajectories`,
      kind: 'running',
    }
  else if (s.ended?.verdict)
    badge = {
      text: `run ended · ${s.ended.verdict.status === 'fail' ? 'fail' : s.ended.verdict.status === 'pass' ? 'pass' : 'no thresholds'}`,
      kind: s.ended.verdict.status === 'fail' ? 'fail' : s.ended.verdict.status === 'pass' ? 'pass' : 'none',
    }
  else if (s.ended) badge = { text: 'run ended', kind: 'pass' }
  else badge = { text: `running · ${done}${of} trajectories${still}`, kind: 'running' }
  const verdict = s.ended?.verdict
  return {
    title: s.runId === null ? 'seqk live' : `seqk live · ${s.runId}`,
    badge,
    runLine: s.runId === null ? `waiting for a run in ${s.dir}` : `run ${s.runId} · ${s.dir}`,
    loadErrors: s.loadErrors.map((e) => `${e.file} failed to load: ${e.error}`),
    cells: s.cells.map((c) => {
      const v = verdictOf(c)
      return {
        key: c.key,
        benchmark: c.benchmark,
        cellId: c.cellId,
        phase: c.phase,
        done: c.progress.done,
        max: c.progress.total ?? Math.max(c.progress.done, 1),
        count: c.progress.total === null ? String(c.progress.done) : `${c.progress.done}/${c.progress.total}`,
        solved: c.progress.solved,
        failed: c.progress.failed,
        errored: c.progress.errored,
        state: stateText(c),
        verdict: v.text,
        verdictKind: v.kind,
        unstable: c.verifierUnstable ?? '',
      }
    }),
    recent: [...s.recent].reverse().map((t) => ({
      status: t.status,
      outcome:
        t.status === 'solved'
          ? `solved at attempt ${t.firstSuccess ?? t.attempts}`
          : t.status === 'failed'
            ? `failed after ${plural(t.attempts, 'attempt')}`
            : t.status === 'capped'
              ? 'stopped at the cost cap'
              : 'error',
      where: where(t),
      summary: t.status === 'solved' || t.status === 'failed' ? t.summary : '',
    })),
    errors: [...s.errors].reverse().map((t) => ({
      where: `${where(t)} · ${t.error?.stage ?? '?'} failed at attempt ${t.error?.attempt ?? '?'}`,
      message: t.error?.message ?? '',
    })),
    batches: s.batches.map((b) => ({
      batchId: b.batchId,
      status: b.status,
      text: `${b.status === 'in_progress' ? `in progress ${b.done}/${b.total}` : b.status === 'finalizing' ? 'finalising' : b.status === 'submitted' ? `submitted, ${plural(b.total, 'request')}` : b.status} · ${b.provider} batch ${b.batchId}`,
    })),
    malformed: s.malformed.map((m) => `${m.file}:${m.line}: ${m.message}`),
    ended: s.ended
      ? {
          text: `The run ended${verdict ? `: ${verdict.status === 'fail' ? 'it failed' : verdict.status === 'pass' ? 'it passed' : 'it checked nothing'} · ${verdict.text}` : ''}.${s.ended.report ? ' Its report is ready.' : ' The report follows when the run writes it.'}`,
          reasons: verdict?.reasons ?? [],
          report: s.ended.report,
        }
      : null,
  }
}
