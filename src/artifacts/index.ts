export * from '../core/schemas.js'
export { appendTrajectory, cutTornTail, readTrajectories, trajectoryKey, type ReadTrajectories } from './trajectories-file.js'
export { readSummary, writeSummary } from './summary-file.js'
export { DEFAULT_RUNS_DIR, SUMMARY_FILE, TRAJECTORIES_FILE, ensureRunDir, newRunId } from './run-dir.js'
