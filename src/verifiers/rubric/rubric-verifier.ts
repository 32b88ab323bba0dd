/**
 * The rubric verifier: judges each criterion of a task (by code, by a predicate, or by a grader
 * model) and applies a pass rule.
 */
import { z } from 'zod'
import { describeZodError } from '../../core/zod-errors.js'
import {
  spentCalls,
  throwIfAborted,
  withSpentCalls,
  type CallContext,
  type ChatModel,
  type ModelCall,
} from '../../models/chat-model.js'
import { checkReturned, type ContractBreach } from '../../core/component-error.js'
import { callCache } from '../../models/call-cache.js'
import { rejectUnknownOptions } from '../../core/option-checks.js'
import { isPromiseLike } from '../../core/awaitable.js'
import { canonicalJson, sha256 } from '../../core/fingerprint.js'
import { taskMessages, type AnyTask } from '../../core/task.js'
import type { AsyncVerifier, CriterionVerdict, Verdict } from '../verifier.js'
import { runCheck, type CriterionJudgement } from './checks.js'
import { criteriaOf, type Criterion } from './criteria.js'
import { criterionSatisfied } from '../../core/contract.js'
import { heldOutIndices, heldOutShareProblem, type HeldOutShare } from '../python-tests/held-out.js'
import { gradeAll, gradeOne, graderPrompt, type GradeRequest, type GradeResult, type GradingMode } from './grader.js'
import {
  decide,
  describePassRule,
  PassRuleSchema,
  SOFT_SCORE_RULES,
  type PassRule,
  type SoftScoreRule,
} from './pass-rule.js'

/**
 * A criterion judged by your own code, given by criterion id in the verifier's options (tasks stay
 * plain data). Return a boolean or `{ met, reason }`.
 *
 * @example
 * const predicates = { 'no-emoji': (answer: string) => !/\p{Extended_Pictographic}/u.test(answer) }
 */
export type CriterionPredicate = (answer: string, task: AnyTask) => boolean | { met: boolean; reason?: string }

/** The options of `verifiers.rubric()`: the grader, the pass rule, the predicates and the concurrency. */
export interface RubricVerifierOptions {
  /** The grader model for criteria with no `check` and no predicate. Its descriptor is part of the fingerprint. */
  grader?: ChatModel
  /** `per-criterion` (default): one grader call per criterion. `all-at-once`: one call for every model-graded criterion of an answer. */
  gradingMode?: GradingMode
  /** `'all'` (default) or `{ points: threshold }`; see {@link PassRule}. */
  passRule?: PassRule
  /** Code criteria by criterion id; they win over a task's `check` and the grader. Their source is hashed into the fingerprint. */
  predicates?: Record<string, CriterionPredicate>
  /** Grader calls in flight per answer in `per-criterion` mode (default 8, at most 100). */
  concurrency?: number
  /**
   * Reuse the grading of an identical request (same grader, prompt, conversation, answer and
   * criterion) within this verifier (default true). Resubmitted answers are common; a reused
   * grading keeps its nominal tokens and cost and is marked `replayed`.
   */
  cache?: boolean
  /**
   * Hold out a share of each task's criteria from feedback: they count in the verdict, but the
   * verdict's `criteria` and summary (what verifier feedback, critics and annotators read) keep
   * only the visible ones. The split is seeded by task id (as `pythonTests({ heldOut })`) and is
   * in `settings`, so the fingerprint. Needs the pass rule `'all'` and `per-criterion` grading.
   */
  heldOut?: HeldOutShare
  /**
   * How the verdict's soft `score` (read by the score curve, Score@k) is computed from the
   * criteria: `share`, `positive-points` or `weighted` (see {@link SoftScoreRule}). Default:
   * `positive-points` when the criteria carry points, else `share`. In `settings` when given.
   */
  score?: SoftScoreRule
}

/**
 * A criterion verdict as the rubric verifier writes it: also whether it counts in the answer's
 * favour (`satisfied`: met, or an unmet penalty) and what judged it.
 */
export type RubricCriterionVerdict = CriterionVerdict & {
  satisfied: boolean
  checkedBy: 'code' | 'predicate' | 'grader'
}

/** A rubric verifier, with its grading cache's counters for tests and benches. */
export interface RubricVerifier extends AsyncVerifier {
  stats(): { graderCalls: number; cacheHits: number }
}

