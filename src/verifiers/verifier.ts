import { z } from 'zod'
import { ModelCallSchema } from '../models/chat-model.js'
import type { Task } from '../protocol/task.js'
import type { Awaitable } from '../protocol/awaitable.js'

/** One hidden test statement and how it went. `call`/`expected`/`actual` are set for `assert CALL == EXPECTED`. */
export const TestOutcomeSchema = z.object({
  index: z.number().int().nonnegative(),
  source: z.string(),
  pass: z.boolean(),
  call: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  error: z.string().optional(),
})
export type TestOutcome = z.infer<typeof TestOutcomeSchema>

/** One rubric criterion's verdict (rubric verifiers; later issues). */
export const CriterionVerdictSchema = z.object({
  id: z.string(),
  text: z.string(),
  met: z.boolean(),
  points: z.number().optional(),
  reason: z.string().optional(),
  /** Whether the criterion counts in the answer's favour: `met` for a normal criterion, not met for a penalty (negative points). */
  satisfied: z.boolean().optional(),
  checkedBy: z.enum(['code', 'predicate', 'grader']).optional(),
})
export type CriterionVerdict = z.infer<typeof CriterionVerdictSchema>

/**
 * What a verifier saw besides pass/fail: the raw material of `verifier` feedback.
 * `outcome` separates a wrong answer from code that did not load or ran out of time.
 */
export const DiagnosticsSchema = z.object({
  outcome: z.enum(['passed', 'failed', 'load-error', 'timeout', 'no-answer']),
  summary: z.string(),
  tests: z.array(TestOutcomeSchema).optional(),
  error: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
})
export type Diagnostics = z.infer<typeof DiagnosticsSchema>

export const VerdictSchema = z.object({
  pass: z.boolean(),
  score: z.number().optional(),
  /** What was verified: e.g. the extracted code block. */
  extracted: z.string().optional(),
  /** Which form of the answer the verdict is about: as written, or sanitised (demo code cut off). */
  variant: z.enum(['raw', 'sanitised']).optional(),
  diagnostics: DiagnosticsSchema,
  criteria: z.array(CriterionVerdictSchema).optional(),
  durationMs: z.number().nonnegative().optional(),
  /** The isolation the answer ran under (code verifiers): `bwrap` or `none`. */
  sandbox: z.enum(['bwrap', 'none']).optional(),
  /** Model calls the verifier made (a grader's); the protocol moves them to the attempt's helper calls. */
  calls: z.array(ModelCallSchema).optional(),
})
export type Verdict = z.infer<typeof VerdictSchema>

/** What a verification may use besides the task and the answer. */
export interface VerifyOptions {
  /** Aborted when the test times out or is cancelled. */
  signal?: AbortSignal
  /** The attempt (or sample) being verified, 1-based, and its repeat: a grader's calls carry them, so record/replay keys them apart. */
  attempt?: number
  repeat?: number
  /**
   * Who wrote the answer: `'model'` (default: any actor, so treated as untrusted) or
   * `'bundled-simulation'` (this project's own simulated actors). A code verifier uses it to decide
   * whether the answer may run where no sandbox is available.
   */
  origin?: 'model' | 'bundled-simulation'
}

/**
 * Decides V_i(y) in {0,1} for a task and an answer, with diagnostics.
 *
 * A verifier throws only for infrastructure problems (the interpreter is missing, a grader is
 * down); a wrong, broken or slow answer is a failed verdict.
 */
export interface Verifier {
  /** Stable name and version: part of the protocol fingerprint. */
  name: string
  version: string
  /** Settings that change verdicts (timeouts, pass rules): part of the fingerprint. */
  settings: Record<string, string | number | boolean | null>
  /** Problems with a task this verifier cannot verify, checked at declaration time. */
  checkTask?(task: Task): string[]
  /** Normalises an answer for the unmodified-revision comparison (e.g. the extracted code). */
  normalise?(answer: string): string
  /** The verdict; a promise when verifying takes I/O (running code, a grader's call). */
  verify(task: Task, answer: string, options?: VerifyOptions): Awaitable<Verdict>
}

/** A verifier whose verdicts always come as promises: every bundled one (they run code or call a grader). */
export interface AsyncVerifier extends Verifier {
  verify(task: Task, answer: string, options?: VerifyOptions): Promise<Verdict>
}
