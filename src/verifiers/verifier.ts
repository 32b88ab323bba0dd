import { ComponentError, zodProblems, type ContractProblem } from '../core/component-error.js'
import type { AnyTask } from '../core/task.js'
import type { Awaitable } from '../core/awaitable.js'
import type { Episode, WorkspaceSnapshot } from '../core/episode.js'

// The contract's schemas live in core/; re-exported here beside the Verifier interface.
export {
  TestOutcomeSchema,
  CriterionVerdictSchema,
  CheckVerdictSchema,
  DiagnosticsSchema,
  VerdictSchema,
  type TestOutcome,
  type CriterionVerdict,
  type CheckVerdict,
  type Diagnostics,
  type Verdict,
} from '../core/contract.js'
import { VerdictSchema, type Verdict } from '../core/contract.js'

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
  /** An agent's workspace as its episode left it, when the actor has one (`actors.agent({ workspace })`). */
  workspace?: WorkspaceSnapshot
  /** An agent's episode (its turns and tool calls), when the actor is an agent. */
  episode?: Episode
}

/**
 * Decides V_i(y) in {0,1} for a task and an answer, with diagnostics.
 *
 * A verifier throws only for infrastructure problems (the interpreter is missing, a grader is
 * down); a wrong, broken or slow answer is a failed verdict.
 *
 * The protocol checks every verdict where it enters the loop ({@link checkVerdict}): one outside
 * VerdictSchema, or whose `pass` and `diagnostics.outcome` disagree, is a ComponentError that
 * fails the cell with the field and the fix; it never counts as a pass or a failure. The README's
 * "Verifier contract" shows the shape and a complete custom verifier.
 */
export interface Verifier {
  /** Stable name and version: part of the protocol fingerprint. */
  name: string
  version: string
  /** Settings that change verdicts (timeouts, pass rules): part of the fingerprint. */
  settings: Record<string, string | number | boolean | null>
  /**
   * Problems with a task this verifier cannot verify, checked at declaration time. A verifier
   * reads the task fields it owns (tests, criteria, expected) as `unknown` and validates them
   * here, naming the task, the field and the fix.
   */
  checkTask?(task: AnyTask): string[]
  /**
   * What this machine must have for the verifier to run at all (an interpreter, a sandbox),
   * checked once per Vitest worker before its first cell calls a model, not after every cell's
   * first paid answer: throws naming what is missing and the fix. `origin` is whose answers it
   * will judge (a sandbox may be needed only for a model's code).
   */
  preflight?(context: { origin: 'model' | 'bundled-simulation' }): Awaitable<void>
  /** Normalises an answer for the unmodified-revision comparison (e.g. the extracted code). */
  normalise?(answer: string): string
  /** The verdict; a promise when verifying takes I/O (running code, a grader's call). */
  verify(task: AnyTask, answer: string, options?: VerifyOptions): Awaitable<Verdict>
}

/** A verifier whose verdicts always come as promises: every bundled one (they run code or call a grader). */
export interface AsyncVerifier extends Verifier {
  verify(task: AnyTask, answer: string, options?: VerifyOptions): Promise<Verdict>
}

/** The verdict's contract in one line, for error messages (the README's "Verifier contract" has it in full). */
export const VERDICT_CONTRACT =
  "{ pass: boolean, diagnostics: { outcome: 'passed' | 'failed' | 'load-error' | 'timeout' | 'no-answer', summary: string, tests?, error?, stdout?, stderr? }, score?: number, extracted?: string, criteria?: CriterionVerdict[], calls?: ModelCall[], durationMs?: number } (VerdictSchema; README: \"Verifier contract\")"

