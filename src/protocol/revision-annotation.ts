/**
 * Did the revision address the feedback? (paper §5.2.2, Figure 5b). A revision is attempt t + 1
 * answering attempt t's feedback; it is `unhelpful` when it satisfies none of the feedback's
 * requests, `some` when it satisfies at least one but not all, `all` when it satisfies every one.
 *
 * The derived annotator needs no model: where feedback is structured (verifier feedback) its
 * requests are the failing tests and unmet criteria the text named (`Attempt.feedback.requests`),
 * and the revision's own verdict says which of them it satisfies. The LLM annotator
 * (feedback/annotator.ts) runs in the loop and stores its record on the revision's attempt
 * (`Attempt.annotation`). Everything here is a pure function of trajectories, so `seqk summarize`
 * recomputes it from trajectories.jsonl alone.
 */
import { criterionSatisfied, type Verdict } from '../core/contract.js'
import {
  REVISION_CLASSES,
  type AnnotationSample,
  type Attempt,
  type RevisionAnnotation,
  type RevisionAnnotationError,
  type RevisionAnnotationSummary,
  type RevisionClass,
  type Trajectory,
} from '../core/schemas.js'
import { sha256 } from '../core/fingerprint.js'
import type { ModelCall } from '../core/contract.js'
import { pooledShareInterval, type ClusterCount } from '../metrics/pooled-share.js'
import type { RevisionAnnotator } from '../feedback/annotator.js'
import { addCost } from './attempt.js'
import { intervalJson } from './interval-json.js'

/** The derived annotator's rule; it changes whenever a class would. */
export const DERIVED_ANNOTATOR_VERSION = 'derived/1'

/**
 * Whether a verdict satisfies one request: `test:<index>` when that test passed, `criterion:<id>`
 * when that criterion counts in the answer's favour ({@link criterionSatisfied}), `check:<name>`
 * when that check of a composed verifier passed. Null when the
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
  if (colon > 0 && kind === 'check') {
    const check = verdict.checks?.find((c) => c.name === id)
    return check === undefined ? null : check.pass
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
export function annotateRevision(
  feedback: Attempt['feedback'],
  revision: Pick<Attempt, 'index' | 'verdict'>,
): RevisionAnnotation | null {
  const requests = [...new Set(feedback?.requests ?? [])]
  if (requests.length === 0) return null
  const satisfied: string[] = []
  const unobserved: string[] = []
  for (const request of requests) {
    const outcome = requestSatisfied(request, revision.verdict)
    if (outcome === null) unobserved.push(request)
    else if (outcome) satisfied.push(request)
  }
  return {
    annotator: 'derived',
    version: DERIVED_ANNOTATOR_VERSION,
    attempt: revision.index,
    requests,
    satisfied,
    unobserved,
    class: classOf(satisfied.length, requests.length),
  }
}

/**
 * How a cell annotates its revisions (`seqEval`'s `annotate`, resolved): `derived` (the default)
 * keeps the requests structured feedback names, for the derived annotator; `off` keeps none, so
 * nothing is annotated; `llm` runs the LLM annotator on each revision (on `sample` of them, when
 * given: see {@link revisionSample}) and stores its record on the revision's attempt.
 */
export type AnnotateSpec =
  { kind: 'derived' } | { kind: 'off' } | { kind: 'llm'; annotator: RevisionAnnotator; sample?: number }

/** How a sample's revision slots are ranked (see {@link revisionSample}). */
export const ANNOTATION_SAMPLE_METHOD = 'hash-rank/1'

/** A cell's drawn revision slots: `has` says whether a revision is in the sample. */
export interface RevisionSample {
  sample: AnnotationSample
  has(taskId: string, repeat: number, attempt: number): boolean
}

/**
 * The revisions a cell annotates under `annotate: { sample: size }`: `size` of its revision slots
 * (every task × repeat × attempt 2..K, over the whole benchmark), those with the smallest hash of
 * task id, repeat and attempt (`hash-rank/1`). Each slot is drawn with the same probability and
 * the draw depends on nothing the run does, so a rerun, a resume or a shard draws the same slots,
 * and two cells (two actors) draw the same ones. A trajectory stops at its first success, so some
 * drawn slots hold no revision: fewer than `size` revisions are annotated, an equal-probability
 * sample of those that occurred (`annotated` of `annotatable` in the summary).
 *
 * @example
 * const drawn = revisionSample(['t1', 't2'], 3, 5, 10)
 * drawn.sample // { size: 10, slots: 24, method: 'hash-rank/1' }
 * drawn.has('t1', 0, 2) // true or false, the same on every run
 */
