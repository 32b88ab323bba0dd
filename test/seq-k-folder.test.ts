// Runs that move both ways between this project and the paper's reference harness (its run
// folder: <slice>/<metric>/<actor>/<verifier>/<feedback>/task-<i>/attempt-<j>.json).
//
// 1. A run with rubric (soft scores), code (real Python) and ARC-AGI-2 cells, exported with
//    `seqk export --format seq_k` and imported with `seqk import seq_k`, gives the same summary.
// 2. Run folders written here by hand in the reference layout (from its documented fields, not by
//    our exporter), with rubric, code and ARC-AGI-2 cells, import into a run whose score curve,
//    Seq@k and Pass@k equal an independent computation of the reference's definitions: metric@k
//    is the mean over tasks of the best judge score among attempts 1..k (a success curve when the
//    score is 1 or 0), and Pass@k the unbiased 1 − C(n−c, k)/C(n, k).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rubricTasks } from '../fixtures/rubric-tasks.js'
import { tasks as codeTasks } from '../fixtures/code-tasks.js'
import { arcTasks } from '../fixtures/arc-tasks.js'
import { feedback } from '../src/feedback/index.js'
import { actors } from '../src/models/index.js'
import { cellProtocol, runCell } from '../src/protocol/cell.js'
import { benchmarkHashes } from '../src/protocol/fingerprint.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'
import { rubricRules, startTestServer, testServerModel, type TestServer } from '../src/testing/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { arcGridVerifier } from '../src/verifiers/arc-grid.js'
import { resolveOptions, type SeqEvalOptions } from '../src/vitest/options.js'
import { planCells } from '../src/vitest/seq-eval.js'
import { appendCellRecord, CELLS_FILE, type CellStartRecord } from '../src/artifacts/cells-file.js'
import { appendTrajectory } from '../src/artifacts/trajectories-file.js'
import { appendTaskRecords, TASKS_FILE } from '../src/artifacts/tasks-file.js'
import { runCli } from '../src/cli/run.js'
import type { SeqKAttempt } from '../src/artifacts/seq-k-folder.js'
import { RunSummarySchema, type CellSummary, type RunSummary } from '../src/core/schemas.js'
import { createRng } from '../src/metrics/random.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-seq_k-'))
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ responder: rubricRules() })
})
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const code = await runCli(args, {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    isTTY: false,
    env: {},
    cwd: tmp,
  })
  return { code, out }
}

/** A run directory as the reporter leaves it, from cells run here: its files and summary.json. */
async function runDirectory(dir: string, evals: [string, SeqEvalOptions][]): Promise<RunSummary> {
  mkdirSync(dir, { recursive: true })
  appendFileSync(join(dir, 'trajectories.jsonl'), '')
  const cells: { start: CellStartRecord; end: undefined }[] = []
  for (const [name, options] of evals) {
    for (const plan of planCells(name, resolveOptions(name, options))) {
      const { trajectories } = await runCell({ ...plan, runId: 'original', concurrency: 4 })
      const protocol = cellProtocol(plan)
      const hashes = benchmarkHashes(plan.tasks)
      const start: CellStartRecord = {
        schema: 'seqk.cell/1',
        type: 'start',
        runId: 'original',
        benchmark: name,
        cellId: plan.cellId,
        actorId: plan.actor.id,
        mode: plan.mode?.name ?? 'independent',
        protocol,
        fingerprint: protocolFingerprint(protocol),
        taskIds: plan.tasks.map((t) => t.id),
        taskHashes: hashes.tasks,
        repeats: plan.repeats,
        thresholds: plan.thresholds,
        errors: plan.errors,
        file: `evals/${name}.eval.ts`,
        baseline: null,
      }
      appendCellRecord(join(dir, CELLS_FILE), start)
      appendCellRecord(join(dir, CELLS_FILE), {
        schema: 'seqk.cell/1',
        type: 'end',
        runId: 'original',
        benchmark: name,
        cellId: plan.cellId,
        durationMs: 1,
      })
      cells.push({ start, end: undefined })
      for (const t of trajectories) appendTrajectory(join(dir, 'trajectories.jsonl'), t)
      appendTaskRecords(
        join(dir, TASKS_FILE),
        plan.tasks.map((task) => ({
          schema: 'seqk.task/1',
          benchmark: name,
          taskId: task.id,
          contentHash: hashes.tasks[task.id]!,
          messages: plan.promptBuilder.initial(task, { budget: plan.budget, discloseBudget: plan.discloseBudget }),
          promptBuilder: plan.promptBuilder.version,
        })),
      )
    }
  }
  const { code, out } = await cli(['summarize', dir])
  expect(code, out).toBe(0)
  return RunSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')))
}

