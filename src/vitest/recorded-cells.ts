/**
 * What the reporter reads from Vitest's test cases: the trajectories and cell declarations each
 * recorded as artifacts, checked against the schema, and the summary of a cell that did not
 * finish, from its plan and what it recorded.
 */
import type { TestCase, TestModule } from 'vitest/node'
import { CellSummarySchema, TrajectorySchema, type CellSummary, type Trajectory } from '../core/schemas.js'
import type { CellEndRecord, CellRecord } from '../artifacts/cells-file.js'
import { inCellOrder, unfinishedThreshold } from '../artifacts/recompute.js'
import { shardOfTask } from '../protocol/shard.js'
import { summariseCell } from '../protocol/cell-summary.js'
import { describeZodError } from '../core/zod-errors.js'
import './artifact-types.js'

/**
 * The summary of a cell that did not finish, from the plan and the trajectories it recorded:
 * failed, saying why and how far it got. Undefined for a test that is not a started seqk cell.
 */
export function unfinishedCell(
  testCase: TestCase,
  unreadable: string | undefined,
  malformed: Set<string>,
  onFile: () => Trajectory[],
): { cell: CellSummary & { file: string }; end: CellEndRecord } | undefined {
  const artifacts = testCase.artifacts()
  const start = artifacts.find((a) => a.type === 'seqk:cell-start')
  const plan = start?.type === 'seqk:cell-start' ? start.plan : undefined
  if (!start || start.type !== 'seqk:cell-start' || !plan) return undefined
  // A trajectory that ended as the test timed out is on file before its artifact is recorded: both count.
  const recorded = recordedTrajectories(testCase, malformed)
  const declared = start.declared
  const seen = new Set(recorded.map((t) => `${t.taskId}\u0000${t.repeat}`))
  const late = declared
    ? onFile().filter(
        (t) =>
          t.runId === declared.runId &&
          t.benchmark === declared.benchmark &&
          t.cellId === declared.cellId &&
          t.fingerprint === declared.fingerprint &&
          !seen.has(`${t.taskId}\u0000${t.repeat}`),
      )
    : []
  const trajectories = inCellOrder([...recorded, ...late], plan.taskIds)
  const result = testCase.result()
  const why =
    unreadable ??
    result.errors?.[0]?.message?.split('\n')[0] ??
    (result.state === 'failed' ? 'the test failed before the cell ended' : `the test ended ${result.state}`)
  // A shard's cell covers its share of the tasks only (see SEQK_SHARD).
  const shard = start.declared?.shard
  const taskIds = shard ? plan.taskIds.filter((id) => shardOfTask(id, shard.count) === shard.index) : plan.taskIds
  const summary = summariseCell({
    runId: declared?.runId ?? trajectories[0]?.runId ?? 'unfinished',
    benchmark: start.benchmark,
    cellId: start.cellId,
    actorId: plan.actorId,
    mode: plan.mode,
    protocol: plan.protocol,
    fingerprint: plan.fingerprint,
    taskIds,
    taskHashes: plan.taskHashes,
    repeats: plan.repeats,
    trajectories,
    thresholds: plan.thresholds,
    errors: plan.errors,
    durationMs: testCase.diagnostic()?.duration ?? 0,
    ...(plan.knownUnstable ? { knownUnstable: plan.knownUnstable } : {}),
  })
  const cell = {
    ...summary,
    thresholds: [unfinishedThreshold(why, trajectories.length, start.total), ...summary.thresholds],
    verdict: 'fail' as const,
    file: plan.file,
    ...(shard ? { shard } : {}),
  }
  const end: CellEndRecord = {
    schema: 'seqk.cell/1',
    type: 'end',
    runId: summary.runId,
    benchmark: start.benchmark,
    cellId: start.cellId,
    durationMs: summary.durationMs,
    unfinished: why,
  }
  return { cell, end }
}

/** What a resume saved: trajectories kept as they were, and those run again. */
export function resumeLine(
  found: { cut: number; onFile: number; errored: number },
  testModules: ReadonlyArray<TestModule>,
): string {
  let kept = 0
  let ran = 0
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      for (const a of test.artifacts()) {
        if (a.type !== 'seqk:trajectory') continue
        if (a.reused) kept++
        else ran++
      }
    }
  }
  const torn = found.cut > 0 ? `; a torn last line (${found.cut} bytes) was cut` : ''
  const errored =
    found.errored > 0 ? ` (${found.errored} of those on file had errored: their new lines supersede them)` : ''
  return `seqk: resumed: kept ${kept} ${kept === 1 ? 'trajectory' : 'trajectories'} that had ended, ran ${ran}${errored}${torn}`
}

/**
 * The trajectories a test recorded, each checked against the schema: one a newer or broken
 * writer left malformed is left out (said in the thrown-away count), never crashes a view later.
 */
export function recordedTrajectories(testCase: TestCase, malformed: Set<string>): Trajectory[] {
  const out: Trajectory[] = []
  for (const artifact of testCase.artifacts()) {
    if (artifact.type !== 'seqk:trajectory') continue
    const parsed = TrajectorySchema.safeParse(artifact.trajectory)
    if (parsed.success) out.push(parsed.data)
    else
      malformed.add(
        `"${testCase.fullName}": a recorded trajectory (task ${String((artifact.trajectory as { taskId?: unknown } | undefined)?.taskId)}) is not a seqk trajectory: ${describeZodError(parsed.error)}`,
      )
  }
  return out
}

/**
 * A started cell's cells.jsonl lines, from its artifacts and its summary, read when its result
 * arrives: after --merge-reports, blobs of task shards share test ids, and only the result at
 * hand still carries its own shard's artifacts.
 */
export function cellLinesOf(test: TestCase, unfinished: CellEndRecord | undefined): CellRecord[] {
  const start = test.artifacts().find((a) => a.type === 'seqk:cell-start')
  if (start?.type !== 'seqk:cell-start' || !start.declared) return []
  const parsed = CellSummarySchema.safeParse(test.meta().seqk)
  const { schema, runId, benchmark, cellId } = start.declared
  if (unfinished) return [start.declared, unfinished]
  return parsed.success
    ? [start.declared, { schema, type: 'end', runId, benchmark, cellId, durationMs: parsed.data.durationMs }]
    : [start.declared]
}
