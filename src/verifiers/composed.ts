/**
 * Several checks on one answer, in one verifier: `verifiers.all([...])` (every check must pass),
 * `verifiers.any([...])` (one is enough) and `verifiers.weighted([...], { threshold })` (the
 * passing checks' share of the weight must reach the threshold). An extraction task checks "valid
 * JSON, the total equals X, the date matches a pattern" in one cell, with one model call per
 * attempt, instead of one `seqEval` block (and one set of calls) per check.
 *
 * Every check runs on every attempt, so the verdict records each one's own verdict (`checks`), the
 * feedback names each failed one with its diagnostics, and the derived revision annotator can tell
 * which failed checks a revision fixed (`check:<name>`).
 */
import { canonicalJson } from '../core/fingerprint.js'
import { isPromiseLike, type Awaitable } from '../core/awaitable.js'
import type { CheckVerdict, ModelCall } from '../core/contract.js'
import type { AnyTask } from '../core/task.js'
import { withSpentCalls } from '../models/chat-model.js'
import { shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { checkVerdict, type Diagnostics, type Verdict, type Verifier, type VerifyOptions } from './verifier.js'

/** One check of a composed verifier: a verifier, or a verifier with a name (and, for `weighted`, a weight). */
export type Check = Verifier | { name?: string; verifier: Verifier; weight?: number }

/** The options of `verifiers.weighted()`. */
export interface WeightedOptions {
  /**
   * The share of the total weight the passing checks must reach to pass, above 0 and at most 1:
   * with weights 2, 1, 1 and `threshold: 0.75`, the first check and one other.
   */
  threshold: number
}

/** How a composition decides: its name is the verifier's name in the protocol. */
type Rule = 'all' | 'any' | 'weighted'

interface Part {
  name: string
  verifier: Verifier
  weight: number
}

const NAME = /^[\w.:/@()[\]"$ -]{1,100}$/

const isVerifier = (value: unknown): value is Verifier =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Verifier).verify === 'function' &&
  typeof (value as Verifier).name === 'string'

/** A check's default name: a predicate's rule name, else its verifier's with the field it reads (`numeric(total)`). */
function defaultName(verifier: Verifier): string {
  const { path, rule } = verifier.settings
  if (verifier.name === 'predicate' && typeof rule === 'string') return rule
  return typeof path === 'string' ? `${verifier.name}(${path})` : verifier.name
}

/** The checks as given, each with a unique name and a weight; a TypeError naming the check and the fix otherwise. */
function partsOf(where: string, checks: unknown, weighted: boolean): Part[] {
  if (!Array.isArray(checks) || checks.length === 0)
    throw new TypeError(
      `${where}: give a non-empty list of checks (verifiers, or { name, verifier${weighted ? ', weight' : ''} }), got ${shown(checks)}`,
    )
  const taken = new Map<string, number>()
  return checks.map((check: unknown, i) => {
    const at = `${where}: check ${i + 1}`
    const given: { name?: unknown; verifier?: unknown; weight?: unknown } = isVerifier(check)
      ? { verifier: check }
      : typeof check === 'object' && check !== null
        ? (check as Record<string, unknown>)
        : {}
    if (!isVerifier(given.verifier))
      throw new TypeError(
        `${at} is not a verifier (an object with name, version, settings and verify) nor { name, verifier }: got ${shown(check)}`,
      )
    if (!isVerifier(check)) rejectUnknownOptions(at, check as Record<string, unknown>, ['name', 'verifier', 'weight'])
    const verifier = given.verifier
    if (given.name !== undefined && (typeof given.name !== 'string' || !NAME.test(given.name)))
      throw new TypeError(
        `${at}: name must be 1 to 100 letters, digits, spaces or . _ : / @ ( ) [ ] " $ -, got ${shown(given.name)}`,
      )
    let weight = 1
    if (given.weight !== undefined) {
      if (!weighted) throw new TypeError(`${at}: weight is for verifiers.weighted(); all() and any() take none`)
      if (typeof given.weight !== 'number' || !Number.isFinite(given.weight) || given.weight <= 0)
        throw new TypeError(`${at}: weight must be a finite number above 0, got ${shown(given.weight)}`)
      weight = given.weight
    }
    // Two checks of one kind on one field (or none) get #2, #3: the names are the requests and the record's keys.
    const base = (given.name as string | undefined) ?? defaultName(verifier)
    const seen = (taken.get(base) ?? 0) + 1
    taken.set(base, seen)
    if (seen > 1 && given.name !== undefined)
      throw new TypeError(`${at}: the name ${JSON.stringify(base)} is taken by an earlier check; names must be unique`)
    return { name: seen === 1 ? base : `${base}#${seen}`, verifier, weight }
  })
}

/** The settings a composition is fingerprinted by: each check's name, kind (verifier name and version), settings and weight. */
function compositionSettings(parts: readonly Part[], weighted: boolean): string {
  return canonicalJson(
    parts.map((p) => ({
      name: p.name,
      verifier: p.verifier.name,
      version: p.verifier.version,
      settings: p.verifier.settings,
      ...(weighted ? { weight: p.weight } : {}),
    })),
  )
}

/** A check's verdict as the composed verdict records it (its calls move to the composed verdict). */
function checkRecord(part: Part, verdict: Verdict, weighted: boolean): CheckVerdict {
  const record: CheckVerdict = {
    name: part.name,
    verifier: `${part.verifier.name}@${part.verifier.version}`,
    pass: verdict.pass,
    diagnostics: verdict.diagnostics,
  }
  if (verdict.score !== undefined) record.score = verdict.score
  if (weighted) record.weight = part.weight
  if (verdict.extracted !== undefined) record.extracted = verdict.extracted
  if (verdict.criteria !== undefined) record.criteria = verdict.criteria
  return record
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
/** The share with at most two decimals, as a number a person reads (0.75, not 0.7500000001). */
const share = (x: number) => String(Number(x.toFixed(2)))

/** The one-line summary of a composed verdict: which checks failed and why, each by name. */
function summaryOf(
  rule: Rule,
  records: readonly CheckVerdict[],
  pass: boolean,
  score: number,
  threshold: number,
): string {
  const failed = records.filter((r) => !r.pass)
  const why = failed.map((r) => `${r.name}: ${r.diagnostics.summary}`).join('; ')
  const total = records.length
  if (rule === 'all')
    return pass ? `all ${plural(total, 'check')} pass` : `${failed.length} of ${plural(total, 'check')} failed: ${why}`
  if (rule === 'any') {
    const passed = records.filter((r) => r.pass).map((r) => r.name)
    return pass
      ? `${passed.length} of ${plural(total, 'check')} pass${passed.length === 1 ? 'es' : ''} (${passed.join(', ')})`
      : `none of the ${plural(total, 'check')} passes: ${why}`
  }
  const reached = `the passing checks hold ${share(score)} of the weight, the threshold is ${share(threshold)}`
  return failed.length === 0 ? `${reached}: all ${plural(total, 'check')} pass` : `${reached}; failed: ${why}`
}

/** The outcome of a failed composition: the failed checks' own when they share one, else `failed`. */
function failedOutcome(records: readonly CheckVerdict[]): Diagnostics['outcome'] {
  const outcomes = new Set(records.filter((r) => !r.pass).map((r) => r.diagnostics.outcome))
  const [only] = outcomes
  return outcomes.size === 1 && only !== undefined && only !== 'passed' ? only : 'failed'
}

/** The composed verdict from every check's verdict. */
function composedVerdict(rule: Rule, parts: readonly Part[], verdicts: readonly Verdict[], threshold: number): Verdict {
  const weighted = rule === 'weighted'
  const records = parts.map((part, i) => checkRecord(part, verdicts[i]!, weighted))
  const totalWeight = parts.reduce((n, p) => n + p.weight, 0)
  const passedWeight = parts.reduce((n, p, i) => n + (verdicts[i]!.pass ? p.weight : 0), 0)
  const score = passedWeight / totalWeight
  // A tolerance of a few ulps: weights 0.1 + 0.2 of 0.3 reach a threshold of 1.
  const pass =
    rule === 'all'
      ? verdicts.every((v) => v.pass)
      : rule === 'any'
        ? verdicts.some((v) => v.pass)
        : score >= threshold - 1e-12
  const verdict: Verdict = {
    pass,
    score,
    diagnostics: {
      outcome: pass ? 'passed' : failedOutcome(records),
      summary: summaryOf(rule, records, pass, score, threshold),
    },
    checks: records,
  }
  const calls = verdicts.flatMap((v) => v.calls ?? [])
  if (calls.length > 0) verdict.calls = calls
  const sandboxes = new Set(verdicts.flatMap((v) => (v.sandbox ? [v.sandbox] : [])))
  if (sandboxes.size > 0) verdict.sandbox = sandboxes.has('none') ? 'none' : 'bwrap'
  // One held-out record can be kept as it is; two would need a merge no reader expects.
  const heldOut = verdicts.flatMap((v) => (v.heldOut ? [v.heldOut] : []))
  if (heldOut.length === 1) verdict.heldOut = heldOut[0]
  return verdict
}

/** Builds the composed verifier: every check on every answer, their verdicts checked and combined. */
function composed(rule: Rule, where: string, parts: readonly Part[], threshold: number): Verifier {
  const weighted = rule === 'weighted'
  const first = parts.find((p) => p.verifier.normalise)?.verifier
  return {
    name: rule,
    version: '1',
    settings: {
      checks: compositionSettings(parts, weighted),
      ...(weighted ? { threshold } : {}),
    },
    checkTask(task: AnyTask) {
      return parts.flatMap((p) =>
        (p.verifier.checkTask?.(task) ?? []).map((problem) => `${where} ${p.name}: ${problem}`),
      )
    },
    // Unmodified revisions are judged as the first check that normalises reads the answer (the JSON, the code).
    normalise: (answer) => (first?.normalise ? first.normalise(answer) : answer.trim()),
    verify(task: AnyTask, answer: string, options?: VerifyOptions): Awaitable<Verdict> {
      const at = options?.attempt === undefined ? undefined : { taskId: task.id, attempt: options.attempt }
      const given: Awaitable<Verdict>[] = []
      let thrown: { error: unknown } | undefined
      for (const part of parts) {
        try {
          given.push(part.verifier.verify(task, answer, options))
        } catch (error) {
          thrown ??= { error }
          given.push(Promise.reject(error))
        }
      }
      const combine = (values: readonly unknown[]) =>
        composedVerdict(
          rule,
          parts,
          values.map((v, i) => checkVerdict(parts[i]!.verifier, v, at)),
          threshold,
        )
      // The hot path: every check answered at once (the short-answer verifiers do).
      if (thrown === undefined && !given.some(isPromiseLike)) return combine(given)
      return Promise.allSettled(given).then((settled) => {
        const failure = settled.find((s) => s.status === 'rejected')
        if (failure === undefined) return combine(settled.map((s) => (s as PromiseFulfilledResult<Verdict>).value))
        // A check that broke (its interpreter, its grader) is an infrastructure error; the other checks' spend is kept.
        const spent: ModelCall[] = settled.flatMap((s) =>
          s.status === 'fulfilled' ? ((s.value as Partial<Verdict> | undefined)?.calls ?? []) : [],
        )
        throw withSpentCalls(failure.reason, spent)
      })
    },
  }
}

/**
 * A verifier that passes an answer only when every check passes. Every check runs on every
 * answer; the verdict records each one's verdict (`checks`), its summary names each failed check
 * with its reason, and `feedback.verifier()` shows each failed check's diagnostics under its name.
 * Its score is the share of checks passed. A check is a verifier, or `{ name, verifier }` to name
 * it (default: the verifier's name, with the field it reads: `numeric(total)`; a predicate's rule name).
 *
 * In the protocol it is verifier `all` whose settings list each check's name, verifier, version
 * and settings, so changing any check changes the fingerprint.
 *
 * @example
 * verifier: verifiers.all([
 *   verifiers.json({ schema: z.object({ total: z.number(), date: z.string() }) }),
 *   verifiers.numeric({ path: 'total', tolerance: 0.005 }),
 *   verifiers.regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
 * ])
 */
export function all(checks: readonly Check[]): Verifier {
  return composed('all', 'verifiers.all()', partsOf('verifiers.all()', checks, false), 1)
}

/**
 * A verifier that passes an answer when at least one check passes (every check still runs, so
 * the record and the feedback show each). Its score is the share of checks passed; its settings
 * list each check as {@link all}'s do.
 *
 * @example
 * verifier: verifiers.any([verifiers.exactMatch({ path: 'answer' }), verifiers.exactMatch({ ignoreCase: true })])
 */
export function any(checks: readonly Check[]): Verifier {
  return composed('any', 'verifiers.any()', partsOf('verifiers.any()', checks, false), 1)
}

/**
 * A verifier that scores an answer by the weights of the checks it passes, as a share of the
 * total weight (its `score`), and passes it when that share reaches `threshold`. A check counts
 * its whole weight when it passes and none when it fails. Each check is `{ verifier, weight }`
 * (weight default 1, and an optional `name`); the weights and the threshold are part of the
 * settings (the fingerprint).
 *
 * @example
 * verifier: verifiers.weighted(
 *   [
 *     { verifier: verifiers.numeric({ path: 'total' }), weight: 2 },
 *     { verifier: verifiers.exactMatch({ path: 'currency' }), weight: 1 },
 *     { verifier: verifiers.regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }), weight: 1 },
 *   ],
 *   { threshold: 0.75 }, // the total and one of the others
 * )
 */
export function weighted(checks: readonly Check[], options: WeightedOptions): Verifier {
  const where = 'verifiers.weighted()'
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`${where}: give { threshold } as the second argument, e.g. { threshold: 0.75 }`)
  rejectUnknownOptions(where, options as unknown as Record<string, unknown>, ['threshold'])
  const threshold = options.threshold
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1))
    throw new TypeError(
      `${where}: threshold must be a number above 0 and at most 1 (the share of the weight the passing checks must hold), got ${shown(threshold)}`,
    )
  return composed('weighted', where, partsOf(where, checks, true), threshold)
}
