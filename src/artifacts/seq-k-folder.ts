/**
 * The paper's reference harness's run folder, both ways. A folder per cell (and repeat):
 * `<slice>/<metric>/<actor>/<verifier>/<feedback>/`, holding `config.json`, `summary.json` and per
 * task `task-<i>/` (1-based, in the cell's task order) with `task_meta.json`, `summary.json` and one
 * `attempt-<j>.json` per attempt: `task_id`, `task_index`, `metric` (`seq@k` / `pass@k`),
 * `feedback_mode`, `attempt_index`, and the `actor` {model, prompt, output, tokens}, `judge`
 * {model, success, score, raw_eval_output, details, calls} and `critic` {model, feedback, calls}
 * sections. What we write also carries our own records under `seqk` keys (the reference's readers
 * ignore them), so an exported run imports back to the same summary; a folder the reference
 * harness wrote is read from its own fields.
 */
import { z } from 'zod'
import { verdictScore, type ChatMessage, type ModelCall, type Usage } from '../core/contract.js'
import {
  TRAJECTORY_SCHEMA,
  TrajectorySchema,
  type Attempt,
  type CellSummary,
  type Protocol,
  type Trajectory,
} from '../core/schemas.js'
import { describeZodError } from '../core/zod-errors.js'
import { protocolFingerprint } from '../core/fingerprint.js'
import { bestScoreCurve } from '../metrics/score-curve.js'
import { defaultPromptBuilder } from '../protocol/prompt-builder.js'
import { referencePromptBuilder, referenceSuffix } from '../protocol/prompt-builders/reference.js'
import { benchmarkHashes } from '../protocol/fingerprint.js'
import { spend } from '../protocol/attempt.js'
import { CellStartRecordSchema, type CellEndRecord, type CellStartRecord } from './cells-file.js'
import { taskRecordKey, TaskRecordSchema, type TaskRecord } from './tasks-file.js'

/** A run folder that cannot be read: the message names the file, the field and the fix. */
export class SeqKFolderError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SeqKFolderError'
  }
}

/** A file of a run folder: its path under the folder's root and its JSON. */
export interface SeqKFile {
  path: string
  json: unknown
}

const Tokens = z.number().nonnegative().nullable().optional()

/** One call of a judge or critic, as the reference records it. */
const SeqKCallSchema = z
  .object({
    model: z.string().nullable().optional(),
    prompt: z.unknown().optional(),
    output: z.unknown().optional(),
    input_tokens: Tokens,
    cached_tokens: Tokens,
    thinking_tokens: Tokens,
    output_tokens: Tokens,
  })
  .loose()

/** One `attempt-<j>.json` (the fields the reference harness writes; others are kept, ignored). */
export const SeqKAttemptSchema = z
  .object({
    task_id: z.string({ message: 'expected the task id (a string)' }),
    task_index: z.number().int().min(1, 'task_index is 1-based'),
    metric: z.enum(['seq@k', 'pass@k'], { message: "metric must be 'seq@k' or 'pass@k'" }),
    feedback_mode: z.string().nullable().optional(),
    attempt_index: z.number().int().min(1, 'attempt_index is 1-based'),
    actor: z
      .object({
        model: z.string().nullable().optional(),
        prompt: z.unknown().optional(),
        output: z.string({ message: "expected the actor's output (a string)" }),
        input_tokens: Tokens,
        cached_tokens: Tokens,
        thinking_tokens: Tokens,
        output_tokens: Tokens,
        finish_reason: z.string().nullable().optional(),
      })
      .loose(),
    judge: z
      .object({
        model: z.string().nullable().optional(),
        success: z.boolean({ message: 'expected judge.success (true or false)' }),
        score: z.number({ message: 'expected judge.score (a number)' }),
        raw_eval_output: z.unknown().optional(),
        details: z.unknown().optional(),
        calls: z.array(SeqKCallSchema).default([]),
      })
      .loose(),
    critic: z
      .object({
        model: z.string().nullable().optional(),
        feedback: z.string().nullable().optional(),
        calls: z.array(SeqKCallSchema).default([]),
      })
      .loose()
      .default({ calls: [] }),
    /** Ours: the attempt exactly as our trajectory holds it (absent in a reference harness's folder). */
    seqk: z.object({ attempt: z.unknown() }).loose().optional(),
  })
  .loose()
