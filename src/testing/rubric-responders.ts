// Rule-based responders for rubric work: a deterministic grader, critic, summariser and revision
// annotator the test server can play, so rubric evals and tests run offline through the real SDKs.
// They read the prompts `verifiers.rubric()`, `feedback.critic()`, the `summary` history policy and
// the LLM revision annotator (`annotate: { model }`) send.
import type { ChatModel } from '../models/chat-model.js'
import { openaiCompatibleModel } from '../models/providers/openai.js'
import { jsonBody, wordCount, type CriterionJudgement } from '../verifiers/rubric/checks.js'
import { lastUserMessage } from './responders.js'
import type { Responder, TestServer, TestServerRequest } from './types.js'

/** A criterion as a grader or critic prompt shows it. */
export interface PromptCriterion {
  id: string
  text: string
  points?: number
  /** 1-based position in the task's rubric, when the prompt gives it. */
  index?: number
}

/** What a rubric-related request asks, read back from our prompts. */
export type RubricRequest =
  | {
      kind: 'grader'
      mode: 'per-criterion' | 'all-at-once'
      conversation: string
      response: string
      criteria: PromptCriterion[]
      repair: boolean
    }
  | {
      kind: 'critic'
      rubric: 'aware' | 'blind'
      style: 'directive' | 'socratic'
      conversation: string
      answer: string
      criteria: PromptCriterion[]
    }
  | { kind: 'summariser'; attempts: { answer: string; feedback: string }[] }
  | { kind: 'annotator'; conversation: string; previous: string; feedback: string; revision: string; repair: boolean }

function between(text: string, open: string, close: string, closeFollowedBy?: string): string | undefined {
  const start = text.indexOf(open)
  if (start < 0) return undefined
  const from = start + open.length
  // The last closing tag (followed by the next block, when known): an answer may itself contain the tag.
  const end = closeFollowedBy ? text.lastIndexOf(close + closeFollowedBy) : text.lastIndexOf(close)
  return end >= from ? text.slice(from, end) : undefined
}

function unescapeAttr(value: string): string {
  return value
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
}

/** Every `<criterion …>text</criterion>` line of a prompt block. */
export function parseCriteria(block: string): PromptCriterion[] {
  const out: PromptCriterion[] = []
  for (const m of block.matchAll(/<criterion ([^>]*)>([\s\S]*?)<\/criterion>/g)) {
    const attrs = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((a) => [a[1]!, unescapeAttr(a[2]!)]))
    if (attrs.id === undefined) continue
    out.push({
      id: attrs.id,
      text: m[2]!,
      ...(attrs.points !== undefined ? { points: Number(attrs.points) } : {}),
      ...(attrs.index !== undefined ? { index: Number(attrs.index) } : {}),
    })
  }
  return out
}

/**
 * Reads a request to a grader, critic or summariser back from our prompts, or returns undefined
 * for anything else (an actor's request).
 *
 * @example
 * const parsed = parseRubricRequest(request)
 * if (parsed?.kind === 'grader') parsed.criteria.map((c) => c.id)
 */
export function parseRubricRequest(request: TestServerRequest): RubricRequest | undefined {
  const system = request.messages.find((m) => m.role === 'system')?.content ?? ''
  const users = request.messages.filter((m) => m.role === 'user')
  const main = users[0]?.content ?? ''
  if (system.startsWith('You annotate revisions.')) {
    return {
      kind: 'annotator',
      conversation: between(main, '<conversation>\n', '\n</conversation>', '\n\n<previous_answer>') ?? '',
      previous: between(main, '<previous_answer>\n', '\n</previous_answer>', '\n\n<feedback>') ?? '',
      feedback: between(main, '<feedback>\n', '\n</feedback>', '\n\n<revision>') ?? '',
      revision: between(main, '<revision>\n', '\n</revision>') ?? '',
      repair: users.length > 1,
    }
  }
  if (system.startsWith('You summarise earlier attempts')) {
    const attempts: { answer: string; feedback: string }[] = []
    for (const m of main.matchAll(
      /### Attempt (\d+)\n([\s\S]*?)\n\n### Feedback on attempt \1\n([\s\S]*?)(?=\n\n### Attempt \d+\n|$)/g,
    ))
      attempts.push({ answer: m[2]!, feedback: m[3]! })
    return { kind: 'summariser', attempts }
  }
  if (main.includes('<response>\n') && main.includes('<criteria>\n')) {
    const response = between(main, '<response>\n', '\n</response>', '\n\n<criteria>') ?? ''
    const criteria = parseCriteria(between(main, '<criteria>\n', '\n</criteria>') ?? '')
    const conversation = between(main, '<conversation>\n', '\n</conversation>', '\n\n<response>') ?? ''
    return {
      kind: 'grader',
      mode: system.includes('"criteria": [') ? 'all-at-once' : 'per-criterion',
      conversation,
      response,
      criteria,
      repair: users.length > 1,
    }
  }
  if (main.includes('<attempt>\n')) {
    const hasRubric = main.includes('\n<rubric>\n')
    const answer = between(main, '<attempt>\n', '\n</attempt>', hasRubric ? '\n\n<rubric>' : undefined) ?? ''
    const conversation = between(main, '<conversation>\n', '\n</conversation>', '\n\n<attempt>') ?? ''
    const criteria = hasRubric ? parseCriteria(between(main, '\n<rubric>\n', '\n</rubric>') ?? '') : []
    return {
      kind: 'critic',
      rubric: hasRubric ? 'aware' : 'blind',
      style: /socratic/i.test(system) ? 'socratic' : 'directive',
      conversation,
      answer,
      criteria,
    }
  }
  return undefined
}