/** A summary with the fields an import may change (its run id, times) set aside. */
function comparable(summary: RunSummary) {
  return summary.benchmarks.map((b) => ({
    name: b.name,
    file: b.file,
    cells: b.cells.map(({ runId: _r, durationMs: _d, ...cell }) => cell),
  }))
}

describe('export to the reference run folder and import back', () => {
  it('gives the same summary for rubric, code and ARC-AGI-2 cells, and writes the reference layout', async () => {
    const grader = testServerModel(server, { model: 'rule-grader' })
    const critic = testServerModel(server, { model: 'rule-critic' })
    const reviser = actors.simulated({ profile: 'reviser' })
    const original = join(tmp, 'original')
    const summary = await runDirectory(original, [
      [
        'rubric',
        {
          tasks: rubricTasks,
          actors: [reviser],
          verifier: verifiers.rubric({ grader, passRule: 'all' }),
          budget: 4,
          repeats: 2,
          independent: true,
          modes: {
            'critic-aware': { feedback: feedback.critic({ model: critic, rubric: 'aware', style: 'directive' }) },
            binary: { feedback: feedback.binary() },
          },
        },
      ],
      [
        'code',
        {
          tasks: codeTasks.slice(0, 3),
          actors: [reviser],
          verifier: verifiers.pythonTests(),
          budget: 3,
          independent: true,
          modes: { verifier: { feedback: feedback.verifier() } },
        },
      ],
      [
        'arc',
        {
          tasks: arcTasks,
          actors: [reviser],
          verifier: arcGridVerifier(),
          budget: 4,
          protocol: 'seq_k-reference',
          independent: true,
          modes: { cell_match: { feedback: feedback.cellMatch() } },
        },
      ],
    ])
    const out = join(tmp, 'seq_k')
    const exported = await cli(['export', original, '--format', 'seq_k', '--out', out])
    expect(exported.code, exported.out).toBe(0)
    expect(exported.out).toContain('7 cells as 10 seq_k run folders')
    // The reference layout, with a repeat's own slice.
    const folder = join(out, 'rubric/seq@k/simulated:reviser/rubric/critic-aware')
    const attempt = JSON.parse(readFileSync(join(folder, 'task-1/attempt-1.json'), 'utf8')) as SeqKAttempt
    expect(Object.keys(attempt).slice(0, 8)).toEqual([
      'task_id',
      'task_index',
      'metric',
      'feedback_mode',
      'attempt_index',
      'actor',
      'judge',
      'critic',
    ])
    expect(attempt).toMatchObject({
      task_id: rubricTasks[0]!.id,
      task_index: 1,
      metric: 'seq@k',
      feedback_mode: 'critic-aware',
    })
    expect(Object.keys(attempt.actor)).toEqual(
      expect.arrayContaining(['model', 'prompt', 'output', 'input_tokens', 'output_tokens']),
    )
    expect(attempt.judge.model).toBe('seqk-test-server:rule-grader')
    expect(
      existsSync(join(out, 'rubric.repeat1/seq@k/simulated:reviser/rubric/critic-aware/task-1/attempt-1.json')),
    ).toBe(true)
    expect(existsSync(join(out, 'code/pass@k/simulated:reviser/python-tests/none/task-3/attempt-3.json'))).toBe(true)
    // The ARC cells ran under the reference preset: attempt 2's prompt is the reference layout, rebuilt.
    const arcFailed = summary.benchmarks[2]!.cells[0]!.perTask.findIndex((p) => p.firstSuccess[0] !== 1)
    const arc2 = JSON.parse(
      readFileSync(
        join(out, `arc/seq@k/simulated:reviser/arc-grid/cell_match/task-${arcFailed + 1}/attempt-2.json`),
        'utf8',
      ),
    ) as SeqKAttempt
    expect(arc2.actor.prompt).toMatch(
      /\n\nThis is attempt 2 of 4\. Review your previous attempt\(s\) and the feedback below, then provide an improved answer\.\n\n<PreviousAttempt 1>\n/,
    )
    // The folder's own summary.json is the reference's metric@k: our score curve (one repeat).
    const refSummary = JSON.parse(
      readFileSync(join(out, 'code/seq@k/simulated:reviser/python-tests/verifier/summary.json'), 'utf8'),
    )
    const codeCell = summary.benchmarks[1]!.cells[0]!
    codeCell.score!.at.forEach((v, i) => expect(refSummary[`seq@${i + 1}`]).toBeCloseTo(v!, 4))

    const back = join(tmp, 'back')
    const imported = await cli(['import', 'seq_k', out, '--out', back])
    expect(imported.code, imported.out).toBe(0)
    expect(imported.out).toContain('10 run folders as 7 cells')
    const again = RunSummarySchema.parse(JSON.parse(readFileSync(join(back, 'summary.json'), 'utf8')))
    expect(comparable(again)).toEqual(comparable(summary))
    expect(existsSync(join(back, 'report.html'))).toBe(true)
    // The imported run is a run like any: seqk analyze and seqk summarize read it.
    const analyzed = await cli(['analyze', back])
    expect(analyzed.code, analyzed.out).toBe(0)
    expect(analyzed.out).toContain('simulated:reviser')
    const summarized = await cli(['summarize', back, '--out', join(tmp, 'back-again.json')])
    expect(summarized.code, summarized.out).toBe(0)
  }, 120_000)
})

