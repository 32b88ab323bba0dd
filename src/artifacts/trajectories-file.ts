import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { type Trajectory, TrajectorySchema } from './schemas.js'
import { describeZodError } from './zod-errors.js'

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
  const text = readFileSync(path, 'utf8')
  const lines = text.split('\n')
  const trajectories: Trajectory[] = []
  let truncatedTail = false
  lines.forEach((line, i) => {
    if (line.trim() === '') return
    const isLast = i === lines.length - 1
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      if (isLast) {
        truncatedTail = true
        return
      }
      throw new Error(`${path}:${i + 1}: not valid JSON; each line must be one trajectory object`)
    }
    const parsed = TrajectorySchema.safeParse(json)
    if (!parsed.success) throw new Error(`${path}:${i + 1}: not a seqk trajectory: ${describeZodError(parsed.error)}`)
    trajectories.push(parsed.data)
  })
  return { trajectories, truncatedTail }
}
