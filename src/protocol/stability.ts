/**
 * Verifier stability: does the verifier give the same verdict twice? Each task's known answer (a
 * reference solution, or a graded answer for a rubric task) is verified M times at the run's
 * concurrency and M times at twice that (under load), and the report names the tasks whose verdict
 * flips, the tasks whose time is within 2× of the time limit with the limit that would make them
 * stable, and, for verdicts with criteria (LLM graders), the self-agreement per criterion. A task
 * whose every run timed out never finished: its time is unknown, so it is named apart and left
 * out of the recommended limit (an answer that loops forever would otherwise set the limit to
 * twice the current one, and say nothing true); a verifier with a longer limit, when given, tells
 * a slow answer (which then counts) from one that does not finish at all.
 */
import { z } from 'zod'
import type { AnyTask } from '../core/task.js'
import type { Verdict } from '../core/contract.js'
import { verdictAgreement, type VerdictAgreement } from '../metrics/verdict-agreement.js'
import type { Verifier } from '../verifiers/verifier.js'
import { mapConcurrent } from './concurrency.js'

/**
 * The schema id of a stability report.
 *
 * @example
 * JSON.parse(readFileSync('stability.json', 'utf8')).schema === STABILITY_SCHEMA // a seqk stability --json file
 */
export const STABILITY_SCHEMA = 'seqk.stability/1'

/** One task and the answer whose verdict should not change: a reference solution, or a graded answer. */
export interface StabilityItem {
  task: AnyTask
  answer: string
}

/** The options of {@link measureStability}. */
export interface StabilityOptions {
  /** Verifications per task at each load (default 5; at least 2). */
  repeats?: number
  /** The run's concurrency (default 4, a cell's default): the second pass runs at twice this. */
  concurrency?: number
  /** The verifier's time limit in ms (default: its `settings.timeoutMs` when it has one; none for a grader). */
  timeoutMs?: number
  /** Called after each verification (progress). */
  onVerdict?: (done: number, total: number) => void
  /**
   * The same verifier with a longer time limit (its `settings.timeoutMs`), run once on each task
   * whose every run timed out: one that finishes there is slow, and its time counts towards the
   * recommended limit; one that does not is named as never finishing. Without it, every task that
   * always timed out is named as never finishing within the limit.
   */
  longVerifier?: Verifier
}

/** What the repeated verdicts of one task showed. */
export interface TaskStability {
  taskId: string
  /** Verifications made (2 × repeats, less those that threw). */
  runs: number
  passes: number
  /** Verifications that threw (an infrastructure error: neither a pass nor a failure). */
  errors: number
  /** The verdict was not the same every time (or a verification threw: its verdict is unknown). */
  flipped: boolean
  /** Passes at each concurrency. */
  byLoad: { concurrency: number; runs: number; passes: number }[]
  /** Verdicts per outcome (`passed`, `failed`, `timeout`, …). */
  outcomes: Record<string, number>
  /** The slowest and the median verification as the verdicts report it (`durationMs`); null when none did. */
  maxDurationMs: number | null
  medianDurationMs: number | null
  /** The slowest verification took more than half the time limit (null without a limit or durations). */
  nearLimit: boolean | null
  /**
   * The limit under which the slowest verification takes at most half of it (2 × the slowest,
   * rounded up to 100 ms); a lower bound when a verification timed out. Null without durations,
   * and for a task that never finished (its time is unknown); from the long run when that finished.
   */
  stableTimeoutMs: number | null
  /**
   * Every verification timed out (at least one was made), and so did the long run when one was
   * made: the answer never finished (a loop that never ends, or one far slower than the limits tried).
   */
  neverFinished: boolean
  /** The one run with the longer limit (`longVerifier`), made only for a task that never finished. */
  longRun?: { timeoutMs: number | null; outcome: string; durationMs: number | null }
  /** Self-agreement of each criterion's met / not met (verdicts with criteria only). */
  criteria: { id: string; agreement: VerdictAgreement }[]
}

