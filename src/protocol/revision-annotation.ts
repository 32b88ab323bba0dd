/**
 * Did the revision address the feedback? (paper §5.2.2, Figure 5b). A revision is attempt t + 1
 * answering attempt t's feedback; it is `unhelpful` when it satisfies none of the feedback's
 * requests, `some` when it satisfies at least one but not all, `all` when it satisfies every one.
 *
 * The derived annotator needs no model: where feedback is structured (verifier feedback) its
 * requests are the failing tests and unmet criteria the text named (`Attempt.feedback.requests`),
 * and the revision's own verdict says which of them it satisfies. Pure functions of a trajectory,
 * so `seqk summarize` recomputes them from trajectories.jsonl alone.
 */
import { criterionSatisfied, type Verdict } from '../core/contract.js'
import { REVISION_CLASSES, type Attempt, type RevisionAnnotation, type RevisionAnnotationSummary, type RevisionClass, type Trajectory } from '../core/schemas.js'
import { pooledShareInterval, type ClusterCount } from '../metrics/pooled-share.js'
import { intervalJson } from './interval-json.js'

/** The derived annotator's rule; it changes whenever a class would. */
export const DERIVED_ANNOTATOR_VERSION = 'derived/1'

/**
 * Whether a verdict satisfies one request: `test:<index>` when that test passed, `criterion:<id>`
 * when that criterion counts in the answer's favour ({@link criterionSatisfied}). Null when the
 * verdict does not report it (code that failed to load or ran out of time before the test ran
 * reports no outcome for it; an unknown id). The annotator fails closed: null counts as not
 * satisfied, so it never credits a revision with what its verdict did not show.
 *
 * @example
 * requestSatisfied('test:0', { pass: true, diagnostics: { outcome: 'passed', summary: '', tests: [{ index: 0, source: 'assert f()', pass: true }] } }) // => true
 */
export function requestSatisfied(request: string, verdict: Verdict): boolean | null {
  const colon = request.indexOf(':')
  const kind = request.slice(0, colon)
  const id = request.slice(colon + 1)
  if (colon > 0 && kind === 'test' && /^\d+$/.test(id)) {
    const index = Number(id)
    const test = verdict.diagnostics.tests?.find((t) => t.index === index)
    return test === undefined ? null : test.pass
  }
  if (colon > 0 && kind === 'criterion') {
    const criterion = verdict.criteria?.find((c) => c.id === id)
    return criterion === undefined ? null : criterionSatisfied(criterion)
  }
  return null
}

/** The class of a revision that satisfied `satisfied` of `requests` requests (requests ≥ 1). */
function classOf(satisfied: number, requests: number): RevisionClass {
  return satisfied === 0 ? 'unhelpful' : satisfied === requests ? 'all' : 'some'
}

/**
 * The derived annotation of `revision` against the feedback of the attempt before it, or null when
 * that feedback named no request (binary feedback, a critic's prose, a load error or timeout,
 * which name no test): there is nothing to check the revision against.
 *
 * @example
 * annotateRevision({ kind: 'verifier', text: '…', requests: ['test:1', 'test:2'] }, revision)
 * // => { annotator: 'derived', class: 'some', satisfied: ['test:1'], … } when only test 1 passes now
 */
export function annotateRevision(feedback: Attempt['feedback'], revision: Pick<Attempt, 'index' | 'verdict'>): RevisionAnnotation | null {
  const requests = [...new Set(feedback?.requests ?? [])]
  if (requests.length === 0) return null
  const satisfied: string[] = []
  const unobserved: string[] = []
  for (const request of requests) {
    const outcome = requestSatisfied(request, revision.verdict)
    if (outcome === null) unobserved.push(request)
    else if (outcome) satisfied.push(request)
  }
  return { annotator: 'derived', version: DERIVED_ANNOTATOR_VERSION, attempt: revision.index, requests, satisfied, unobserved, class: classOf(satisfied.length, requests.length) }
}

/**
 * Every revision of a trajectory the derived annotator can judge, in order. A revision needs the
 * attempt after the feedback: the last attempt's feedback (none is given) and an attempt that
 * ended in an infrastructure error (it has no verdict and is not in `attempts`) have no revision.
 *
 * @example
 * annotateTrajectory(trajectory).map((a) => a.class) // e.g. ['some', 'all']
 */
export function annotateTrajectory(trajectory: Pick<Trajectory, 'attempts'>): RevisionAnnotation[] {
  const out: RevisionAnnotation[] = []
  const { attempts } = trajectory
  for (let i = 0; i + 1 < attempts.length; i++) {
    const annotation = annotateRevision(attempts[i]!.feedback, attempts[i + 1]!)
    if (annotation) out.push(annotation)
  }
  return out
}

/**
 * A cell's revisions by class and the next-attempt success per class, from its counted
 * trajectories (pure). Shares are pooled over annotated revisions (the paper's estimand: 186 of 842
 * unhelpful), each with a Korn–Graubard interval for a ratio clustered by task
 * (`korn-graubard-ratio/1`): a task's revisions, over its attempts and repeats, are one cluster.
 * Null when no revision could be annotated (independent or binary cells, critic feedback).
 *
 * @example
 * summariseRevisionAnnotations(trajectories)?.classes.all.share.point // e.g. 0.44
 */
export function summariseRevisionAnnotations(trajectories: readonly Trajectory[]): RevisionAnnotationSummary | null {
  let revisions = 0
  let unobserved = 0
  // Per task, per class: revisions and those solved.
  const byTask = new Map<string, Record<RevisionClass, { revisions: number; solved: number }>>()
  for (const t of trajectories) {
    revisions += Math.max(0, t.attempts.length - 1)
    for (const annotation of annotateTrajectory(t)) {
      let counts = byTask.get(t.taskId)
      if (!counts) byTask.set(t.taskId, (counts = { unhelpful: { revisions: 0, solved: 0 }, some: { revisions: 0, solved: 0 }, all: { revisions: 0, solved: 0 } }))
      const bucket = counts[annotation.class]
      bucket.revisions++
      if (t.attempts.find((a) => a.index === annotation.attempt)?.verdict.pass) bucket.solved++
      if (annotation.unobserved.length > 0) unobserved++
    }
  }
  const tasks = [...byTask.values()]
  const annotated = tasks.reduce((n, c) => n + c.unhelpful.revisions + c.some.revisions + c.all.revisions, 0)
  if (annotated === 0) return null
  const total = (c: Record<RevisionClass, { revisions: number }>) => c.unhelpful.revisions + c.some.revisions + c.all.revisions
  const classSummary = (k: RevisionClass) => {
    const share: ClusterCount[] = tasks.map((c) => ({ hits: c[k].revisions, trials: total(c) }))
    const success: ClusterCount[] = tasks.map((c) => ({ hits: c[k].solved, trials: c[k].revisions }))
    return {
      revisions: share.reduce((n, c) => n + c.hits, 0),
      share: intervalJson(pooledShareInterval(share)),
      solved: success.reduce((n, c) => n + c.hits, 0),
      success: intervalJson(pooledShareInterval(success)),
    }
  }
  const classes = Object.fromEntries(REVISION_CLASSES.map((k) => [k, classSummary(k)])) as RevisionAnnotationSummary['classes']
  return { annotator: 'derived', version: DERIVED_ANNOTATOR_VERSION, revisions, annotatable: annotated, annotated, sampled: false, unobserved, classes }
}