// ---- 2. Run folders written by hand, from the reference's documented fields ------------------

/** One task's judged attempts: each a score in [0, 1] and whether it succeeded. */
type Judged = { score: number; success: boolean }[]

/** Writes one reference run folder, as its harness would: a file per attempt, a prompt with its note. */
function writeReferenceFolder(root: string, path: string, metric: 'seq@k' | 'pass@k', k: number, tasks: Judged[]) {
  tasks.forEach((attempts, i) => {
    const task = `task-${i + 1}`
    writeFileSync(
      join(mkdirs(join(root, path, task)), 'task_meta.json'),
      JSON.stringify({ task_id: `${path.split('/')[0]}-${i}`, task_index: i + 1, prompt: `Task ${i}.` }),
    )
    attempts.forEach((a, j) => {
      const note =
        j === 0
          ? ' If this attempt does not pass, you will receive feedback and can revise it on the remaining attempts.'
          : ' Review your previous attempt(s) and the feedback below, then provide an improved answer.'
      const file = {
        task_id: `${path.split('/')[0]}-${i}`,
        task_index: i + 1,
        metric,
        feedback_mode: metric === 'seq@k' ? path.split('/')[4] : null,
        attempt_index: j + 1,
        actor: {
          model: 'some/model',
          prompt: metric === 'seq@k' ? `Task ${i}.\n\nThis is attempt ${j + 1} of ${k}.${note}` : `Task ${i}.`,
          output: `answer ${i}.${j}`,
          input_tokens: 100,
          cached_tokens: 0,
          thinking_tokens: 0,
          output_tokens: 20,
        },
        judge: {
          model: null,
          success: a.success,
          score: a.score,
          raw_eval_output: a.success ? '' : 'not yet',
          details: {},
          calls: [],
        },
        critic: { model: null, feedback: metric === 'seq@k' && !a.success ? 'not yet' : null, calls: [] },
      }
      writeFileSync(join(root, path, task, `attempt-${j + 1}.json`), JSON.stringify(file))
    })
  })
  writeFileSync(join(root, path, 'config.json'), JSON.stringify({ metric, k }))
}

