import { appendFileSync, existsSync } from 'node:fs'
import { type Trajectory, TrajectorySchema } from './schemas.js'
import { readJsonLines } from './jsonl.js'

/**
 * Appends one JSON line per finished trajectory. Each line is one `write` to the OS as soon as the
 * trajectory ends, so a run killed halfway leaves every finished trajectory readable.
 */
export function appendTrajectory(path: string, trajectory: Trajectory): void {
  appendFileSync(path, `${JSON.stringify(trajectory)}\n`)
}

export interface ReadTrajectories {
  trajectories: Trajectory[]
  /** A last line cut off by a crash mid-write: reported, not fatal. */
  truncatedTail: boolean
}

/**
 * Reads and validates a `trajectories.jsonl`. A malformed line throws an error naming the file,
 * the line and the field; only an unterminated last line (a crash mid-write) is tolerated.
 */
export function readTrajectories(path: string): ReadTrajectories {
  if (!existsSync(path)) throw new Error(`${path}: no such trajectories file (runs write it as .seqk/runs/<run id>/trajectories.jsonl)`)
  const { items, truncatedTail } = readJsonLines(path, TrajectorySchema, 'trajectory')
  return { trajectories: items, truncatedTail }
}
