// `vitest-seqk/artifacts`: reading and writing run directories (trajectories.jsonl, summary.json,
// baselines), the versioned zod schemas of every file, protocol fingerprints, and the cell summary
// as a pure function of trajectories (what `seqk summarize` recomputes).
export * from '../core/schemas.js'
export {
  appendTrajectory,
  cutTornTail,
  readTrajectories,
  trajectoryKey,
  type ReadTrajectories,
} from './trajectories-file.js'
export { readSummary, writeSummary } from './summary-file.js'
export { DEFAULT_RUNS_DIR, SUMMARY_FILE, TRAJECTORIES_FILE, ensureRunDir, newRunId } from './run-dir.js'
export {
  BaselineFileSchema,
  BaselineCellSchema,
  readBaselineFile,
  writeBaselineCell,
  type BaselineFile,
} from './baseline-file.js'
export {
  protocolFingerprint,
  protocolDifferences,
  benchmarkContentHash,
  canonicalJson,
} from '../protocol/fingerprint.js'
export {
  cellInstrument,
  cellSubject,
  INSTRUMENT_FIELDS,
  instrumentOf,
  SUBJECT_FIELDS,
  subjectOf,
} from '../core/instrument.js'
export { summariseCell, type SummariseInput } from '../protocol/cell-summary.js'
export {
  DisclosureCardSchema,
  BenchmarkProvenanceSchema,
  DISCLOSURE_SCHEMA,
  type DisclosureCard,
  type BenchmarkProvenance,
} from '../core/disclosure.js'
export {
  CellEstimateSchema,
  EstimateRangeSchema,
  estimateError,
  type CellEstimate,
  type EstimateRange,
} from '../core/estimate.js'
export { TaskRecordSchema, readTaskRecords, TASKS_FILE, type TaskRecord } from './tasks-file.js'
export {
  seqKFiles,
  importSeqKFolders,
  parseSeqKAttempt,
  seqKFolder,
  SeqKAttemptSchema,
  SeqKFolderError,
  type SeqKAttempt,
  type SeqKFile,
  type SeqKRunFolder,
  type ImportedRun,
} from './seq-k-folder.js'