const VERDICT_HINTS: Readonly<Record<string, string>> = {
  '(root)': 'verify() must return (or resolve to) a verdict object; did it forget to return it?',
  pass: 'set `pass` to the boolean true or false (a string such as "yes", a number or a missing pass is never counted, neither as a pass nor as a failure)',
  diagnostics:
    "add `diagnostics: { outcome, summary }`: `outcome` says how the answer did, `summary` is the one line a person (and feedback.verifier()) reads, e.g. { outcome: 'failed', summary: 'expected 42, got 41' }",
  'diagnostics.outcome':
    "set `diagnostics.outcome` to 'passed' (when pass is true), else 'failed' (a wrong answer), 'load-error' (it did not load or parse), 'timeout' or 'no-answer' (nothing to check)",
  'diagnostics.summary': 'set `diagnostics.summary` to a one-line string saying why, e.g. "expected 42, got 41"',
  'diagnostics.tests':
    'each of `diagnostics.tests` is { index: integer >= 0, source: string, pass: boolean, call?, expected?, actual?, error? } with string values (TestOutcomeSchema)',
  'diagnostics.error': 'make `diagnostics.error` a string (the message), or leave it out',
  'diagnostics.stdout': 'make `diagnostics.stdout` a string, or leave it out',
  'diagnostics.stderr': 'make `diagnostics.stderr` a string, or leave it out',
  score:
    'make `score` a number in [0, 1] (1 or 0 for a pass or a failure, a share for partial credit), or leave it out (the protocol then records 1 or 0 by `pass`)',
  extracted: 'make `extracted` the string that was verified, or leave it out',
  variant: "make `variant` 'raw' or 'sanitised', or leave it out",
  criteria:
    'each of `criteria` is { id: string, text: string, met: boolean, points?: number, reason?: string } (CriterionVerdictSchema)',
  durationMs: 'make `durationMs` a finite number >= 0, or leave it out',
  sandbox: "make `sandbox` 'bwrap' or 'none', or leave it out",
  calls: "leave `calls` out unless the verifier called a model; each is recordCall('grader', response)",
  checks:
    'leave `checks` to the composed verifiers (verifiers.all, any, weighted); each is { name, verifier, pass, diagnostics, score?, weight?, extracted?, criteria? } (CheckVerdictSchema)',
  heldOut:
    'make `heldOut` { statements, tests: number[], failed: number[], visiblePass: boolean } (HeldOutRecordSchema), or leave it out',
}

/**
 * What the schema cannot say of a verdict: a `score` outside [0, 1] (older files with one still
 * read), or a `pass` and `diagnostics.outcome` that contradict each other (`pass: true` with
 * `outcome: 'failed'`, or the reverse).
 */
function contradiction(verdict: Verdict): ContractProblem | undefined {
  if (verdict.score !== undefined && !(verdict.score >= 0 && verdict.score <= 1))
    return {
      field: 'score',
      message: `is ${String(verdict.score)}, outside [0, 1]: a score is a share (1 or 0 for a binary verdict)`,
    }
  const check = verdict.checks?.findIndex((c) => c.pass !== (c.diagnostics.outcome === 'passed')) ?? -1
  if (check >= 0)
    return {
      field: `checks.${check}.diagnostics.outcome`,
      message: `is ${JSON.stringify(verdict.checks![check]!.diagnostics.outcome)} but the check's pass is ${String(verdict.checks![check]!.pass)}: a check passes exactly when its outcome is 'passed'`,
    }
  const outcome = verdict.diagnostics.outcome
  if (verdict.pass === (outcome === 'passed')) return undefined
  return verdict.pass
    ? {
        field: 'diagnostics.outcome',
        message: `is ${JSON.stringify(outcome)} but pass is true: a passing verdict has outcome 'passed'`,
      }
    : {
        field: 'diagnostics.outcome',
        message:
          "is 'passed' but pass is false: a failing verdict has outcome 'failed', 'load-error', 'timeout' or 'no-answer'",
      }
}