/** The report of {@link measureStability} and `seqk stability`. */
export interface StabilityReport {
  schema: typeof STABILITY_SCHEMA
  verifier: { name: string; version: string; settings: Verifier['settings'] }
  repeats: number
  /** The two loads: the run's concurrency and twice it. */
  concurrency: [number, number]
  timeoutMs: number | null
  tasks: TaskStability[]
  /** Tasks whose verdict flipped or is unknown (a verification threw): the verifier is unstable on them. */
  unstableTasks: string[]
  /** Tasks within 2× of the limit (those that never finished are in `neverFinishedTasks` instead). */
  nearLimitTasks: string[]
  /**
   * Tasks whose every run timed out, and (when a long run was made) that also timed out with the
   * longer limit: an answer that loops forever, or one far slower than any limit tried. Left out of
   * the recommendation.
   */
  neverFinishedTasks: string[]
  /** The longer limit of the runs made for tasks that never finished (`longVerifier`), or null when none was made. */
  longTimeoutMs: number | null
  /**
   * The limit that would make every task that finishes stable: the largest `stableTimeoutMs`, at
   * least the current limit; null without a limit. Tasks that never finished do not count.
   */
  recommendedTimeoutMs: number | null
  /** The recommendation is a lower bound: a task that finished in some runs timed out in others, so its real time is unknown. */
  recommendationIsLowerBound: boolean
  /** Self-agreement of the whole verdict's pass/fail over tasks. */
  verdictAgreement: VerdictAgreement
  /** Self-agreement pooled over every (task, criterion); null when no verdict had criteria. */
  criterionAgreement: VerdictAgreement | null
}

const ceil100 = (ms: number) => Math.ceil(ms / 100) * 100

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** A verifier's verdict cache would answer repeats without judging again: a report from it would show no flips that it could not see. */
function cacheHitsOf(verifier: Verifier): number | undefined {
  // python-tests keeps its counters in a `stats` object, the rubric verifier behind a `stats()` call.
  const raw = (verifier as { stats?: unknown }).stats
  const stats = (typeof raw === 'function' ? (raw as () => unknown).call(verifier) : raw) as
    { cacheHits?: unknown } | undefined
  return typeof stats?.cacheHits === 'number' ? stats.cacheHits : undefined
}

/** One task's repeated verdicts (undefined: the verification threw) summarised. */
export function taskStability(
  taskId: string,
  verdicts: readonly { concurrency: number; verdict: Verdict | undefined }[],
  timeoutMs: number | null,
): TaskStability {
  const judged = verdicts.flatMap((v) => (v.verdict ? [v.verdict] : []))
  const passes = judged.filter((v) => v.pass).length
  const errors = verdicts.length - judged.length
  const loads = [...new Set(verdicts.map((v) => v.concurrency))]
  const outcomes: Record<string, number> = {}
  for (const v of judged) outcomes[v.diagnostics.outcome] = (outcomes[v.diagnostics.outcome] ?? 0) + 1
  const durations = judged.flatMap((v) => (typeof v.durationMs === 'number' ? [v.durationMs] : []))
  const maxDurationMs = durations.length > 0 ? Math.max(...durations) : null
  const neverFinished = judged.length > 0 && (outcomes.timeout ?? 0) === judged.length
  const byCriterion = new Map<string, boolean[]>()
  for (const v of judged)
    for (const c of v.criteria ?? []) byCriterion.set(c.id, [...(byCriterion.get(c.id) ?? []), c.met])
  return {
    taskId,
    runs: judged.length,
    passes,
    errors,
    flipped: errors > 0 || (passes > 0 && passes < judged.length),
    byLoad: loads.map((concurrency) => {
      const at = verdicts.filter((v) => v.concurrency === concurrency && v.verdict)
      return { concurrency, runs: at.length, passes: at.filter((v) => v.verdict!.pass).length }
    }),
    outcomes,
    maxDurationMs,
    medianDurationMs: median(durations),
    nearLimit: timeoutMs === null || maxDurationMs === null ? null : 2 * maxDurationMs > timeoutMs,
    // A run that timed out took "the limit or more": the task's time is unknown when none finished.
    stableTimeoutMs: maxDurationMs === null || neverFinished ? null : ceil100(2 * maxDurationMs),
    neverFinished,
    criteria: [...byCriterion].map(([id, met]) => ({ id, agreement: verdictAgreement([met]) })),
  }
}