export function revisionSample(
  taskIds: readonly string[],
  repeats: number,
  budget: number,
  size: number,
): RevisionSample {
  const key = (taskId: string, repeat: number, attempt: number) => `${taskId}\u0000${repeat}\u0000${attempt}`
  const slots: { key: string; rank: string }[] = []
  for (const taskId of taskIds) {
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (let attempt = 2; attempt <= budget; attempt++) {
        const k = key(taskId, repeat, attempt)
        slots.push({ key: k, rank: sha256(`${ANNOTATION_SAMPLE_METHOD}\u0000${k}`) })
      }
    }
  }
  slots.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.key < b.key ? -1 : 1))
  const drawn = new Set(slots.slice(0, size).map((s) => s.key))
  return {
    sample: { size, slots: slots.length, method: ANNOTATION_SAMPLE_METHOD },
    has: (taskId, repeat, attempt) => drawn.has(key(taskId, repeat, attempt)),
  }
}

/** A stored LLM record that failed (see RevisionAnnotationErrorSchema). */
export function isAnnotationError(record: Attempt['annotation']): record is RevisionAnnotationError {
  return record !== undefined && 'error' in record
}

/** Whether any attempt of these trajectories carries an LLM annotator's record (a success or a failure). */
function hasLlmRecords(trajectories: readonly Pick<Trajectory, 'attempts'>[]): boolean {
  return trajectories.some((t) => t.attempts.some((a) => a.annotation?.annotator === 'llm'))
}

/**
 * Every revision of a trajectory an annotator judged, in order. `llm`: the records the LLM
 * annotator stored on the revisions (its failures left out); `derived`: the derived annotation of
 * each revision whose previous feedback named requests. By default the LLM's when the trajectory
 * has any, else the derived ones. A revision needs the attempt after the feedback: the last
 * attempt's feedback (none is given) and an attempt that ended in an infrastructure error (it has
 * no verdict and is not in `attempts`) have no revision.
 *
 * @example
 * annotateTrajectory(trajectory).map((a) => a.class) // e.g. ['some', 'all']
 */
export function annotateTrajectory(
  trajectory: Pick<Trajectory, 'attempts'>,
  annotator: 'derived' | 'llm' = hasLlmRecords([trajectory]) ? 'llm' : 'derived',
): RevisionAnnotation[] {
  const out: RevisionAnnotation[] = []
  const { attempts } = trajectory
  for (let i = 0; i + 1 < attempts.length; i++) {
    const revision = attempts[i + 1]!
    if (annotator === 'llm') {
      const stored = revision.annotation
      if (stored && !isAnnotationError(stored) && stored.annotator === 'llm') out.push(stored)
      continue
    }
    const annotation = annotateRevision(attempts[i]!.feedback, revision)
    if (annotation) out.push(annotation)
  }
  return out
}

type Descriptor = Trajectory['protocol']['actor']

// Providers that are one vendor's models; elsewhere (a local server, a gateway) the model name says.
const VENDORS = new Set(['openai', 'anthropic', 'google', 'gemini', 'mistral', 'deepseek', 'xai', 'cohere'])

/** A model's family for the self-annotation warning: its vendor, else the first word of its name (`qwen2.5-coder` → `qwen`). */
export function modelFamily(provider: string, model: string): string {
  if (VENDORS.has(provider)) return provider
  const name = model.split('/').pop() ?? model
  return (/^[a-z]+/i.exec(name)?.[0] ?? name).toLowerCase()
}

/**
 * The self-annotation caution (the reading notes on the paper's Appendix D.2: its annotator was
 * of the same family as three of its actors): an annotator of the actor's own model or family
 * judges its own kind, and may credit revisions it would itself have written. Undefined otherwise.
 *
 * @example
 * selfAnnotationNote('anthropic:claude-opus-4-5', { provider: 'anthropic', model: 'claude-haiku-4-5', params: {} })
 * // 'the annotator anthropic:claude-opus-4-5 is of the actor's family (anthropic): …'
 */
