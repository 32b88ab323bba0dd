import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { simulatedActor } from '../models/simulated.js'
import { runCell, cellProtocol } from '../protocol/cell.js'
import { benchmarkHashes, protocolFingerprint } from '../protocol/fingerprint.js'
import { cellSpec, saysCorrect } from '../protocol/test-helpers.js'
import type { Task } from '../protocol/task.js'
import { appendCellRecord, readCells, type CellStartRecord } from './cells-file.js'
import { recomputeCell, recomputeRun } from './recompute.js'
import { summaryView } from './trajectories-file.js'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import type { Verifier } from '../verifiers/verifier.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-recompute-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tasks: Task[] = Array.from({ length: 6 }, (_, i) => ({
  id: `t${i}`,
  prompt: `#${i}`,
  simulation: { difficulty: i / 6, correct: ['CORRECT'], wrong: ['WRONG'] },
}))
const spec = cellSpec(tasks, simulatedActor({ profile: 'reviser' }), {
  verifier: saysCorrect,
  repeats: 2,
  budget: 3,
  errors: 'censored',
  thresholds: { seqAt: { 3: 0.5 } },
})

function startOf(): CellStartRecord {
  const hashes = benchmarkHashes(tasks)
  const protocol = cellProtocol(spec, hashes.benchmark)
  return {
    schema: 'seqk.cell/1',
    type: 'start',
    runId: spec.runId,
    benchmark: spec.benchmark,
    cellId: spec.cellId,
    actorId: spec.actor.id,
    mode: 'binary',
    protocol,
    fingerprint: protocolFingerprint(protocol),
    taskIds: tasks.map((t) => t.id),
    taskHashes: hashes.tasks,
    repeats: 2,
    thresholds: { seqAt: { 3: 0.5 } },
    errors: 'censored',
    file: 'x.eval.ts',
    baseline: null,
  }
}

describe('recomputeCell', () => {
  it("gives the cell's own summary from its declaration and trajectories, whatever order they are on file", async () => {
    const { summary, trajectories } = await runCell(spec)
    const end = {
      schema: 'seqk.cell/1' as const,
      type: 'end' as const,
      runId: spec.runId,
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      durationMs: summary.durationMs,
    }
    expect(recomputeCell(startOf(), end, [...trajectories].reverse())).toEqual(summary)
  })

  it('gives the same summary from the summary views of its trajectories (no answers, output or feedback text held)', async () => {
    const { summary, trajectories } = await runCell(spec)
    const end = {
      schema: 'seqk.cell/1' as const,
      type: 'end' as const,
      runId: spec.runId,
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      durationMs: summary.durationMs,
    }
    const views = trajectories.map(summaryView)
    expect(views.every((t) => t.attempts.every((a) => a.answer === '' && a.verdict.diagnostics.summary === ''))).toBe(
      true,
    )
    expect(recomputeCell(startOf(), end, views)).toEqual(summary)
  })

  it('gives the same revision annotation from the summary views: test outcomes and feedback requests are kept', async () => {
    // Fails test 0 until the answer is correct; verifier feedback names it, so every revision is annotated.
    const twoTests: Verifier = {
      name: 'two-tests',
      version: '1',
      settings: {},
      verify(_task, answer) {
        const pass = answer.includes('CORRECT')
        return {
          pass,
          diagnostics: {
            outcome: pass ? 'passed' : 'failed',
            summary: 's',
            tests: [
              { index: 0, source: 'assert a', pass },
              { index: 1, source: 'assert b', pass: true },
            ],
          },
        }
      },
    }
    const verifierSpec = { ...spec, verifier: twoTests, mode: { name: 'verifier', feedback: verifierFeedback() } }
    const { summary, trajectories } = await runCell(verifierSpec)
    expect(summary.revisionAnnotation?.annotated).toBeGreaterThan(0)
    const hashes = benchmarkHashes(tasks)
    const protocol = cellProtocol(verifierSpec, hashes.benchmark)
    const start = { ...startOf(), mode: 'verifier', protocol, fingerprint: protocolFingerprint(protocol) }
    const end = {
      schema: 'seqk.cell/1' as const,
      type: 'end' as const,
      runId: spec.runId,
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      durationMs: summary.durationMs,
    }
    expect(recomputeCell(start, end, trajectories.map(summaryView))).toEqual(summary)
  })

  it('fails a cell that has no end record, or fewer trajectories than it declared, saying how far it got', async () => {
    const { summary, trajectories } = await runCell(spec)
    const end = {
      schema: 'seqk.cell/1' as const,
      type: 'end' as const,
      runId: spec.runId,
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      durationMs: summary.durationMs,
    }
    const noEnd = recomputeCell(startOf(), undefined, trajectories)
    expect(noEnd.verdict).toBe('fail')
    expect(noEnd.thresholds[0]).toMatchObject({
      metric: 'finished',
      actual: 12,
      limit: 12,
      message: expect.stringContaining('it has no end record'),
    })
    const short = recomputeCell(startOf(), end, trajectories.slice(1))
    expect(short.thresholds[0]).toMatchObject({
      metric: 'finished',
      actual: 11,
      limit: 12,
      message: expect.stringContaining('trajectories are missing'),
    })
  })

  it('round-trips through cells.jsonl: a resumed cell declared twice is one cell', async () => {
    const { summary, trajectories } = await runCell(spec)
    const path = join(dir, 'cells.jsonl')
    const end = {
      schema: 'seqk.cell/1' as const,
      type: 'end' as const,
      runId: spec.runId,
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      durationMs: summary.durationMs,
    }
    appendCellRecord(path, startOf())
    appendCellRecord(path, startOf())
    appendCellRecord(path, end)
    const { cells } = readCells(path)
    expect(cells).toHaveLength(1)
    const run = recomputeRun({ runId: spec.runId, createdAt: 'now', cells, trajectories })
    expect(run.benchmarks).toEqual([{ name: spec.benchmark, file: 'x.eval.ts', cells: [summary] }])
  })
})