/**
 * Verifies every item's answer `repeats` times at `concurrency` and `repeats` times at twice it,
 * and reports flips, near-limit tasks and self-agreement. The verifier must judge every time: a
 * `verifiers.pythonTests()` needs `cache: false` (a cached verdict is refused, it would hide flips).
 *
 * @throws RangeError for repeats below 2, a concurrency below 1, or a verifier that answered from its cache.
 * @example
 * const report = await measureStability(
 *   [{ task, answer: reference }],
 *   verifiers.pythonTests({ cache: false }),
 *   { repeats: 5, concurrency: 4 },
 * )
 * report.unstableTasks // => [] when every verdict was the same
 */
export async function measureStability(
  items: readonly StabilityItem[],
  verifier: Verifier,
  options: StabilityOptions = {},
): Promise<StabilityReport> {
  const repeats = options.repeats ?? 5
  const concurrency = options.concurrency ?? 4
  if (!(Number.isInteger(repeats) && repeats >= 2))
    throw new RangeError(`stability: repeats must be an integer >= 2 (one verdict cannot flip), got ${String(repeats)}`)
  if (!(Number.isInteger(concurrency) && concurrency >= 1))
    throw new RangeError(`stability: concurrency must be an integer >= 1, got ${String(concurrency)}`)
  const setting = verifier.settings.timeoutMs
  const timeoutMs = options.timeoutMs ?? (typeof setting === 'number' ? setting : null)
  const loads: [number, number] = [concurrency, 2 * concurrency]
  const hitsBefore = cacheHitsOf(verifier)
  const total = items.length * repeats * loads.length
  let done = 0
  const seen = items.map(() => [] as { concurrency: number; verdict: Verdict | undefined }[])
  for (const load of loads) {
    // Repeat-major: one task's repeats are spread over the pass, not run back to back.
    const jobs = Array.from({ length: repeats }, (_, r) => items.map((_, i) => ({ i, r }))).flat()
    await mapConcurrent(jobs, load, async ({ i, r }) => {
      let verdict: Verdict | undefined
      try {
        verdict = await verifier.verify(items[i]!.task, items[i]!.answer, { attempt: 1, repeat: r + 1 })
      } catch {
        verdict = undefined
      }
      const hits = cacheHitsOf(verifier)
      if (hitsBefore !== undefined && hits !== undefined && hits > hitsBefore)
        throw new RangeError(
          `stability: verifier ${verifier.name} answered from its verdict cache, so a repeat judged nothing; create it with cache: false (e.g. verifiers.pythonTests({ cache: false }) or verifiers.rubric({ grader, cache: false }))`,
        )
      seen[i]!.push({ concurrency: load, verdict })
      options.onVerdict?.(++done, total)
    })
  }
  const tasks = items.map((item, i) => taskStability(item.task.id, seen[i]!, timeoutMs))
  const long = options.longVerifier
  const longSetting = long?.settings.timeoutMs
  const longTimeoutMs = typeof longSetting === 'number' ? longSetting : null
  if (long !== undefined)
    await mapConcurrent(
      tasks.flatMap((t, i) => (t.neverFinished ? [i] : [])),
      concurrency,
      async (i) => {
        const task = tasks[i]!
        let verdict: Verdict | undefined
        try {
          verdict = await long.verify(items[i]!.task, items[i]!.answer, { attempt: 1, repeat: repeats + 1 })
        } catch {
          verdict = undefined
        }
        const outcome = verdict?.diagnostics.outcome ?? 'error'
        const durationMs = typeof verdict?.durationMs === 'number' ? verdict.durationMs : null
        task.longRun = { timeoutMs: longTimeoutMs, outcome, durationMs }
        // Finished with the longer limit: a slow answer, whose time now counts.
        if (outcome !== 'timeout' && outcome !== 'error' && durationMs !== null) {
          task.neverFinished = false
          task.stableTimeoutMs = ceil100(2 * durationMs)
        }
      },
    )
  // Only a task that finished in some runs and timed out in others leaves its real time unknown.
  const lowerBound = tasks.some((t) => !t.neverFinished && t.longRun === undefined && (t.outcomes.timeout ?? 0) > 0)
  const stable = tasks.flatMap((t) => (t.stableTimeoutMs === null ? [] : [t.stableTimeoutMs]))
  const criterionItems = items.flatMap((_, i) => {
    const byCriterion = new Map<string, boolean[]>()
    for (const { verdict } of seen[i]!)
      for (const c of verdict?.criteria ?? []) byCriterion.set(c.id, [...(byCriterion.get(c.id) ?? []), c.met])
    return [...byCriterion.values()]
  })
  return {
    schema: STABILITY_SCHEMA,
    verifier: { name: verifier.name, version: verifier.version, settings: verifier.settings },
    repeats,
    concurrency: loads,
    timeoutMs,
    tasks,
    unstableTasks: tasks.filter((t) => t.flipped).map((t) => t.taskId),
    nearLimitTasks: tasks.filter((t) => t.nearLimit === true && !t.neverFinished).map((t) => t.taskId),
    neverFinishedTasks: tasks.filter((t) => t.neverFinished).map((t) => t.taskId),
    longTimeoutMs: long === undefined ? null : longTimeoutMs,
    recommendedTimeoutMs: timeoutMs === null ? null : Math.max(timeoutMs, ...stable),
    recommendationIsLowerBound: lowerBound,
    verdictAgreement: verdictAgreement(seen.map((s) => s.flatMap(({ verdict }) => (verdict ? [verdict.pass] : [])))),
    criterionAgreement: criterionItems.length > 0 ? verdictAgreement(criterionItems) : null,
  }
}