const NEGATION = /\b(does not|doesn't|do not|don't|must not|never|avoids?|without|no mention of)\b/i

/**
 * A deterministic judge of criterion texts written in a small controlled language — the one the
 * bundled rubric fixtures use, and the same meaning the verifier's code checks give:
 *
 * - `… at most N words` / `… at least N words` (counted like the `max-words` check),
 * - `… valid JSON …` (like the `json` check),
 * - `Starts with "X"` / `Ends with "X"` (case-insensitive, surrounding whitespace ignored),
 * - `Does not mention "X"` (also: never, avoids, must not, without) — none of the quoted phrases,
 * - any other text with quoted phrases (`"X"` or `“X”`) — every phrase appears, case-insensitive.
 *
 * Returns undefined for a criterion outside this language.
 *
 * @example
 * ruleJudge('Mentions "stainless steel"', 'Made of stainless steel.') // { met: true, reason: 'contains "stainless steel"' }
 */
export function ruleJudge(text: string, answer: string): CriterionJudgement | undefined {
  const max = /\bat most (\d+) words\b/i.exec(text)
  if (max) {
    const n = wordCount(answer)
    return { met: n <= Number(max[1]), reason: `${n} words (limit ${max[1]})` }
  }
  const min = /\bat least (\d+) words\b/i.exec(text)
  if (min) {
    const n = wordCount(answer)
    return { met: n >= Number(min[1]), reason: `${n} words (minimum ${min[1]})` }
  }
  if (/\bvalid JSON\b/i.test(text)) {
    try {
      JSON.parse(jsonBody(answer))
      return { met: true, reason: 'valid JSON' }
    } catch {
      return { met: false, reason: 'not valid JSON' }
    }
  }
  const phrases = [...text.matchAll(/"([^"]+)"|“([^”]+)”/g)].map((m) => m[1] ?? m[2]!)
  if (phrases.length === 0) return undefined
  const lower = answer.toLowerCase()
  const shown = phrases.map((p) => JSON.stringify(p)).join(', ')
  if (/\b(starts|begins) with\b/i.test(text)) {
    const met = lower.trimStart().startsWith(phrases[0]!.toLowerCase())
    return { met, reason: met ? `starts with ${shown}` : `does not start with ${shown}` }
  }
  if (/\bends with\b/i.test(text)) {
    const met = lower.trimEnd().endsWith(phrases[0]!.toLowerCase())
    return { met, reason: met ? `ends with ${shown}` : `does not end with ${shown}` }
  }
  const present = phrases.filter((p) => lower.includes(p.toLowerCase()))
  if (NEGATION.test(text)) {
    const met = present.length === 0
    return {
      met,
      reason: met ? `does not contain ${shown}` : `contains ${present.map((p) => JSON.stringify(p)).join(', ')}`,
    }
  }
  const missing = phrases.filter((p) => !present.includes(p))
  return {
    met: missing.length === 0,
    reason:
      missing.length === 0
        ? `contains ${shown}`
        : `does not contain ${missing.map((p) => JSON.stringify(p)).join(', ')}`,
  }
}