export type SeqKAttempt = z.infer<typeof SeqKAttemptSchema>

/** A model id as a folder name, as the reference makes it: `/` becomes `__`. */
export function safeName(name: string): string {
  return name.replace(/\//g, '__')
}

/** The reference's name of a cell's metric. */
const metricOf = (p: Protocol) => (p.kind === 'sequential' ? 'seq@k' : 'pass@k')

/** The folder of one cell and repeat (repeats after the first get their own slice, `<slice>.repeat<r>`). */
export function seqKFolder(
  cell: Pick<CellSummary, 'benchmark' | 'actorId' | 'mode' | 'protocol'>,
  repeat: number,
): string {
  const slice = `${safeName(cell.benchmark)}${repeat === 0 ? '' : `.repeat${repeat}`}`
  const feedback = cell.protocol.kind === 'independent' ? 'none' : safeName(cell.mode)
  return [slice, metricOf(cell.protocol), safeName(cell.actorId), safeName(cell.protocol.verifier.name), feedback].join(
    '/',
  )
}

/** The model a helper role used, as the protocol's settings name it (null: none, or not a model). */
function helperModel(p: Protocol, role: 'grader' | 'critic'): string | null {
  const settings = role === 'grader' ? p.verifier.settings : (p.feedback?.settings ?? {})
  const value = role === 'grader' ? settings.grader : (settings.critic ?? settings.model)
  return typeof value === 'string' && value !== 'actor' ? value : null
}

const tokensOf = (usage: Usage | null) => ({
  input_tokens: usage?.inputTokens ?? null,
  cached_tokens: usage?.cacheReadTokens ?? null,
  thinking_tokens: 0,
  output_tokens: usage?.outputTokens ?? null,
})

/** A helper call as the reference records one: its prompt and output are not in our records. */
const callOf = (call: ModelCall, model: string | null) => ({
  model,
  prompt: null,
  output: null,
  ...tokensOf(call.usage),
})

/** The messages a chat prompt is, as one string (the reference's prompt is a string). */
function promptText(messages: readonly ChatMessage[]): string {
  if (messages.length === 1 && messages[0]!.role === 'user') return messages[0]!.content
  return messages.map((m) => `${m.role}:\n${m.content}`).join('\n\n')
}

/**
 * The prompt of each attempt of a trajectory, rebuilt from the task's first prompt and the
 * protocol's prompt builder (the reference layout, or the default builder with `full` history);
 * null where it cannot be rebuilt (no task record, another builder or history).
 */
function promptsOf(t: Trajectory, task: TaskRecord | undefined): (string | null)[] {
  const p = t.protocol
  if (!task) return t.attempts.map(() => null)
  if (p.kind === 'independent') return t.attempts.map(() => promptText(task.messages))
  if (p.promptBuilder === referencePromptBuilder.version) {
    const past: { answer: string; feedback: string | null }[] = []
    return t.attempts.map((a) => {
      const messages = task.messages.map((m) => ({ ...m }))
      const last = messages.at(-1)!
      last.content = `${last.content}\n\n${referenceSuffix(a.index, p.budget, past)}`
      past.push({ answer: a.answer, feedback: a.feedback?.text ?? null })
      return promptText(messages)
    })
  }
  if (p.promptBuilder !== defaultPromptBuilder.version || p.history?.name !== 'full') return t.attempts.map(() => null)
  const chat = task.messages.map((m) => ({ ...m }))
  return t.attempts.map((a) => {
    const text = promptText(chat)
    chat.push({ role: 'assistant', content: a.answer })
    if (a.feedback)
      chat.push({
        role: 'user',
        content: defaultPromptBuilder.revision(
          { kind: a.feedback.kind, text: a.feedback.text },
          { attempt: a.index, budget: p.budget, discloseBudget: p.budgetDisclosed },
        ),
      })
    return text
  })
}

/** Token totals by model over attempts, as the reference's summaries keep them. */
function tokensByModel(attempts: readonly SeqKAttempt[]): Record<string, Record<string, number | null>> {
  const out: Record<string, Record<string, number | null>> = {}
  const add = (model: string | null | undefined, src: Record<string, unknown>) => {
    const bucket = (out[model ?? 'unknown'] ??= {
      input_tokens: 0,
      cached_tokens: 0,
      thinking_tokens: 0,
      output_tokens: 0,
    })
    for (const key of ['input_tokens', 'cached_tokens', 'thinking_tokens', 'output_tokens']) {
      const v = src[key]
      bucket[key] = bucket[key] === null || typeof v !== 'number' ? null : bucket[key]! + v
    }
  }
  for (const a of attempts) {
    add(a.actor.model, a.actor)
    for (const c of a.judge.calls) add(c.model, c)
    for (const c of a.critic.calls) add(c.model, c)
  }
  return out
}

/**
 * The reference's run summary of one folder: metric@k (the mean over tasks of the best score by
 * attempt k), its standard error over tasks (Bessel), ΔSeq@K, EGS and LGS, and token totals.
 */
function runSummary(
  folder: { metric: string; model: string; feedback: string | null; k: number },
  tasks: readonly SeqKAttempt[][],
): Record<string, unknown> {
  const label = folder.metric === 'seq@k' ? 'seq' : 'pass'
  const curves = tasks.map((attempts) =>
    bestScoreCurve(
      attempts.map((a) => clampScore(a.judge.score)),
      folder.k,
    ),
  )
  const n = curves.length
  const at = Array.from({ length: folder.k }, (_, i) => (n === 0 ? 0 : curves.reduce((s, c) => s + c[i]!, 0) / n))
  const summary: Record<string, unknown> = {
    metric: folder.metric,
    model: folder.model,
    feedback_mode: folder.feedback,
    tasks: n,
    k: folder.k,
  }
  at.forEach((v, i) => (summary[`${label}@${i + 1}`] = round(v, 4)))
  summary.se = Object.fromEntries(
    at.map((mean, i) => {
      const variance = n > 1 ? curves.reduce((s, c) => s + (c[i]! - mean) ** 2, 0) / (n - 1) : 0
      return [`${label}@${i + 1}`, round(n > 1 ? Math.sqrt(variance / n) : 0, 4)]
    }),
  )
  if (folder.metric === 'seq@k' && folder.k >= 2) {
    const delta = at[folder.k - 1]! - at[0]!
    summary.delta = round(delta, 4)
    if (delta > 0) {
      summary.EGS = round((at[1]! - at[0]!) / delta, 3)
      summary.LGS = round((at[folder.k - 1]! - at[folder.k - 2]!) / delta, 3)
    }
  }
  summary.tokens = tokensByModel(tasks.flat())
  return summary
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits
const clampScore = (x: number) => Math.min(1, Math.max(0, x))

/**
 * A run's cells as the reference harness's run folders (pure): the files to write, by path under
 * the export's root. `cells` are the run's declarations (cells.jsonl), `tasks` its first prompts
 * (tasks.jsonl, by `benchmark\u0000taskId`); a repeat of a cell is a folder of its own.
 *
 * @example
 * for (const { path, json } of seqKFiles({ cells, trajectories, tasks })) writeJson(join(out, path), json)
 */
export function seqKFiles(input: {
  cells: readonly { start: CellStartRecord; summary: CellSummary }[]
  trajectories: readonly Trajectory[]
  tasks: ReadonlyMap<string, TaskRecord>
}): SeqKFile[] {
  const files: SeqKFile[] = []
  for (const [order, { start, summary }] of input.cells.entries()) {
    const p = start.protocol
    const mine = input.trajectories.filter(
      (t) => t.benchmark === start.benchmark && t.cellId === start.cellId && t.fingerprint === start.fingerprint,
    )
    const grader = helperModel(p, 'grader')
    const critic = helperModel(p, 'critic')
    const model = `${p.actor.provider}:${p.actor.model}`
    const feedbackMode = p.kind === 'independent' ? null : start.mode
    for (let repeat = 0; repeat < start.repeats; repeat++) {
      const root = seqKFolder(summary, repeat)
      const written: SeqKAttempt[][] = []
      start.taskIds.forEach((taskId, i) => {
        const t = mine.find((x) => x.taskId === taskId && x.repeat === repeat)
        if (!t) return
        const taskIndex = i + 1
        const dir = `${root}/task-${taskIndex}`
        const task = input.tasks.get(taskRecordKey(start.benchmark, taskId))
        const prompts = promptsOf(t, task)
        const attempts = t.attempts.map((a, j): SeqKAttempt => ({
          task_id: taskId,
          task_index: taskIndex,
          metric: metricOf(p),
          feedback_mode: feedbackMode,
          attempt_index: a.index,
          actor: {
            model,
            prompt: prompts[j] ?? null,
            output: a.answer,
            ...tokensOf(a.usage),
            finish_reason: a.finishReason,
          },
          judge: {
            model: grader,
            success: a.verdict.pass,
            score: verdictScore(a.verdict),
            raw_eval_output: a.verdict.pass ? '' : a.verdict.diagnostics.summary,
            details: {
              outcome: a.verdict.diagnostics.outcome,
              ...(a.verdict.diagnostics.tests ? { tests: a.verdict.diagnostics.tests } : {}),
              ...(a.verdict.criteria ? { criteria: a.verdict.criteria } : {}),
            },
            calls: a.helperCalls.filter((c) => c.role === 'grader').map((c) => callOf(c, grader)),
          },
          critic: {
            model: a.feedback?.kind === 'critic' ? critic : null,
            feedback: a.feedback?.text ?? null,
            calls: a.helperCalls.filter((c) => c.role === 'critic').map((c) => callOf(c, critic)),
          },
          seqk: { attempt: a },
        }))
        written.push(attempts)
        const { attempts: _a, ...header } = t
        files.push({
          path: `${dir}/task_meta.json`,
          json: {
            task_id: taskId,
            task_index: taskIndex,
            prompt: task ? promptText(task.messages) : null,
            ...(task ? { seqk: { task } } : {}),
          },
        })
        for (const a of attempts) files.push({ path: `${dir}/attempt-${a.attempt_index}.json`, json: a })
        files.push({
          path: `${dir}/summary.json`,
          json: {
            task_id: taskId,
            task_index: taskIndex,
            success: attempts.some((a) => a.judge.success),
            best_score: Math.max(0, ...attempts.map((a) => a.judge.score)),
            attempts: attempts.map((a) => ({
              attempt: a.attempt_index,
              success: a.judge.success,
              score: a.judge.score,
            })),
            tokens: tokensByModel(attempts),
            seqk: { trajectory: header },
          },
        })
      })
      files.push({
        path: `${root}/config.json`,
        json: {
          benchmark: start.benchmark,
          metric: metricOf(p),
          k: p.budget,
          feedback_mode: feedbackMode,
          model,
          judge_model: grader,
          critic_model: critic,
          // Ours: the cell's declaration and its place in the run, so an import gives the same summary.
          seqk: { cell: start, repeat, order },
        },
      })
      files.push({
        path: `${root}/summary.json`,
        json: runSummary({ metric: metricOf(p), model, feedback: feedbackMode, k: p.budget }, written),
      })
    }
  }
  return files
}

/** One run folder as read: its path, its config (when it has one) and its tasks' attempts by task index. */
export interface SeqKRunFolder {
  /** The folder, relative to the import's root (`<slice>/<metric>/<actor>/<verifier>/<feedback>`). */
  path: string
  config: Record<string, unknown> | null
  /** Task index → its attempts, by attempt index; and the task's own summary.json and task_meta.json. */
  tasks: Map<
    number,
    { attempts: SeqKAttempt[]; summary: Record<string, unknown> | null; meta: Record<string, unknown> | null }
  >
}

/** Parses one attempt file, naming the file and the field when it does not read. */
export function parseSeqKAttempt(json: unknown, where: string): SeqKAttempt {
  const parsed = SeqKAttemptSchema.safeParse(json, { reportInput: true })
  if (!parsed.success) throw new SeqKFolderError(`${where} is not a seq_k attempt: ${describeZodError(parsed.error)}`)
  return parsed.data
}

/** The budget a sequential prompt discloses ("This is attempt t of K."), or null when it does not. */
export function disclosedBudget(prompt: unknown): number | null {
  if (typeof prompt !== 'string') return null
  const m = /This is attempt \d+ of (\d+)\./.exec(prompt)
  return m ? Number(m[1]) : null
}

/** How a reference feedback mode's text reads, as one of our feedback kinds. */
function feedbackKind(mode: string, criticModel: string | null | undefined): 'binary' | 'verifier' | 'critic' {
  if (mode === 'binary') return 'binary'
  return criticModel ? 'critic' : 'verifier'
}

const usageOf = (src: Record<string, unknown>): Usage | null => {
  const n = (v: unknown) => (typeof v === 'number' && v >= 0 ? Math.round(v) : null)
  const input = n(src.input_tokens)
  const output = n(src.output_tokens)
  if (input === null || output === null) return null
  return { inputTokens: input, outputTokens: output, cacheReadTokens: n(src.cached_tokens) ?? 0, cacheWriteTokens: 0 }
}

const helperCall = (role: 'grader' | 'critic', c: z.infer<typeof SeqKCallSchema>): ModelCall => ({
  role,
  usage: usageOf(c),
  latencyMs: 0,
  costUsd: null,
  costUsdWithoutCache: null,
  replayed: false,
})

/** The cells and trajectories of run folders, with their tasks' first prompts (see {@link importSeqKFolders}). */
export interface ImportedRun {
  cells: { start: CellStartRecord; end: CellEndRecord }[]
  trajectories: Trajectory[]
  tasks: TaskRecord[]
}

/** `<slice>` without the `.repeat<r>` of a repeat's folder, and the repeat. */
function sliceRepeat(path: string): { key: string; repeat: number } {
  const [slice, ...rest] = path.split('/')
  const m = /^(.*)\.repeat(\d+)$/.exec(slice!)
  return m ? { key: [m[1], ...rest].join('/'), repeat: Number(m[2]) } : { key: path, repeat: 0 }
}

/**
 * Run folders as our cells and trajectories, under `runId` (pure). Folders we exported come back
 * exactly (their `seqk` records); a reference harness's are read from its own fields: the actor's
 * output is the answer, `judge.success` and `judge.score` the verdict (the score clamped to
 * [0, 1]), `critic.feedback` the feedback; the budget is `config.json`'s `k`, else the one its
 * prompts disclose, else the most attempts seen; a prompt that says "This is attempt t of K."
 * marks the budget disclosed (and the reference layout, when it is exactly that). A task short of
 * K attempts and unsolved did not finish: it enters as an errored trajectory (censored).
 *
 * @throws SeqKFolderError naming the folder and what is wrong.
 */
export function importSeqKFolders(folders: readonly SeqKRunFolder[], runId: string, file: string): ImportedRun {
  const groups = new Map<string, { folder: SeqKRunFolder; repeat: number }[]>()
  for (const folder of folders) {
    const { key, repeat } = sliceRepeat(folder.path)
    groups.set(key, [...(groups.get(key) ?? []), { folder, repeat }])
  }
  const out: ImportedRun = { cells: [], trajectories: [], tasks: [] }
  // Our own folders in the order the run declared its cells; a reference harness's in path order.
  const orderOf = (members: { folder: SeqKRunFolder }[]) => {
    const order = (members[0]!.folder.config?.seqk as { order?: unknown } | undefined)?.order
    return typeof order === 'number' ? order : Number.POSITIVE_INFINITY
  }
  const sorted = [...groups].sort(([, a], [, b]) => {
    const [x, y] = [orderOf(a), orderOf(b)]
    return x === y ? 0 : x < y ? -1 : 1
  })
  for (const [key, members] of sorted) {
    const ours = members.map((m) => m.folder.config?.seqk as { cell?: unknown } | undefined)
    const cell = ours.every((s) => s?.cell !== undefined)
      ? importOurs(members, runId, key)
      : importReference(members, runId, file, key)
    out.cells.push({ start: cell.start, end: cell.end })
    out.trajectories.push(...cell.trajectories)
    out.tasks.push(...cell.tasks)
  }
  return out
}

function endRecord(start: CellStartRecord): CellEndRecord {
  return {
    schema: 'seqk.cell/1',
    type: 'end',
    runId: start.runId,
    benchmark: start.benchmark,
    cellId: start.cellId,
    durationMs: 0,
  }
}

/** Our own export, back as it was (under the import's run id). */
function importOurs(
  members: { folder: SeqKRunFolder; repeat: number }[],
  runId: string,
  key: string,
): ImportedRun['cells'][number] & { trajectories: Trajectory[]; tasks: TaskRecord[] } {
  const parsed = CellStartRecordSchema.safeParse((members[0]!.folder.config!.seqk as { cell: unknown }).cell)
  if (!parsed.success)
    throw new SeqKFolderError(`${key}/config.json: seqk.cell is not a cell record: ${describeZodError(parsed.error)}`)
  const start: CellStartRecord = { ...parsed.data, runId }
  const trajectories: Trajectory[] = []
  for (const { folder } of members) {
    for (const [index, task] of folder.tasks) {
      const where = `${folder.path}/task-${index}`
      const header = (task.summary?.seqk as { trajectory?: unknown } | undefined)?.trajectory
      const t = TrajectorySchema.safeParse({
        ...(header as object),
        runId,
        attempts: task.attempts.map((a) => a.seqk?.attempt),
      })
      if (!t.success)
        throw new SeqKFolderError(
          `${where}: its seqk records do not read as a trajectory: ${describeZodError(t.error)}`,
        )
      trajectories.push(t.data)
    }
  }
  const tasks = new Map<string, TaskRecord>()
  for (const { folder } of members)
    for (const task of folder.tasks.values()) {
      const record = TaskRecordSchema.safeParse((task.meta?.seqk as { task?: unknown } | undefined)?.task)
      if (record.success) tasks.set(taskRecordKey(record.data.benchmark, record.data.taskId), record.data)
    }
  return { start, end: endRecord(start), trajectories, tasks: [...tasks.values()] }
}

/** A reference harness's folders (one per repeat) as one cell. */
function importReference(
  members: { folder: SeqKRunFolder; repeat: number }[],
  runId: string,
  file: string,
  key: string,
): ImportedRun['cells'][number] & { trajectories: Trajectory[]; tasks: TaskRecord[] } {
  const [slice, , actor, verifier, feedbackFolder] = key.split('/')
  if (feedbackFolder === undefined)
    throw new SeqKFolderError(
      `${key}: a run folder is <slice>/<metric>/<actor>/<verifier>/<feedback>/task-<i>/attempt-<j>.json`,
    )
  const all = members.flatMap((m) => [...m.folder.tasks.values()].flatMap((t) => t.attempts))
  const first = all[0]
  if (!first) throw new SeqKFolderError(`${key}: no attempt file`)
  const kinds = new Set(all.map((a) => a.metric))
  if (kinds.size > 1) throw new SeqKFolderError(`${key}: attempts of both pass@k and seq@k in one folder`)
  const sequential = first.metric === 'seq@k'
  const config = members[0]!.folder.config ?? {}
  const disclosed = sequential ? disclosedBudget(first.actor.prompt) : null
  const mostAttempts = Math.max(...all.map((a) => a.attempt_index))
  const budget = typeof config.k === 'number' ? config.k : (disclosed ?? mostAttempts)
  if (!(Number.isInteger(budget) && budget >= 1 && budget >= mostAttempts))
    throw new SeqKFolderError(`${key}: budget ${String(budget)} is below the ${mostAttempts} attempts a task has`)
  // Every task of the cell, by its id, in task-index order (the reference's canonical order).
  const byIndex = new Map<number, { id: string; prompt: unknown }>()
  for (const m of members)
    for (const [index, t] of m.folder.tasks) {
      const id = t.attempts[0]?.task_id ?? (t.meta?.task_id as string | undefined)
      if (!id) continue
      const known = byIndex.get(index)
      if (known && known.id !== id)
        throw new SeqKFolderError(`${key}: task-${index} is ${known.id} in one repeat and ${id} in another`)
      byIndex.set(index, { id, prompt: t.meta?.prompt ?? null })
    }
  const order = [...byIndex].sort(([a], [b]) => a - b)
  const tasks = order.map(([, t]) => ({
    id: t.id,
    prompt:
      typeof t.prompt === 'string' && t.prompt !== ''
        ? t.prompt
        : `(task ${t.id}: its prompt is not in the run folder)`,
  }))
  const hashes = benchmarkHashes(tasks)
  const layout = sequential && referenceLayout(first)
  const feedbackMode = first.feedback_mode ?? (sequential ? feedbackFolder : null)
  const criticModel = all.find((a) => a.critic.model)?.critic.model ?? null
  const graderModel = all.find((a) => a.judge.model)?.judge.model ?? null
  const protocol: Protocol = {
    schema: 'seqk.protocol/1',
    kind: sequential ? 'sequential' : 'independent',
    benchmark: { name: slice!, tasks: tasks.length, contentHash: hashes.benchmark },
    verifier: { name: verifier!, version: 'seq_k', settings: { grader: graderModel } },
    feedback: sequential
      ? {
          kind: feedbackKind(feedbackMode ?? 'raw', criticModel),
          name: feedbackMode ?? 'raw',
          version: 'seq_k',
          settings: { critic: criticModel },
        }
      : null,
    history: sequential ? { name: 'full', settings: {} } : null,
    promptBuilder: sequential ? (layout ? referencePromptBuilder.version : 'seq_k/unknown') : 'seq_k/bare',
    actor: { provider: 'seq_k', model: first.actor.model ?? actor!, params: {} },
    budget,
    budgetDisclosed: disclosed !== null,
    errorsCountedAsFailures: false,
    errors: 'censored',
  }
  const fingerprint = protocolFingerprint(protocol)
  const mode = sequential ? (feedbackMode ?? 'raw') : 'independent'
  const cellId = `${actor!} · ${mode}`
  const repeats = Math.max(...members.map((m) => m.repeat)) + 1
  const start: CellStartRecord = {
    schema: 'seqk.cell/1',
    type: 'start',
    runId,
    benchmark: slice!,
    cellId,
    actorId: actor!,
    mode,
    protocol,
    fingerprint,
    taskIds: tasks.map((t) => t.id),
    taskHashes: hashes.tasks,
    repeats,
    thresholds: {},
    errors: 'censored',
    file,
    baseline: null,
  }
  const trajectories: Trajectory[] = []
  for (const m of members)
    for (const [index, task] of m.folder.tasks) {
      const attempts = [...task.attempts].sort((a, b) => a.attempt_index - b.attempt_index)
      if (attempts.length === 0) continue
      const where = `${m.folder.path}/task-${index}`
      attempts.forEach((a, j) => {
        if (a.attempt_index !== j + 1) throw new SeqKFolderError(`${where}: attempt-${j + 1}.json is missing`)
      })
      trajectories.push(referenceTrajectory({ start, protocol, attempts, repeat: m.repeat, sequential }))
    }
  const taskRecords: TaskRecord[] = tasks.map((t) => ({
    schema: 'seqk.task/1',
    benchmark: slice!,
    taskId: t.id,
    contentHash: hashes.tasks[t.id]!,
    messages: [{ role: 'user', content: t.prompt }],
    promptBuilder: protocol.promptBuilder,
  }))
  return { start, end: endRecord(start), trajectories, tasks: taskRecords }
}

/** Whether attempt 1's prompt is exactly the reference layout's (the task, then the attempt note). */
function referenceLayout(first: SeqKAttempt): boolean {
  const prompt = first.actor.prompt
  const k = disclosedBudget(prompt)
  return typeof prompt === 'string' && k !== null && prompt.endsWith(`\n\n${referenceSuffix(1, k, [])}`)
}

function referenceTrajectory(input: {
  start: CellStartRecord
  protocol: Protocol
  attempts: SeqKAttempt[]
  repeat: number
  sequential: boolean
}): Trajectory {
  const { start, protocol, attempts, repeat, sequential } = input
  const K = protocol.budget
  const kind = protocol.feedback?.kind ?? 'binary'
  const ours: Attempt[] = attempts.map((a, j) => {
    const pass = a.judge.success
    const raw = typeof a.judge.raw_eval_output === 'string' ? a.judge.raw_eval_output : ''
    return {
      index: a.attempt_index,
      answer: a.actor.output,
      verdict: {
        pass,
        score: clampScore(a.judge.score),
        diagnostics: { outcome: pass ? 'passed' : 'failed', summary: raw.split('\n', 1)[0] ?? '' },
      },
      feedback: sequential && !pass && a.critic.feedback ? { kind, text: a.critic.feedback } : null,
      finishReason: 'stop',
      usage: usageOf(a.actor),
      latencyMs: 0,
      costUsd: null,
      costUsdWithoutCache: null,
      replayed: false,
      helperCalls: [
        ...a.judge.calls.map((c) => helperCall('grader', c)),
        ...a.critic.calls.map((c) => helperCall('critic', c)),
      ],
      unmodified: !sequential || j === 0 ? null : attempts[j - 1]!.actor.output.trim() === a.actor.output.trim(),
    }
  })
  const firstPass = ours.find((a) => a.verdict.pass)?.index ?? null
  const spent = spend(ours)
  // Unsolved and short of K attempts: the reference run stopped before this task ended.
  const unfinished = firstPass === null ? ours.length < K : !sequential && ours.length < K
  return {
    schema: TRAJECTORY_SCHEMA,
    runId: start.runId,
    benchmark: start.benchmark,
    cellId: start.cellId,
    actorId: start.actorId,
    mode: start.mode,
    fingerprint: start.fingerprint,
    protocol,
    taskId: attempts[0]!.task_id,
    repeat,
    status: unfinished ? 'error' : firstPass !== null ? 'solved' : 'failed',
    firstSuccess: unfinished ? null : firstPass,
    error: unfinished
      ? {
          stage: 'actor',
          attempt: ours.length + 1,
          message: `the run folder holds ${ours.length} of ${K} attempts: the reference run did not finish this task`,
        }
      : null,
    attempts: ours,
    usage: spent.usage,
    ...(spent.usageUnknownCalls > 0 ? { usageUnknownCalls: spent.usageUnknownCalls } : {}),
    // The reference keeps tokens, not prices: the cost is unknown here, never 0.
    costUsd: null,
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
  }
}