const OptionsSchema = z
  .object({
    grader: z
      .custom<ChatModel>(
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as ChatModel).chat === 'function' &&
          typeof (v as ChatModel).descriptor === 'object',
        {
          message: 'grader: expected a chat model such as actors.openai({ model: "gpt-4.1-mini" })',
        },
      )
      .optional(),
    gradingMode: z
      .enum(['per-criterion', 'all-at-once'], { message: "gradingMode: use 'per-criterion' or 'all-at-once'" })
      .optional(),
    passRule: PassRuleSchema.optional(),
    predicates: z
      .record(
        z.string(),
        z.custom<CriterionPredicate>((v) => typeof v === 'function', {
          message: 'expected a function (answer, task) => boolean | { met, reason }',
        }),
      )
      .optional(),
    concurrency: z
      .number()
      .int('concurrency must be an integer from 1 to 100')
      .min(1, 'concurrency must be an integer from 1 to 100')
      .max(100, 'concurrency must be at most 100 grader calls in flight per answer')
      .optional(),
    cache: z.boolean().optional(),
    score: z
      .enum(SOFT_SCORE_RULES, { message: `score: use ${SOFT_SCORE_RULES.map((r) => `'${r}'`).join(', ')}` })
      .optional(),
    // Checked by heldOutShareProblem below, whose message names the field and the fix.
    heldOut: z.unknown().optional(),
  })
  .strict()

const PredicateObjectSchema = z.object({ met: z.boolean(), reason: z.string().optional() })

/** Who broke the contract when a criterion predicate returns something else than a boolean or `{ met, reason? }`. */
function predicateBreach(criterion: string, taskId: string): ContractBreach {
  return {
    component: `verifiers.rubric() predicate for criterion ${JSON.stringify(criterion)}`,
    returned: 'predicate result',
    where: `for task ${JSON.stringify(taskId)}`,
    contract: 'true, false or { met: boolean, reason?: string }, returned synchronously',
    hints: {
      '(root)':
        'return true, false or { met: boolean, reason?: string } at once (a rubric predicate is synchronous: no promise; a string such as "yes" is never counted)',
      met: 'set `met` to the boolean true or false',
      reason: 'make `reason` a string, or leave it out',
    },
  }
}

/**
 * Grades with at most `limit` gradings in flight. After the first failure no new grading starts;
 * the ones in flight finish, and the failure is rethrown carrying every call already billed (theirs
 * and its own), so the attempt's spend is not lost.
 */