/**
 * A judge for `rubricGrader` / `rubricCritic`: sees one criterion and the answer; returns a
 * judgement, a bare boolean, or undefined when it has no opinion.
 */
export type CriterionJudge = (criterion: PromptCriterion, answer: string) => CriterionJudgement | boolean | undefined

/** The options of the rule-based grader and critic responders of the test server. */
export interface RuleOptions {
  /** Judges each criterion (default: {@link ruleJudge} on the criterion text). */
  judge?: CriterionJudge
  /** The verdict for a criterion the judge has no opinion on (default: throw, so the server answers 500). */
  fallback?: boolean
}

function judgeWith(options: RuleOptions, criterion: PromptCriterion, answer: string): CriterionJudgement {
  const raw = options.judge ? options.judge(criterion, answer) : ruleJudge(criterion.text, answer)
  if (typeof raw === 'boolean') return { met: raw, reason: raw ? 'met' : 'not met' }
  if (raw) return raw
  if (options.fallback !== undefined) return { met: options.fallback, reason: 'no rule for this criterion' }
  throw new Error(
    `rubric grader: no rule judges criterion ${criterion.id} (${JSON.stringify(criterion.text.slice(0, 80))}); pass a judge or a fallback`,
  )
}

function graderReply(parsed: Extract<RubricRequest, { kind: 'grader' }>, verdicts: CriterionJudgement[]): string {
  if (parsed.mode === 'per-criterion') return JSON.stringify({ met: verdicts[0]!.met, reason: verdicts[0]!.reason })
  return JSON.stringify({
    criteria: parsed.criteria.map((c, i) => ({ id: c.id, met: verdicts[i]!.met, reason: verdicts[i]!.reason })),
  })
}

function expectGrader(request: TestServerRequest, who: string): Extract<RubricRequest, { kind: 'grader' }> {
  const parsed = parseRubricRequest(request)
  if (parsed?.kind !== 'grader' || parsed.criteria.length === 0)
    throw new Error(
      `${who}: request #${request.index} is not a rubric grader request (last user message ${JSON.stringify(lastUserMessage(request).slice(0, 80))})`,
    )
  return parsed
}

/**
 * A deterministic grader: judges every criterion of a `verifiers.rubric()` grader request with
 * `judge` (default {@link ruleJudge}) and answers in the JSON shape the prompt asks for.
 *
 * @example
 * const server = await startTestServer({ responder: rubricGrader({ fallback: false }) })
 * const verifier = verifiers.rubric({ grader: testServerModel(server, { model: 'rule-grader' }) })
 */
export function rubricGrader(options: RuleOptions = {}): Responder {
  return (request) => {
    const parsed = expectGrader(request, 'rubricGrader')
    return graderReply(
      parsed,
      parsed.criteria.map((c) => judgeWith(options, c, parsed.response)),
    )
  }
}

/** One scripted grading: the verdicts for an answer (or for any answer, with no `answer`). */
export interface ScriptedGrading {
  /** Serve this entry when the graded response equals this text (trimmed); omit to match any response. */
  answer?: string
  /** By position (1-based criterion index − 1, i.e. rubric order) or by criterion id. */
  verdicts: readonly (boolean | CriterionJudgement)[] | Readonly<Record<string, boolean | CriterionJudgement>>
}

/**
 * A grader that answers from a table of known gradings — e.g. a benchmark's recorded grades
 * (CL-bench `requirement_status`) to replay its scores exactly. A request is served by the first
 * entry whose `answer` equals the graded response; entries are not used up, so concurrency and
 * repeats cannot disturb it. Works in both grading modes.
 *
 * @example
 * const responder = scriptedGrader([{ answer: record.model_output, verdicts: record.requirement_status.map((s) => s === 'yes') }])
 */
export function scriptedGrader(entries: readonly ScriptedGrading[]): Responder {
  return (request) => {
    const parsed = expectGrader(request, 'scriptedGrader')
    const response = parsed.response.trim()
    const entry =
      entries.find((e) => e.answer !== undefined && e.answer.trim() === response) ??
      entries.find((e) => e.answer === undefined)
    if (!entry)
      throw new Error(
        `scriptedGrader: no scripted grading for the response ${JSON.stringify(response.slice(0, 80))} (request #${request.index})`,
      )
    const verdicts = parsed.criteria.map((c) => {
      const raw = Array.isArray(entry.verdicts)
        ? (entry.verdicts as readonly (boolean | CriterionJudgement)[])[(c.index ?? 0) - 1]
        : (entry.verdicts as Readonly<Record<string, boolean | CriterionJudgement>>)[c.id]
      if (raw === undefined)
        throw new Error(
          `scriptedGrader: no verdict for criterion ${c.id} (index ${c.index ?? '?'}) of the response ${JSON.stringify(response.slice(0, 60))}`,
        )
      return typeof raw === 'boolean' ? { met: raw, reason: raw ? 'yes' : 'no' } : raw
    })
    return graderReply(parsed, verdicts)
  }
}