export function selfAnnotationNote(annotatorModel: string, actor: Descriptor): string | undefined {
  const colon = annotatorModel.indexOf(':')
  const provider = annotatorModel.slice(0, colon)
  const model = annotatorModel.slice(colon + 1)
  const risk =
    'it judges its own kind and may credit revisions it would have written itself (self-annotation); prefer an annotator of another family'
  if (provider === actor.provider && model === actor.model)
    return `the annotator ${annotatorModel} is the actor's own model: ${risk}`
  const family = modelFamily(provider, model)
  if (family === modelFamily(actor.provider, actor.model))
    return `the annotator ${annotatorModel} is of the actor's family (${family}): ${risk}`
  return undefined
}

const joined = (values: Iterable<string>) => [...new Set(values)].sort().join(' + ')

/**
 * A cell's revisions by class and the next-attempt success per class, from its counted
 * trajectories (pure). When any revision carries a stored LLM annotation the cell is summarised
 * from those (the LLM annotator's; its failures counted in `errors`, revisions outside a sample
 * not annotated), otherwise with the derived annotator. Shares are pooled over annotated
 * revisions (the paper's estimand: 186 of 842 unhelpful), each with a Korn–Graubard interval for
 * a ratio clustered by task (`korn-graubard-ratio/1`): a task's revisions, over its attempts and
 * repeats, are one cluster. Null when no revision was annotated (independent or binary cells,
 * critic feedback without an LLM annotator).
 *
 * @example
 * summariseRevisionAnnotations(trajectories)?.classes.all.share.point // e.g. 0.44
 */
export function summariseRevisionAnnotations(trajectories: readonly Trajectory[]): RevisionAnnotationSummary | null {
  const annotator = hasLlmRecords(trajectories) ? 'llm' : 'derived'
  let revisions = 0
  let annotatable = 0
  let unobserved = 0
  let errors = 0
  let sample: AnnotationSample | undefined
  const calls: ModelCall[] = []
  const models = new Set<string>()
  const versions = new Set<string>()
  // Per task, per class: revisions and those solved.
  const byTask = new Map<string, Record<RevisionClass, { revisions: number; solved: number }>>()
  for (const t of trajectories) {
    const n = Math.max(0, t.attempts.length - 1)
    revisions += n
    if (annotator === 'llm') {
      // Every revision answers some feedback, which the LLM annotator can read.
      annotatable += n
      for (const a of t.attempts.slice(1)) {
        const stored = a.annotation
        if (stored?.annotator !== 'llm') continue
        calls.push(...(stored.calls ?? []))
        if (stored.model) models.add(stored.model)
        versions.add(stored.version)
        sample ??= stored.sample
        if (isAnnotationError(stored)) errors++
      }
    }
    const annotations = annotateTrajectory(t, annotator)
    if (annotator === 'derived') annotatable += annotations.length
    for (const annotation of annotations) {
      let counts = byTask.get(t.taskId)
      if (!counts)
        byTask.set(
          t.taskId,
          (counts = {
            unhelpful: { revisions: 0, solved: 0 },
            some: { revisions: 0, solved: 0 },
            all: { revisions: 0, solved: 0 },
          }),
        )
      const bucket = counts[annotation.class]
      bucket.revisions++
      if (t.attempts.find((a) => a.index === annotation.attempt)?.verdict.pass) bucket.solved++
      if (annotation.unobserved.length > 0) unobserved++
    }
  }
  const tasks = [...byTask.values()]
  const annotated = tasks.reduce((n, c) => n + c.unhelpful.revisions + c.some.revisions + c.all.revisions, 0)
  if (annotated === 0 && errors === 0) return null
  const total = (c: Record<RevisionClass, { revisions: number }>) =>
    c.unhelpful.revisions + c.some.revisions + c.all.revisions
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
  const classes = Object.fromEntries(
    REVISION_CLASSES.map((k) => [k, classSummary(k)]),
  ) as RevisionAnnotationSummary['classes']
  if (annotator === 'derived')
    return {
      annotator,
      version: DERIVED_ANNOTATOR_VERSION,
      revisions,
      annotatable,
      annotated,
      sampled: false,
      unobserved,
      classes,
    }
  const model = joined(models)
  const actor = trajectories[0]?.protocol.actor
  const note = actor ? [...models].map((m) => selfAnnotationNote(m, actor)).find((n) => n !== undefined) : undefined
  return {
    annotator,
    version: joined(versions),
    model,
    revisions,
    annotatable,
    annotated,
    sampled: sample !== undefined,
    unobserved,
    errors,
    ...(sample ? { sample } : {}),
    calls: calls.length,
    costUsd: calls.reduce<number | null>((sum, c) => addCost(sum, c.costUsd), 0),
    ...(note ? { note } : {}),
    classes,
  }
}
