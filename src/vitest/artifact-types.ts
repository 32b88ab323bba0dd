import type { CellSummary, ErrorPolicy, PerturbationRecord, Protocol, Trajectory } from '../core/schemas.js'
import type { Thresholds } from '../protocol/cell-summary.js'
import type { CellStartRecord } from '../artifacts/cells-file.js'

/**
 * What the reporter needs to summarise a cell that never finished (a Vitest timeout, a crash, a
 * cancel) from the trajectories it had recorded: nothing a cell declared may vanish.
 */
export interface CellStartPlan {
  /** The actor's id, or the variant's name for a variant's cell. */
  actorId: string
  /** The variant of the eval's subject (seqEval's `variants`), if any. */
  variant?: string
  /** The rewording of the prompt the cell runs (seqEval's `perturb`), if any. */
  perturbation?: PerturbationRecord
  mode: string
  protocol: Protocol
  fingerprint: string
  taskIds: string[]
  taskHashes: Record<string, string>
  repeats: number
  thresholds: Thresholds
  errors: ErrorPolicy
  file: string
  /** Tasks the eval's stability report saw flip (absent without one). */
  knownUnstable?: string[]
}

/** Recorded when a cell starts, so the reporter can show progress against a total. */
export interface CellStartArtifact {
  type: 'seqk:cell-start'
  benchmark: string
  cellId: string
  total: number
  plan?: CellStartPlan
  /** In a resumed run: how many of `total` were kept from the run directory (not run again). */
  reused?: number
  /** The cell's line of cells.jsonl, which --merge-reports rebuilds from the blobs. */
  declared?: CellStartRecord
}

/**
 * One finished trajectory, carried inline (not as a path) so blobs from other machines merge
 * with `--merge-reports` and the reporter can show live progress.
 */
export interface TrajectoryArtifact {
  type: 'seqk:trajectory'
  trajectory: Trajectory
  /** Kept from the run directory by a resumed run, not run again (already in trajectories.jsonl). */
  reused?: boolean
}

/** What a running cell waits on (a retried endpoint, a rate limit), for live progress; at most one per cell every few seconds. */
export interface NoticeArtifact {
  type: 'seqk:notice'
  text: string
}

declare module 'vitest' {
  interface TestArtifactRegistry {
    'seqk:cell-start': CellStartArtifact
    'seqk:trajectory': TrajectoryArtifact
    'seqk:notice': NoticeArtifact
  }
  interface TaskMeta {
    /** The cell's summary, plain JSON, read by the seqk reporter. */
    seqk?: CellSummary & { file: string }
    /** Set at declaration on every seqEval cell, so a skipped cell is still known as one; `trajectories` (tasks in this shard × repeats) is what the run plans. */
    seqkCell?: { benchmark: string; cellId: string; trajectories?: number }
  }
}