function mkdirs(dir: string): string {
  mkdirSync(dir, { recursive: true })
  return dir
}

/** The reference's metric@k, written out from its definition: mean over tasks of the best score by attempt k. */
function referenceMetricAt(tasks: readonly Judged[], k: number): number {
  return (
    tasks.reduce((sum, attempts) => sum + Math.max(0, ...attempts.slice(0, k).map((a) => a.score)), 0) / tasks.length
  )
}

/** Unbiased Pass@k from n samples with c passing (DESIGN §2): 1 − C(n−c, k)/C(n, k). */
function unbiasedPassAt(n: number, c: number, k: number): number {
  const choose = (a: number, b: number): number => (b < 0 || b > a ? 0 : b === 0 ? 1 : (choose(a - 1, b - 1) * a) / b)
  return 1 - choose(n - c, k) / choose(n, k)
}

/** Seeded trajectories: sequential ones stop at their first success; independent ones draw all K. */
function simulate(seed: number, tasks: number, k: number, sequential: boolean, soft: boolean): Judged[] {
  const rng = createRng(seed)
  return Array.from({ length: tasks }, () => {
    const out: Judged = []
    const skill = rng()
    for (let j = 0; j < k; j++) {
      const success = rng() < skill * (sequential ? 0.6 + 0.1 * j : 0.6)
      const score = success ? 1 : soft ? Math.round(rng() * skill * 100) / 100 : 0
      out.push({ score, success })
      if (success && sequential) break
    }
    return out
  })
}

