import { appendFileSync, existsSync, openSync, closeSync, readSync, fstatSync, ftruncateSync } from 'node:fs'
import { type Trajectory, TrajectorySchema } from '../core/schemas.js'
import { forEachJsonLine } from './jsonl.js'

/**
 * Appends one JSON line per finished trajectory. Each line is one `write` to the OS as soon as the
 * trajectory ends, so a run killed halfway leaves every finished trajectory readable.
 */
export function appendTrajectory(path: string, trajectory: Trajectory): void {
  appendFileSync(path, `${JSON.stringify(trajectory)}\n`)
}

/** What `readTrajectories` returns: the trajectories, a cut-off last line, and the lines a resume superseded. */
export interface ReadTrajectories {
  /** One per (run, benchmark, cell, task, repeat), in file order of each one's last line. */
  trajectories: Trajectory[]
  /** A last line cut off by a crash mid-write: reported, not fatal. */
  truncatedTail: boolean
  /** Earlier lines for a trajectory that a later line replaced (a resumed run reran it after an error). */
  superseded: number
}

/** What identifies one trajectory in a run: the same key twice means a resumed run reran it. */
export function trajectoryKey(t: Pick<Trajectory, 'runId' | 'benchmark' | 'cellId' | 'taskId' | 'repeat'>): string {
  return [t.runId, t.benchmark, t.cellId, t.taskId, t.repeat].join('\u0000')
}

/**
 * Reads and validates a `trajectories.jsonl`. A malformed line throws an error naming the file,
 * the line and the field; only an unterminated last line (a crash mid-write) is tolerated. When a
 * trajectory appears more than once (a resumed run reran one that had errored), the last line wins
 * and the earlier ones are counted in `superseded`, never twice in `trajectories`.
 *
 * @example
 * const { trajectories } = readTrajectories('.seqk/runs/latest-run/trajectories.jsonl')
 */
export function readTrajectories(
  path: string,
  options: { bytes?: number; view?: (t: Trajectory) => Trajectory } = {},
): ReadTrajectories {
  if (!existsSync(path))
    throw new Error(`${path}: no such trajectories file (runs write it as .seqk/runs/<run id>/trajectories.jsonl)`)
  const last = new Map<string, Trajectory>()
  let lines = 0
  const { truncatedTail } = forEachJsonLine(
    path,
    TrajectorySchema,
    'trajectory',
    (t) => {
      lines += 1
      const key = trajectoryKey(t)
      // Delete first so the map's order is that of each trajectory's last line.
      last.delete(key)
      last.set(key, options.view ? options.view(t) : t)
    },
    options.bytes,
  )
  return { trajectories: [...last.values()], truncatedTail, superseded: lines - last.size }
}

/** Each test's index and pass, its texts dropped; absent when the verdict reported no tests. */
function testOutcomes(tests: Trajectory['attempts'][number]['verdict']['diagnostics']['tests']): {
  tests?: { index: number; source: string; pass: boolean }[]
} {
  return tests ? { tests: tests.map((t) => ({ index: t.index, source: '', pass: t.pass })) } : {}
}

/**
 * A trajectory as much as its summary needs: every outcome, flag, usage and cost, each test's
 * index and pass and the feedback's requests (the derived revision annotator reads them), without
 * the texts (answers, extracted code, test sources and output, feedback, error bodies beyond the
 * first line), so a run of any size is summarised in memory that does not grow with what its
 * attempts wrote (only with how many tests they ran).
 */
export function summaryView(t: Trajectory): Trajectory {
  return {
    ...t,
    attempts: t.attempts.map((a) => ({
      ...a,
      answer: '',
      verdict: {
        ...a.verdict,
        extracted: undefined,
        ...(a.verdict.criteria
          ? { criteria: a.verdict.criteria.map((c) => ({ ...c, text: '', reason: undefined })) }
          : {}),
        diagnostics: {
          outcome: a.verdict.diagnostics.outcome,
          summary: '',
          ...testOutcomes(a.verdict.diagnostics.tests),
        },
      },
      feedback: a.feedback ? { ...a.feedback, text: '' } : null,
    })),
  }
}

/**
 * Cuts a trajectories file back to its last complete line, so the next append starts a line of
 * its own instead of gluing onto a record a crash cut off. Returns the bytes removed (0 when the
 * file ends with a newline). Run it before anything appends (a resumed run does, at its start).
 */
export function cutTornTail(path: string): number {
  const fd = openSync(path, 'r+')
  try {
    const size = fstatSync(fd).size
    // Read backwards in chunks to the last newline: the file may be large, the torn part is small.
    const chunk = Buffer.alloc(64 * 1024)
    let end = size
    while (end > 0) {
      const start = Math.max(0, end - chunk.length)
      const n = readSync(fd, chunk, 0, end - start, start)
      const at = chunk.subarray(0, n).lastIndexOf(0x0a)
      if (at >= 0) {
        const keep = start + at + 1
        if (keep < size) ftruncateSync(fd, keep)
        return size - keep
      }
      end = start
    }
    if (size > 0) ftruncateSync(fd, 0)
    return size
  } finally {
    closeSync(fd)
  }
}
