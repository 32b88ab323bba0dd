/**
 * A run's cells as inspect_ai EvalLog files (log format version 2, the JSON `inspect view` opens):
 * one log per cell, one sample per trajectory (task × repeat as sample id × epoch) with the whole
 * conversation, a score per attempt and whether it was solved, the cell's Seq@k or Pass@k curve
 * as metrics, and the token usage per model and role. Pure: `seqk export` reads the run and writes.
 * The mapping is documented field by field in docs/disclosure-and-exports.md.
 */
import { readStatistic, STATISTICS } from '../protocol/statistics/index.js'
import { headlineCurve } from '../protocol/cell-metrics.js'
import type { CellSummary, RunSummary, Trajectory } from '../core/schemas.js'
import type { DisclosureCard } from '../core/disclosure.js'
import { sumUsage, type Usage } from '../core/contract.js'
import { defaultPromptBuilder } from '../protocol/prompt-builder.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { taskRecordKey, type TaskRecord } from '../artifacts/tasks-file.js'

/** The log format version inspect_ai writes (its `EvalLog.version`). */
export const INSPECT_LOG_VERSION = 2

type Json = Record<string, unknown>

/** inspect_ai's ModelUsage for one usage and cost (its `input_tokens` counts cached input too, as ours does). */
function modelUsage(usage: Usage, costUsd: number | null): Json {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_cache_read: usage.cacheReadTokens,
    input_tokens_cache_write: usage.cacheWriteTokens,
    reasoning_tokens: null,
    total_cost: costUsd,
  }
}

/**
 * ModelUsage entries for the usages fully known: a usage with a call that reported none is left
 * out (inspect_ai's token counts are integers, and a partial sum would read as the whole).
 */
function knownUsages(
  entries: [string, { usage: Usage | null; usageUnknownCalls?: number; costUsd: number | null }][],
): Record<string, Json> {
  return Object.fromEntries(
    entries.flatMap(([name, r]) =>
      r.usage === null || r.usageUnknownCalls ? [] : [[name, modelUsage(r.usage, r.costUsd)]],
    ),
  )
}

const STOP_REASONS = { stop: 'stop', length: 'max_tokens', refusal: 'content_filter', other: 'unknown' } as const

/** `provider/model`, as inspect_ai names models. */
const modelName = (cell: CellSummary): string => `${cell.protocol.actor.provider}/${cell.protocol.actor.model}`

/** An ISO time as inspect_ai's `created` wants it: with its offset. */
const iso = (ms: number): string => new Date(ms).toISOString()

/** What an export carries besides the run's summary and trajectories. */
export interface InspectInput {
  summary: RunSummary
  /** The cell's trajectories, in any order. */
  trajectories: readonly Trajectory[]
  /** The tasks' first prompts (tasks.jsonl), by `taskRecordKey`; a task without one gets a note as its input. */
  tasks: ReadonlyMap<string, TaskRecord>
  /** The run's disclosure card, for package versions and the commit (optional). */
  card?: DisclosureCard
}

/**
 * One EvalLog per cell of the run, with a file name for each (`<benchmark>_<cell>.json`, made safe).
 *
 * @example
 * for (const { file, log } of inspectLogs({ summary, trajectories, tasks })) writeFileSync(join(out, file), JSON.stringify(log))
 */
export function inspectLogs(input: InspectInput): { file: string; cell: CellSummary; log: Json }[] {
  const used = new Set<string>()
  return input.summary.benchmarks.flatMap((b) =>
    b.cells.map((cell) => {
      const own = input.trajectories.filter(
        (t) => t.benchmark === cell.benchmark && t.cellId === cell.cellId && t.fingerprint === cell.fingerprint,
      )
      let file = `${safe(cell.benchmark)}_${safe(cell.cellId)}.json`
      for (let i = 2; used.has(file); i++) file = `${safe(cell.benchmark)}_${safe(cell.cellId)}-${i}.json`
      used.add(file)
      return { file, cell, log: inspectLog(cell, b.file, own, input) }
    }),
  )
}

const safe = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80) || 'cell'