/** What an eval reads of a `seqk stability --json` report: the verifier it measured and its unstable tasks. */
export const StabilityReportFileSchema = z.object({
  schema: z.literal(STABILITY_SCHEMA, {
    message: `expected a \`seqk stability --json\` report (schema ${STABILITY_SCHEMA})`,
  }),
  verifier: z.object({
    name: z.string(),
    version: z.string(),
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  }),
  unstableTasks: z.array(z.string()),
})

/**
 * The tasks a stability report (the text of a `seqk stability --json` file) saw flip, when it
 * measured this verifier with the same name, version and settings; otherwise a problem naming
 * the field and the fix (a report at another time limit says nothing about this one).
 *
 * @example
 * knownUnstableFrom(readFileSync('stability.json', 'utf8'), 'stability.json', verifiers.pythonTests())
 * // => { tasks: ['humaneval-pro/55'] }
 */
export function knownUnstableFrom(
  text: string,
  file: string,
  verifier: Pick<Verifier, 'name' | 'version' | 'settings'>,
): { tasks: string[] } | { problem: string } {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { problem: `${file} is not JSON; write it with seqk stability <benchmark file> --json ${file}` }
  }
  const parsed = StabilityReportFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    return {
      problem: `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}; write it with seqk stability --json`,
    }
  }
  const measured = parsed.data.verifier
  const same =
    measured.name === verifier.name &&
    measured.version === verifier.version &&
    canonical(measured.settings) === canonical(verifier.settings)
  if (!same)
    return {
      problem: `${file}: verifier: measured ${measured.name} ${measured.version} ${canonical(measured.settings)}, but this eval's verifier is ${verifier.name} ${verifier.version} ${canonical(verifier.settings)}; run seqk stability again with the same settings (e.g. --timeout-ms)`,
    }
  return { tasks: parsed.data.unstableTasks }
}

const canonical = (settings: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(settings).sort(([a], [b]) => a.localeCompare(b))))
