/**
 * Loaders from public benchmark formats into tasks, and aids to simulate actors on them.
 *
 * @example
 * import { loadHumanEvalPro } from './benchmarks/index.js'
 * const tasks = loadHumanEvalPro('data/humaneval_pro.json', { excludeDefective: true, limit: 20 })
 */
export {
  loadHumanEvalPro,
  loadMbppPro,
  loadCodeEvalPro,
  codeEvalProTask,
  referenceAnswer,
  referenceCode,
  selfInvokingPrompt,
  SELF_INVOKING_INSTRUCTION,
  entryPointFromTests,
  detectDefects,
  promptImports,
  PROMPT_DEFECTS,
  CodeEvalProRecordSchema,
  CodeEvalProFileError,
  type CodeEvalProRecord,
  type CodeEvalProBenchmark,
  type CodeEvalProDefects,
  type CodeEvalProDefect,
  type CodeEvalProOptions,
  type CodeEvalProEntry,
} from './codeeval-pro.js'
export {
  simulationFromReference,
  breakReference,
  withCheckedSimulation,
  REFERENCE_BREAKS,
  type ReferenceBreak,
  type SimulationFromReferenceOptions,
  type CheckedSimulationOptions,
} from './simulation-from-reference.js'
export {
  strengthenTests,
  DEFAULT_MAX_STEPS,
  type StrengthenOptions,
  type StrengthenReport,
  type StrengthenResult,
} from './strengthen.js'
export {
  loadArcAgi2,
  arcTask,
  arcPrompt,
  arcGridVerifier,
  ArcFileError,
  ArcTaskFileSchema,
  type ArcTaskFile,
  type ArcAgi2Options,
} from './arc-agi-2.js'
export {
  loadResearchRubrics,
  researchRubricsTask,
  researchRubricsVerifier,
  ResearchRubricsRecordSchema,
  type ResearchRubricsRecord,
} from './researchrubrics.js'
export {
  loadHealthBench,
  loadHealthBenchEntries,
  healthBenchTask,
  healthBenchVerifier,
  HealthBenchRecordSchema,
  type HealthBenchRecord,
  type HealthBenchEntry,
  type HealthBenchOptions,
} from './healthbench.js'
export {
  loadAdvancedIf,
  loadAdvancedIfEntries,
  advancedIfTask,
  advancedIfSubset,
  advancedIfVerifier,
  ADVANCEDIF_SUBSETS,
  AdvancedIfRecordSchema,
  type AdvancedIfRecord,
  type AdvancedIfEntry,
  type AdvancedIfOptions,
  type AdvancedIfSubset,
} from './advancedif.js'
export {
  loadClBench,
  loadClBenchEntries,
  clBenchTask,
  clBenchScore,
  clBenchVerifier,
  ClBenchRecordSchema,
  type ClBenchRecord,
  type ClBenchEntry,
  type ClBenchOptions,
} from './clbench.js'
export { loadTasks, TaskFileError, type LoadTasksOptions, type TaskColumns, type TaskRow } from './load-tasks.js'