async function gradePool(jobs: readonly (() => Promise<GradeResult>)[], limit: number): Promise<GradeResult[]> {
  const out: GradeResult[] = new Array(jobs.length)
  let next = 0
  let failure: { error: unknown } | undefined
  const spent: ModelCall[] = []
  const worker = async () => {
    while (!failure && next < jobs.length) {
      const i = next++
      try {
        out[i] = await jobs[i]!()
        spent.push(...out[i]!.calls)
      } catch (error) {
        // The first failure already carries its own spend; a later one's joins the rest. (Another
        // worker may have failed while this one waited, hence the re-read.)
        const first = failure as { error: unknown } | undefined
        if (!first) failure = { error }
        else if (error !== first.error) spent.push(...spentCalls(error))
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, worker))
  if (failure) throw withSpentCalls(failure.error, spent)
  return out
}

/**
 * Rubric grading (AdvancedIF, CL-bench, HealthBench and your own rubric tasks): every criterion of
 * the task is judged by a predicate from `predicates`, else by its declarative `check`, else by the
 * grader model; then the pass rule decides. The verdict lists every criterion with a stable id,
 * whether it was met and why (`verdict.criteria`), and carries the grader's calls (`verdict.calls`)
 * so their tokens and cost count toward the trajectory.
 *
 * A grader that answers malformed JSON twice, or fails after its retries, throws: an
 * infrastructure error, never a failed verdict. The grader's model, the prompt version and hash,
 * the grading mode, the pass rule and the predicates are all in `settings` (the fingerprint).
 *
 * @example
 * const verifier = verifiers.rubric({ grader: actors.openai({ model: 'gpt-4.1-mini', temperature: 0 }), passRule: 'all' })
 * seqEval('my rubric tasks', { tasks, verifier, modes: { critic: { feedback: feedback.critic({ rubric: 'aware', style: 'directive' }) } }, ... })
 */
export function rubric(options: RubricVerifierOptions = {}): RubricVerifier {
  rejectUnknownOptions('verifiers.rubric()', options, Object.keys(OptionsSchema.shape))
  const parsed = OptionsSchema.safeParse(options, { reportInput: true })
  if (!parsed.success) throw new TypeError(`verifiers.rubric(): ${describeZodError(parsed.error)}`)
  const { grader, predicates = {} } = options
  const mode: GradingMode = options.gradingMode ?? 'per-criterion'
  const passRule: PassRule = options.passRule ?? 'all'
  const concurrency = options.concurrency ?? 8
  const useCache = options.cache ?? true
  const heldOut = options.heldOut
  if (heldOut) {
    const problem = heldOutShareProblem(heldOut)
    if (problem) throw new TypeError(`verifiers.rubric(): ${problem}`)
    if (passRule !== 'all')
      throw new TypeError(
        "verifiers.rubric(): heldOut needs passRule 'all' (whether the visible criteria pass is not defined under a points threshold)",
      )
    if (mode !== 'per-criterion')
      throw new TypeError(
        "verifiers.rubric(): heldOut needs gradingMode 'per-criterion' (a grader that sees every criterion at once may name a held-out one in a visible one's reason)",
      )
  }
  const prompt = graderPrompt(mode)
  const predicateIds = Object.keys(predicates).sort()
  const counters = { graderCalls: 0, cacheHits: 0 }

  const problemsOf = (task: AnyTask): string[] => {
    let criteria: Criterion[] | undefined
    try {
      criteria = criteriaOf(task)
    } catch (error) {
      return [(error as Error).message]
    }
    if (!criteria) {
      return ['has no criteria: a rubric task needs `criteria: [{ id, text, check? }]`']
    }
    const problems: string[] = []
    const needsGrader = criteria.filter((c) => !Object.hasOwn(predicates, c.id) && !c.check).map((c) => c.id)
    if (needsGrader.length > 0 && !grader)
      problems.push(
        `criteria ${needsGrader.join(', ')} need a grader model (no check, no predicate): pass grader to verifiers.rubric()`,
      )
    if (passRule !== 'all') {
      const unweighted = criteria.filter((c) => c.points === undefined).map((c) => c.id)
      if (unweighted.length > 0)
        problems.push(`the points pass rule needs points on every criterion; ${unweighted.join(', ')} have none`)
      else if (!criteria.some((c) => (c.points ?? 0) > 0))
        problems.push('the points pass rule needs at least one criterion with positive points')
    }
    return problems
  }

  // Dedupes identical in-flight requests too: concurrent trajectories often grade the same answer.
  const cached = callCache<GradeResult>({
    enabled: useCache,
    onRun: () => counters.graderCalls++,
    onHit: () => counters.cacheHits++,
  })

  return {
    name: 'rubric',
    version: '1',
    settings: {
      grader: grader ? `${grader.descriptor.provider}:${grader.descriptor.model}` : null,
      graderParams: grader ? canonicalJson(grader.descriptor.params) : null,
      graderPrompt: prompt.id,
      gradingMode: mode,
      passRule: describePassRule(passRule),
      // The source of each predicate: a changed predicate changes verdicts, so the fingerprint.
      predicates:
        predicateIds.length === 0
          ? null
          : `${predicateIds.join(',')}#${sha256(predicateIds.map((id) => String(predicates[id])).join('\n')).slice(0, 8)}`,
      graderCache: useCache,
      ...(heldOut ? { heldOutShare: heldOut.share, heldOutSeed: heldOut.seed } : {}),
      // Only when chosen: the default rule is what every earlier fingerprint was made under.
      ...(options.score ? { score: options.score } : {}),
    },
    checkTask: problemsOf,
    normalise: (answer) => answer.trim(),
    stats: () => ({ ...counters }),
    async verify(task, answer, verifyOptions = {}): Promise<Verdict> {
      const started = performance.now()
      const { signal } = verifyOptions
      throwIfAborted(signal)
      const problems = problemsOf(task)
      if (problems.length > 0)
        throw new Error(`rubric verifier: task ${JSON.stringify(task.id)} ${problems.join('; ')}`)
      const criteria = criteriaOf(task)!
      const judged = new Map<string, CriterionJudgement & { checkedBy: 'code' | 'predicate' | 'grader' }>()
      const toGrade: [Criterion, number][] = []
      const empty = answer.trim() === ''
      criteria.forEach((c, i) => {
        const predicate = Object.hasOwn(predicates, c.id) ? predicates[c.id] : undefined
        if (predicate) {
          const returned: unknown = predicate(answer, task)
          const result =
            typeof returned === 'boolean'
              ? returned
              : checkReturned<ReturnType<CriterionPredicate>>(
                  typeof returned === 'object' && returned !== null && !isPromiseLike(returned)
                    ? PredicateObjectSchema
                    : z.boolean(),
                  returned,
                  () => predicateBreach(c.id, task.id),
                )
          judged.set(
            c.id,
            typeof result === 'boolean'
              ? { met: result, reason: result ? 'predicate holds' : 'predicate fails', checkedBy: 'predicate' }
              : { met: result.met, reason: result.reason ?? '', checkedBy: 'predicate' },
          )
        } else if (c.check) {
          judged.set(c.id, { ...runCheck(c.check, answer), checkedBy: 'code' })
        } else if (empty) {
          // Nothing to grade: no model call for an empty answer.
          judged.set(c.id, { met: false, reason: 'empty answer', checkedBy: 'grader' })
        } else {
          toGrade.push([c, i + 1])
        }
      })

      const calls: ModelCall[] = []
      if (toGrade.length > 0) {
        const conversation = taskMessages(task)
        // With the cache on, one grading serves every trajectory that asks for the same thing, so its
        // call must not be keyed (in cassettes) by whichever attempt happened to ask first: it is
        // attempt 0, repeat 0. With the cache off, each attempt's grading is its own call.
        const context: CallContext = {
          role: 'grader',
          taskId: task.id,
          attempt: useCache ? 0 : (verifyOptions.attempt ?? 0),
          repeat: useCache ? 0 : (verifyOptions.repeat ?? 0),
          protocol: 'sequential',
        }
        const request: GradeRequest = { grader: grader!, conversation, answer, context, signal }
        const keyBase = { grader: grader!.descriptor, prompt: prompt.id, conversation, answer }
        const results =
          mode === 'all-at-once'
            ? [await cached({ ...keyBase, criteria: toGrade }, () => gradeAll(request, toGrade))]
            : await gradePool(
                toGrade.map(
                  ([c, index]) =>
                    () =>
                      cached({ ...keyBase, criterion: c, index }, () => gradeOne(request, c, index)),
                ),
                concurrency,
              )
        for (const result of results) {
          calls.push(...result.calls)
          for (const [id, v] of result.verdicts) judged.set(id, { ...v, checkedBy: 'grader' })
        }
      }

      const verdicts: RubricCriterionVerdict[] = criteria.map((c) => {
        const j = judged.get(c.id)!
        const v = {
          id: c.id,
          text: c.text,
          met: j.met,
          ...(c.points !== undefined ? { points: c.points } : {}),
          ...(j.reason ? { reason: j.reason } : {}),
        }
        return { ...v, satisfied: criterionSatisfied(v), checkedBy: j.checkedBy }
      })
      const decision = decide(verdicts, passRule, options.score, new Map(criteria.map((c) => [c.id, c.tags ?? []])))
      const verdict: Verdict = {
        pass: decision.pass,
        score: decision.score,
        // `passed` exactly when it passes (the verdict contract): an empty answer can pass a rubric of penalties only.
        diagnostics: {
          outcome: decision.pass ? 'passed' : empty ? 'no-answer' : 'failed',
          summary: empty ? `empty answer; ${decision.summary}` : decision.summary,
        },
        criteria: verdicts,
        calls,
        durationMs: performance.now() - started,
      }
      return heldOut
        ? hideHeldOutCriteria(verdict, verdicts, heldOutIndices(task.id, verdicts.length, heldOut), empty)
        : verdict
    },
  }
}

/** The summary of a verdict whose visible criteria were all met but whose held-out criteria were not. */
export const HELD_OUT_CRITERIA_FAILED =
  'every visible criterion was met, but the answer failed criteria that feedback does not show'

/**
 * The verdict as feedback may see it: `criteria` keeps the visible ones only and the summary
 * counts only them (and says when held-out criteria failed, never which); `pass`, `score` and
 * `outcome` still come from every criterion, and `heldOut` records the split by criterion index.
 */
function hideHeldOutCriteria(
  verdict: Verdict,
  all: readonly RubricCriterionVerdict[],
  held: readonly number[],
  empty: boolean,
): Verdict {
  if (held.length === 0) return verdict
  const out = new Set(held)
  const visible = all.filter((_, i) => !out.has(i))
  const failed = held.filter((i) => !all[i]!.satisfied)
  const shown = decide(visible, 'all')
  const summary = shown.pass && failed.length > 0 ? `${shown.summary}; ${HELD_OUT_CRITERIA_FAILED}` : shown.summary
  return {
    ...verdict,
    diagnostics: { ...verdict.diagnostics, summary: empty ? `empty answer; ${summary}` : summary },
    criteria: visible,
    heldOut: { statements: all.length, tests: [...held], failed, visiblePass: shown.pass },
  }
}

/** A rubric verdict's criteria with their `satisfied` and `checkedBy` fields (typed before CriterionVerdictSchema declares them). */
export function rubricCriteria(verdict: Verdict): RubricCriterionVerdict[] {
  return (verdict.criteria ?? []) as RubricCriterionVerdict[]
}

/** The grader calls a rubric verdict carries (empty for code-only rubrics). */
export function verdictCalls(verdict: Verdict): ModelCall[] {
  return (verdict as Verdict & { calls?: ModelCall[] }).calls ?? []
}