/** The generic critique of the rubric-blind rule critic: says nothing about what failed. */
export const BLIND_CRITIQUE = {
  directive:
    'Your answer does not yet do everything the task asks. Re-read the instructions line by line and make sure each one is followed exactly, then rewrite the answer.',
  socratic:
    'Have you re-read every instruction in the task? Which parts of the request does your answer leave out, and which does it only half follow?',
} as const

/**
 * A deterministic critic. Rubric-aware requests get one line per criterion the answer misses
 * (judged like {@link rubricGrader}: `Unmet criterion: …`, or for a penalty `Criterion violated:
 * …`; socratic style asks instead). Rubric-blind requests get a generic critique
 * ({@link BLIND_CRITIQUE}) that names nothing specific — as a critic that cannot see the rubric
 * often does.
 *
 * @example
 * const server = await startTestServer({ responder: rubricCritic() })
 */
export function rubricCritic(options: Omit<RuleOptions, 'fallback'> = {}): Responder {
  return (request) => {
    const parsed = parseRubricRequest(request)
    if (parsed?.kind !== 'critic') throw new Error(`rubricCritic: request #${request.index} is not a critic request`)
    if (parsed.rubric === 'blind') return BLIND_CRITIQUE[parsed.style]
    const lines: string[] = []
    for (const c of parsed.criteria) {
      const raw = options.judge ? options.judge(c, parsed.answer) : ruleJudge(c.text, parsed.answer)
      if (raw === undefined) continue
      const met = typeof raw === 'boolean' ? raw : raw.met
      const penalty = c.points !== undefined && c.points < 0
      if (met !== penalty) continue
      if (parsed.style === 'socratic')
        lines.push(
          penalty
            ? `Does your answer avoid what this criterion penalises: ${c.text}?`
            : `Does your answer really meet this criterion: ${c.text}?`,
        )
      else
        lines.push(
          penalty
            ? `Criterion violated: ${c.text}. Remove this from your answer.`
            : `Unmet criterion: ${c.text}. Revise your answer so that it meets it.`,
        )
    }
    return lines.length > 0
      ? lines.join('\n')
      : 'I could not find a criterion your answer misses; check each criterion again against the task.'
  }
}

/**
 * A deterministic summariser for the `summary` history policy: one line per earlier attempt with
 * its length and the first line of its feedback. Lossy on purpose, as summaries are.
 *
 * @example
 * const server = await startTestServer({ responder: ruleSummariser() })
 */
export function ruleSummariser(): Responder {
  return (request) => {
    const parsed = parseRubricRequest(request)
    if (parsed?.kind !== 'summariser')
      throw new Error(`ruleSummariser: request #${request.index} is not a summary request`)
    const lines = parsed.attempts.map(
      (a, i) => `- Attempt ${i + 1} (${wordCount(a.answer)} words) was rejected: ${a.feedback.split('\n')[0]!.trim()}`,
    )
    return `Earlier attempts, in brief:\n${lines.join('\n')}`
  }
}

// The lines rubricCritic writes, each naming one criterion: [pattern, is the criterion a penalty].
const CRITIC_LINES: readonly (readonly [RegExp, boolean])[] = [
  [/^Unmet criterion: (.+)\. Revise your answer so that it meets it\.$/, false],
  [/^Criterion violated: (.+)\. Remove this from your answer\.$/, true],
  [/^Does your answer really meet this criterion: (.+)\?$/, false],
  [/^Does your answer avoid what this criterion penalises: (.+)\?$/, true],
]

/** The one request of feedback that names nothing specific (a blind critique, binary feedback). */
export const GENERIC_REQUEST = 'Revise the answer as the feedback asks'

