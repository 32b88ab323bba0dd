import type { CellSummary, Trajectory } from '../artifacts/schemas.js'

/** Recorded when a cell starts, so the reporter can show progress against a total. */
export interface CellStartArtifact {
  type: 'seqk:cell-start'
  benchmark: string
  cellId: string
  total: number
}

/**
 * One finished trajectory, carried inline (not as a path) so blobs from other machines merge
 * with `--merge-reports` (DESIGN §5) and the reporter can show live progress.
 */
export interface TrajectoryArtifact {
  type: 'seqk:trajectory'
  trajectory: Trajectory
}

declare module 'vitest' {
  interface TestArtifactRegistry {
    'seqk:cell-start': CellStartArtifact
    'seqk:trajectory': TrajectoryArtifact
  }
  interface TaskMeta {
    /** The cell's summary, plain JSON, read by the seqk reporter. */
    seqk?: CellSummary & { file: string }
  }
}