// The fields the fast path knows: every scalar one. A verdict with tests, criteria, calls or any
// other field goes to zod (the verifiers that return those run code or call a model anyway).
const isPlainVerdictKey = (key: string) =>
  key === 'pass' ||
  key === 'diagnostics' ||
  key === 'score' ||
  key === 'extracted' ||
  key === 'durationMs' ||
  key === 'variant' ||
  key === 'sandbox'
const isPlainDiagnosticsKey = (key: string) =>
  key === 'outcome' || key === 'summary' || key === 'error' || key === 'stdout' || key === 'stderr'
const isFailedOutcome = (o: unknown) => o === 'failed' || o === 'no-answer' || o === 'load-error' || o === 'timeout'
const isOptionalString = (v: unknown) => v === undefined || typeof v === 'string'

/**
 * The hot path of {@link checkVerdict}: a hand-written test that accepts only verdicts made of the
 * scalar fields, with `pass` and `outcome` agreeing, that VerdictSchema accepts as they are (no
 * unknown field to drop) — a property test holds it to that — in a few nanoseconds instead of a
 * zod parse per attempt. Anything else goes to zod, which decides and words the error.
 */
export function isPlainVerdict(value: unknown): value is Verdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  for (const key in value) if (!isPlainVerdictKey(key)) return false
  const v = value as Record<string, unknown>
  const d = v.diagnostics as Record<string, unknown> | null | undefined
  if (typeof v.pass !== 'boolean' || typeof d !== 'object' || d === null || Array.isArray(d)) return false
  for (const key in d) if (!isPlainDiagnosticsKey(key)) return false
  if (v.pass ? d.outcome !== 'passed' : !isFailedOutcome(d.outcome)) return false
  return (
    typeof d.summary === 'string' &&
    isOptionalString(d.error) &&
    isOptionalString(d.stdout) &&
    isOptionalString(d.stderr) &&
    (v.score === undefined || (typeof v.score === 'number' && v.score >= 0 && v.score <= 1)) &&
    isOptionalString(v.extracted) &&
    (v.variant === undefined || v.variant === 'raw' || v.variant === 'sanitised') &&
    (v.durationMs === undefined ||
      (typeof v.durationMs === 'number' && Number.isFinite(v.durationMs) && v.durationMs >= 0)) &&
    (v.sandbox === undefined || v.sandbox === 'bwrap' || v.sandbox === 'none')
  )
}

/**
 * Checks what `verifier.verify()` returned and returns the verdict as VerdictSchema reads it
 * (unknown fields dropped, so nothing unserialisable reaches an artifact), or throws a
 * ComponentError naming the verifier, the field and the fix. Besides the shape, `pass` and
 * `diagnostics.outcome` must agree (`pass` ⇔ `outcome: 'passed'`), so a verdict cannot say two
 * things at once. Called by the protocol on every attempt; `at` says where, for reproduction.
 *
 * Without this, a verdict lacking `diagnostics.outcome` was stored and made `readTrajectories`
 * reject the run later, one lacking `diagnostics` crashed the reporter, and `pass: 'yes'` counted
 * silently as a failure.
 *
 * @example
 * const verdict = checkVerdict(verifier, await verifier.verify(task, answer), { taskId: task.id, attempt: 1 })
 */
export function checkVerdict(
  verifier: Pick<Verifier, 'name' | 'version'>,
  value: unknown,
  at?: { taskId: string; attempt: number },
): Verdict {
  if (isPlainVerdict(value)) return value
  const parsed = VerdictSchema.safeParse(value)
  const problem = parsed.success ? contradiction(parsed.data) : undefined
  if (parsed.success && problem === undefined) return parsed.data
  throw new ComponentError(
    {
      component: `verifier ${JSON.stringify(verifier.name)}@${String(verifier.version)}`,
      returned: 'verdict',
      where: at ? `for task ${JSON.stringify(at.taskId)}, attempt ${at.attempt}` : undefined,
      contract: VERDICT_CONTRACT,
      hints: VERDICT_HINTS,
    },
    problem ? [problem] : zodProblems(VerdictSchema, value),
  )
}