/**
 * A deterministic revision annotator for the LLM annotator's prompt (`annotate: { model }`).
 * Each line of the feedback that names a criterion the way {@link rubricCritic} writes it
 * (`Unmet criterion: …`, `Criterion violated: …`, or its socratic questions) is one request,
 * fully satisfied when the revision meets that criterion (avoids it, for a penalty) as
 * {@link ruleJudge} judges it, else not. Feedback naming nothing it can read (a rubric-blind
 * critique, binary feedback) has one request, {@link GENERIC_REQUEST}: partly satisfied when the
 * revision changed the answer, not at all when it repeated it; a rule cannot tell whether it is
 * fully met without the rubric, so such a revision is at best `some`.
 *
 * @example
 * const server = await startTestServer({ responder: ruleAnnotator() })
 * seqEval('…', { …, annotate: { model: testServerModel(server, { model: 'rule-annotator' }) } })
 */
export function ruleAnnotator(options: Omit<RuleOptions, 'fallback'> = {}): Responder {
  return (request) => {
    const parsed = parseRubricRequest(request)
    if (parsed?.kind !== 'annotator')
      throw new Error(`ruleAnnotator: request #${request.index} is not a revision annotator request`)
    const changed = parsed.revision.trim() !== parsed.previous.trim()
    const requests: { request: string; satisfied: 'fully' | 'partly' | 'no' }[] = []
    for (const line of parsed.feedback.split('\n').map((l) => l.trim())) {
      for (const [pattern, penalty] of CRITIC_LINES) {
        const text = pattern.exec(line)?.[1]
        if (text === undefined) continue
        const raw = options.judge ? options.judge({ id: '', text }, parsed.revision) : ruleJudge(text, parsed.revision)
        const met = typeof raw === 'boolean' ? raw : raw?.met
        requests.push({
          request: penalty ? `Remove: ${text}` : text,
          satisfied: met === undefined ? (changed ? 'partly' : 'no') : met !== penalty ? 'fully' : 'no',
        })
        break
      }
    }
    if (requests.length === 0) requests.push({ request: GENERIC_REQUEST, satisfied: changed ? 'partly' : 'no' })
    const met = requests.filter((r) => r.satisfied !== 'no').length
    return JSON.stringify({
      requests,
      reason: `${met} of ${requests.length} request${requests.length === 1 ? '' : 's'} addressed${changed ? '' : '; the answer is unchanged'}`,
    })
  }
}

/**
 * One responder for a whole rubric eval: grader requests go to {@link rubricGrader}, critic
 * requests to {@link rubricCritic}, summary requests to {@link ruleSummariser}, revision
 * annotator requests to {@link ruleAnnotator}; anything else to `otherwise` (default: a 500
 * naming the request).
 *
 * @example
 * const server = await startTestServer({ responder: rubricRules() })
 */
export function rubricRules(options: RuleOptions & { otherwise?: Responder } = {}): Responder {
  const grader = rubricGrader(options)
  const critic = rubricCritic(options)
  const summariser = ruleSummariser()
  const annotator = ruleAnnotator(options)
  return (request) => {
    const kind = parseRubricRequest(request)?.kind
    if (kind === 'grader') return grader(request)
    if (kind === 'critic') return critic(request)
    if (kind === 'summariser') return summariser(request)
    if (kind === 'annotator') return annotator(request)
    if (options.otherwise) return options.otherwise(request)
    throw new Error(
      `rubricRules: request #${request.index} is neither a grader, a critic, a summary nor a revision annotator request`,
    )
  }
}

/**
 * A chat model served by a test server, with a descriptor that does not include the server's
 * random port, so protocols (and their fingerprints) stay the same from run to run. Use it for
 * rule-based graders, critics and summarisers in offline evals. Cassettes are off for it (even
 * under `SEQK_CASSETTE`), and it retries quickly: the server is local.
 *
 * @example
 * const grader = testServerModel(server, { model: 'rule-grader' })
 */
export function testServerModel(
  server: Pick<TestServer, 'openaiBaseURL'>,
  options: { model: string; id?: string },
): ChatModel {
  const model = openaiCompatibleModel({
    model: options.model,
    id: options.id ?? `test-server:${options.model}`,
    baseURL: server.openaiBaseURL,
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 50 },
    timeoutMs: 10_000,
    // A local rule-based server needs no recording, and its random port would defeat replay keys.
    cassette: { mode: 'off' },
  })
  return { ...model, descriptor: { provider: 'seqk-test-server', model: options.model, params: {} } }
}