/** The EvalLog of one cell. */
export function inspectLog(
  cell: CellSummary,
  file: string,
  trajectories: readonly Trajectory[],
  input: Pick<InspectInput, 'summary' | 'tasks' | 'card'>,
): Json {
  const p = cell.protocol
  const sequential = p.kind === 'sequential'
  const headline = headlineCurve(cell)
  const metric = headline.label.toLowerCase()
  const { curve, interval } = headline
  const unfinished = cell.thresholds.find((t) => t.metric === 'finished' && !t.pass)
  const times = trajectories.map((t) => Date.parse(t.startedAt)).filter(Number.isFinite)
  const started = times.length > 0 ? Math.min(...times) : Date.parse(input.summary.createdAt)
  const ended = trajectories.reduce((n, t) => Math.max(n, Date.parse(t.startedAt) + t.durationMs), started)
  const metrics: Record<string, Json> = {}
  curve.forEach((value, i) => {
    if (value !== null) metrics[`${metric}@${i + 1}`] = { name: `${metric}@${i + 1}`, value, params: {} }
  })
  // The score curve (mean best score by attempt k), named apart from the solved rate.
  cell.score?.at.forEach((value, i) => {
    if (value !== null) metrics[`score@${i + 1}`] = { name: `score@${i + 1}`, value, params: {} }
  })
  // Every registered statistic the cell has, snake_case as inspect names metrics, its interval beside it.
  const statistics = STATISTICS.flatMap((s) => {
    const entry = readStatistic(cell, s.id)
    const name = s.id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    if (!entry) return []
    return [
      [name, entry.value],
      [`${name}_ci_lo`, entry.interval?.lo],
      [`${name}_ci_hi`, entry.interval?.hi],
    ] as const
  })
  for (const [name, value] of [['ci_lo', interval?.lo], ['ci_hi', interval?.hi], ...statistics] as const) {
    if (typeof value === 'number') metrics[name] = { name, value, params: {} }
  }
  const roleUsage = knownUsages(Object.entries(cell.byRole))
  const actor = cell.byRole.actor
  const params = p.actor.params
  const generateConfig: Json = {}
  if (typeof params.temperature === 'number') generateConfig.temperature = params.temperature
  if (typeof params.maxTokens === 'number') generateConfig.max_tokens = params.maxTokens
  if (typeof params.seed === 'number' && Number.isInteger(params.seed)) generateConfig.seed = params.seed
  const packages: Record<string, string> = {}
  if (input.card?.harness.vitestSeqk) packages['vitest-seqk'] = input.card.harness.vitestSeqk
  if (input.card?.harness.vitest) packages.vitest = input.card.harness.vitest
  const taskArgs = {
    cell: cell.cellId,
    mode: cell.mode,
    budget: p.budget,
    repeats: cell.repeats,
    feedback: p.feedback?.kind ?? null,
    history: p.history?.name ?? null,
  }
  return {
    version: INSPECT_LOG_VERSION,
    status: unfinished ? 'error' : 'success',
    eval: {
      eval_id: `${cell.runId}-${cell.fingerprint}`,
      run_id: cell.runId,
      created: iso(started),
      task: cell.benchmark,
      task_id: p.benchmark.contentHash,
      task_version: 0,
      task_file: file,
      task_display_name: `${cell.benchmark} › ${cell.cellId}`,
      task_attribs: {},
      task_args: taskArgs,
      task_args_passed: taskArgs,
      solver: sequential ? 'seqk/sequential-feedback' : 'seqk/independent-samples',
      dataset: {
        name: cell.benchmark,
        location: file,
        samples: p.benchmark.tasks,
        sample_ids: cell.perTask.map((t) => t.taskId),
        shuffled: false,
      },
      model: modelName(cell),
      model_generate_config: generateConfig,
      model_args: params,
      config: { epochs: cell.repeats },
      packages,
      scorers: [
        {
          name: p.verifier.name,
          options: p.verifier.settings,
          metrics: null,
          metadata: { version: p.verifier.version },
        },
      ],
      metadata: {
        seqk: {
          protocol: p,
          fingerprint: cell.fingerprint,
          instrument: cellInstrument(cell),
          subject: cellSubject(cell),
          verdict: cell.verdict,
          ...(input.card?.harness.git.commit
            ? { commit: input.card.harness.git.commit, clean: input.card.harness.git.clean }
            : {}),
        },
      },
    },
    plan: {
      name: 'plan',
      steps: [
        {
          solver: sequential ? 'seqk/sequential-feedback' : 'seqk/independent-samples',
          params: {
            budget: p.budget,
            budget_disclosed: p.budgetDisclosed,
            feedback: p.feedback,
            history: p.history,
            prompt_builder: p.promptBuilder,
          },
          params_passed: {},
        },
      ],
      config: generateConfig,
    },
    results: {
      total_samples: p.benchmark.tasks * cell.repeats,
      completed_samples: trajectories.length,
      scores: [
        {
          name: 'solved',
          scorer: p.verifier.name,
          params: { k: p.budget },
          metrics,
          scored_samples: trajectories.filter((t) => t.status === 'solved' || t.status === 'failed').length,
          // Errored and capped (stopped at a cost cap) trajectories have no score.
          unscored_samples: trajectories.filter((t) => t.status === 'error' || t.status === 'capped').length,
        },
      ],
      metadata: {
        verdict: cell.verdict,
        thresholds: cell.thresholds,
        gate: cell.gate ?? null,
        errors: cell.errors,
        ...(cell.usageUnknownCalls ? { usage_unknown_calls: cell.usageUnknownCalls } : {}),
      },
    },
    stats: {
      started_at: iso(started),
      completed_at: iso(ended),
      model_usage: actor ? knownUsages([[modelName(cell), actor]]) : {},
      role_usage: roleUsage,
      connection_limit_history: [],
    },
    ...(unfinished ? { error: { message: unfinished.message, traceback: '', traceback_ansi: '' } } : {}),
    invalidated: false,
    tags: [cell.mode, p.kind],
    metadata: {},
    samples: trajectories.map((t) => sample(t, cell, input.tasks)),
  }
}