describe('importing run folders written in the reference layout', () => {
  const K = 5
  const root = join(tmp, 'reference')
  const folders = {
    'rubric/seq@k/some__model/researchrubrics/critic': simulate(1, 24, K, true, true),
    'rubric/pass@k/some__model/researchrubrics/none': simulate(2, 24, K, false, true),
    'code/seq@k/some__model/python/raw': simulate(3, 30, K, true, false),
    'code/pass@k/some__model/python/none': simulate(4, 30, K, false, false),
    'arc/seq@k/some__model/deterministic/cell_match': simulate(5, 20, K, true, false),
    'arc/pass@k/some__model/deterministic/none': simulate(6, 20, K, false, false),
  }
  let summary: RunSummary

  beforeAll(async () => {
    for (const [path, tasks] of Object.entries(folders))
      writeReferenceFolder(root, path, path.includes('pass@k') ? 'pass@k' : 'seq@k', K, tasks)
    const r = await cli(['import', 'seq_k', root, '--out', join(tmp, 'from-reference')])
    expect(r.code, r.out).toBe(0)
    summary = RunSummarySchema.parse(JSON.parse(readFileSync(join(tmp, 'from-reference', 'summary.json'), 'utf8')))
  })

  const cellOf = (path: string): CellSummary => {
    const [slice, metric, , , feedbackMode] = path.split('/')
    const mode = metric === 'pass@k' ? 'independent' : feedbackMode!
    return summary.benchmarks.find((b) => b.name === slice)!.cells.find((c) => c.mode === mode)!
  }

  it('reads one cell per folder, the budget disclosed where the prompt says "This is attempt t of K."', () => {
    // The folders in path order (arc, code, rubric): one benchmark per slice.
    expect(summary.benchmarks.map((b) => [b.name, b.cells.length])).toEqual([
      ['arc', 2],
      ['code', 2],
      ['rubric', 2],
    ])
    for (const path of Object.keys(folders)) {
      const cell = cellOf(path)
      const sequential = path.includes('seq@k')
      expect(cell.protocol).toMatchObject({
        kind: sequential ? 'sequential' : 'independent',
        budget: K,
        budgetDisclosed: sequential,
      })
      expect(cell.protocol.promptBuilder).toBe(sequential ? 'seq_k-reference/1' : 'seq_k/bare')
      expect(cell.tasks).toBe(folders[path as keyof typeof folders].length)
      expect(cell.errors.count).toBe(0)
    }
  })

  it('its score curve is the reference metric@k at every k, in every cell (soft rubric scores and binary ones)', () => {
    for (const [path, tasks] of Object.entries(folders)) {
      const cell = cellOf(path)
      for (let k = 1; k <= K; k++)
        expect(cell.score!.at[k - 1], `${path} @${k}`).toBeCloseTo(referenceMetricAt(tasks, k), 12)
      expect(cell.score!.binary).toBe(!path.startsWith('rubric'))
    }
  })

  it('its Seq@K is the success curve at K; its Pass@k the unbiased estimator and, at K, the reference pass@K', () => {
    for (const [path, tasks] of Object.entries(folders)) {
      const cell = cellOf(path)
      const success = tasks.map((attempts) => attempts.map((a) => ({ score: a.success ? 1 : 0, success: a.success })))
      if (path.includes('seq@k')) {
        // Told its budget: only Seq@K is a Seq@K number; below K the reference's reading is the score curve's.
        expect(cell.seqAt.slice(0, K - 1)).toEqual([null, null, null, null])
        expect(cell.seqAt[K - 1]).toBeCloseTo(referenceMetricAt(success, K), 12)
      } else {
        for (let k = 1; k <= K; k++) {
          const unbiased =
            tasks.reduce((s, a) => s + unbiasedPassAt(a.length, a.filter((x) => x.success).length, k), 0) / tasks.length
          expect(cell.passAt![k - 1], `${path} Pass@${k}`).toBeCloseTo(unbiased, 12)
          // The share solved by sample k, in draw order: the reference's pass@k success curve.
          expect(cell.seqAt[k - 1], `${path} solved by sample ${k}`).toBeCloseTo(referenceMetricAt(success, k), 12)
        }
        expect(cell.passAt![K - 1]).toBeCloseTo(referenceMetricAt(success, K), 12)
      }
    }
  })

  it('names the file and the field of a malformed attempt, and a folder in the wrong place', async () => {
    const bad = join(tmp, 'bad')
    writeReferenceFolder(bad, 'x/seq@k/m/v/raw', 'seq@k', 2, [[{ score: 0.5, success: false }]])
    const file = join(bad, 'x/seq@k/m/v/raw/task-1/attempt-1.json')
    const json = JSON.parse(readFileSync(file, 'utf8'))
    delete json.judge.success
    writeFileSync(file, JSON.stringify(json))
    const r = await cli(['import', 'seq_k', bad])
    expect(r.code).toBe(1)
    expect(r.out).toContain(`${file} is not a seq_k attempt: judge.success: expected judge.success (true or false)`)
    const deep = await cli(['import', 'seq_k', join(bad, 'x/seq@k')])
    expect(deep.code).toBe(1)
    expect(deep.out).toMatch(
      /a run folder sits at <slice>\/<metric>\/<actor>\/<verifier>\/<feedback> under the folder imported/,
    )
  })

  it('enters a task short of K attempts and unsolved as unfinished (censored), not as a failure', async () => {
    const partial = join(tmp, 'partial')
    writeReferenceFolder(partial, 'p/seq@k/m/v/raw', 'seq@k', 3, [
      [
        { score: 0, success: false },
        { score: 1, success: true },
      ],
      [{ score: 0.5, success: false }],
    ])
    const r = await cli(['import', 'seq_k', partial, '--out', join(tmp, 'partial-run')])
    expect(r.code, r.out).toBe(0)
    const cell = RunSummarySchema.parse(JSON.parse(readFileSync(join(tmp, 'partial-run', 'summary.json'), 'utf8')))
      .benchmarks[0]!.cells[0]!
    expect(cell.errors.count).toBe(1)
    expect(cell.errors.examples[0]!.message).toContain('the run folder holds 1 of 3 attempts')
  })
})