/** One trajectory as an EvalSample: the conversation, the final output, a score per attempt and whether it was solved. */
function sample(t: Trajectory, cell: CellSummary, tasks: ReadonlyMap<string, TaskRecord>): Json {
  const task = tasks.get(taskRecordKey(t.benchmark, t.taskId))
  const input = task
    ? task.messages.map((m) => ({ role: m.role, content: m.content, source: 'input' }))
    : `(the prompt of task ${t.taskId} is not in this run directory's tasks.jsonl)`
  const messages: Json[] = Array.isArray(input) ? [...input] : [{ role: 'user', content: input, source: 'input' }]
  const sequential = cell.protocol.kind === 'sequential'
  const budget = cell.protocol.budget
  const disclosed = cell.protocol.budgetDisclosed
  t.attempts.forEach((a, i) => {
    // Independent samples are K separate conversations; shown one after another, each a fresh answer to the prompt.
    messages.push({
      role: 'assistant',
      content: a.answer,
      source: 'generate',
      model: modelName(cell),
      metadata: { attempt: a.index, pass: a.verdict.pass },
    })
    if (sequential && a.feedback && i < t.attempts.length - 1) {
      const text =
        task?.promptBuilder === defaultPromptBuilder.version
          ? defaultPromptBuilder.revision(
              { kind: a.feedback.kind, text: a.feedback.text },
              { attempt: a.index, budget, discloseBudget: disclosed },
            )
          : a.feedback.text
      messages.push({ role: 'user', content: text, source: 'input', metadata: { feedback: a.feedback.kind } })
    }
  })
  const last = t.attempts.at(-1)
  const spent = sumUsage(t.attempts.map((a) => a.usage))
  const usage = spent.unknownCalls > 0 ? null : spent.usage
  let actorCost: number | null = 0
  for (const a of t.attempts) actorCost = actorCost === null || a.costUsd === null ? null : actorCost + a.costUsd
  const scores: Record<string, Json> = {}
  for (const a of t.attempts) {
    scores[`attempt_${a.index}`] = {
      value: a.verdict.pass ? 1 : 0,
      answer: a.verdict.extracted ?? null,
      explanation: a.verdict.diagnostics.summary,
      metadata: {
        outcome: a.verdict.diagnostics.outcome,
        ...(a.verdict.score !== undefined ? { score: a.verdict.score } : {}),
        feedback: a.feedback?.kind ?? null,
      },
      history: [],
    }
  }
  if (t.status === 'solved' || t.status === 'failed')
    scores.solved = {
      value: t.status === 'solved' ? 1 : 0,
      answer: last?.answer ?? null,
      explanation:
        t.firstSuccess === null ? `not solved in ${t.attempts.length} attempts` : `solved at attempt ${t.firstSuccess}`,
      metadata: { first_success: t.firstSuccess },
      history: [],
    }
  const start = Date.parse(t.startedAt)
  return {
    id: t.taskId,
    epoch: t.repeat + 1,
    input,
    target: task?.target ?? '',
    messages,
    output: {
      model: modelName(cell),
      choices: last
        ? [
            {
              message: { role: 'assistant', content: last.answer, source: 'generate', model: modelName(cell) },
              stop_reason: STOP_REASONS[last.finishReason],
            },
          ]
        : [],
      completion: last?.answer ?? '',
      usage: usage === null ? null : modelUsage(usage, actorCost),
      time: t.durationMs / 1000,
    },
    scores,
    metadata: {
      status: t.status,
      first_success: t.firstSuccess,
      attempts: t.attempts.length,
      ...(spent.unknownCalls > 0 ? { usage_unknown_calls: spent.unknownCalls } : {}),
      ...(task?.metadata ? { task: task.metadata } : {}),
    },
    store: {},
    events: [],
    model_usage: usage === null ? {} : { [modelName(cell)]: modelUsage(usage, actorCost) },
    role_usage: {},
    attachments: {},
    started_at: Number.isFinite(start) ? iso(start) : null,
    completed_at: Number.isFinite(start) ? iso(start + t.durationMs) : null,
    total_time: t.durationMs / 1000,
    working_time: t.durationMs / 1000,
    ...(t.error
      ? {
          error: {
            message: `${t.error.stage} failed at attempt ${t.error.attempt}: ${t.error.message}`,
            traceback: '',
            traceback_ansi: '',
          },
        }
      : {}),
  }
}
