/**
 * Strengthened tests (the EvalPlus recipe for code benchmarks): extra test inputs made by
 * type-aware mutation of the existing tests' arguments, kept only inside the task's input
 * contract (src/benchmarks/input-contract.ts: the types, ranges, characters, formats, sizes and
 * relations the tests and the statement's examples show), their expected values taken from the
 * reference solution run by the same verifier (same sandbox, same judge). An input is dropped, with
 * its reason in the task's report, when the reference raises on it, runs over the step budget or
 * the time limit, returns no literal, cuts unequal lengths short with `zip` where the tests never
 * make it, or gives another output under a reading of the reference that the original tests cannot
 * tell from the one written (`%` and `//` on negatives truncating, `round` sending halves away
 * from zero, sets iterating in another order: reference-probe.py). Floats are compared with a
 * tolerance, as EvalPlus does. The set is reduced greedily to cover distinct reference outputs
 * first. Reproducible by seed.
 */
import { readFileSync } from 'node:fs'
import { createRng, seedFrom } from '../metrics/random.js'
import type { Task } from '../protocol/task.js'
import type { Verifier } from '../verifiers/verifier.js'
import { extractPythonCode } from '../verifiers/python-tests/extract.js'
import { callsIn, contractViolation, describeContract, inferContract, type InputContract } from './input-contract.js'
import { harvest, mutateValue } from './mutations.js'
import { parseCallArguments, parsePython, printPython, type PyValue } from './python-literal.js'

/** The options of {@link strengthenTests}. */
export interface StrengthenOptions {
  /** Seed of every mutation: the same seed, task and reference give the same tests. */
  seed: number
  /** At most this many new test statements. */
  inputs: number
  /** The reference solution, as an answer (a python code block), whose outputs become the expected values. */
  reference: string
  /** The verifier that runs the reference (a `verifiers.pythonTests()`): its sandbox and limits apply. */
  verifier: Verifier
  /** Candidates inside the contract run through the reference per kept input (default {@link DEFAULT_CANDIDATES_PER_INPUT}). */
  candidatesPerInput?: number
  /**
   * Rounds of search after the first draw (default {@link DEFAULT_SEARCH_ROUNDS}): while some near
   * miss of the reference (a mutant: one comparison, constant or operator changed) survives the
   * original tests and every input drawn so far, as many candidates again are drawn by mutating
   * the kept ones. 0 draws once.
   */
  searchRounds?: number
  /**
   * Programs the search must not aim at (broken copies of the reference): a near miss that is one
   * of them is left out, so that a catch rate measured on them is held out from the search
   * (scripts/strengthened-power.ts). Default none.
   */
  heldOutMutants?: readonly string[]
  /**
   * Line steps the reference may take on one candidate input (default {@link DEFAULT_MAX_STEPS}),
   * counted by a tracer rather than timed, so that the same inputs are kept on any machine:
   * a candidate over it is dropped. Original tests are never held to it.
   */
  maxSteps?: number
}

/**
 * Default of {@link StrengthenOptions.maxSteps}: about 0.1 s of traced reference on a quiet
 * machine, a second at ten times the load, well within a 3 s limit; the original tests of the
 * shared HumanEval Pro and MBPP Pro take at most 126 105 steps per call except two tasks' (8.5
 * and 15 million).
 */
export const DEFAULT_MAX_STEPS = 500_000

/** Default of {@link StrengthenOptions.searchRounds}. */
export const DEFAULT_SEARCH_ROUNDS = 2

/** Default of {@link StrengthenOptions.candidatesPerInput}. */
export const DEFAULT_CANDIDATES_PER_INPUT = 4

/** Why a candidate input was not added, in the order the checks run. */
export const DROP_REASONS = [
  'outside-contract',
  'reference-raised',
  'over-step-budget',
  'timed-out',
  'no-literal-output',
  'zip-truncation',
  'reading-dependent',
  'reference-failed-rerun',
] as const
export type DropReason = (typeof DROP_REASONS)[number]

/** The readings of the reference that the original tests may leave open (reference-probe.py). */
export const READINGS = ['truncating-division', 'round-half-away', 'set-order'] as const
export type Reading = (typeof READINGS)[number]
/** The probe's event that says an input may read differently under each reading. */
const TRIGGER: Record<Reading, string> = {
  'truncating-division': 'division',
  'round-half-away': 'round',
  'set-order': 'set',
}

/** What strengthening one task added and dropped, and why: the per-task report. */
export interface StrengthenReport {
  /** The input contract of each function the tests call, in words. */
  contracts: { name: string; observations: number; clauses: string[] }[]
  /**
   * Each reading the reference's code touches: `pinned` when an original test's output changes
   * under it (the tests decide, so it is not a question), `checked` when the candidates were run
   * under it too.
   */
  readings: { reading: Reading; status: 'pinned' | 'checked' }[]
  /**
   * Zip calls that cut unequal lengths short on the original tests too, as `zip:<line>:<shape>`
   * (each later argument against the first: `<` shorter, `>` longer, `=` as long): the same cut on
   * a new input is left alone.
   */
  zipInTests: string[]
  added: {
    statement: string
    /** The original statement (0-based, among the tests' statements) the input was mutated from. */
    from: number
    changed: string
    why: 'tells near misses apart' | 'a new output' | 'another input for an output already covered'
    /** The near misses (mutants of the reference, {@link StrengthenReport.nearMisses}) it tells apart first, in words. */
    nearMisses?: string[]
    /** Compared within a float tolerance (the expected value holds a float). */
    tolerant: boolean
  }[]
  /** Every dropped candidate with its reason and, in words, the detail. */
  dropped: { call: string; reason: DropReason; detail: string }[]
  /**
   * Near misses: mutants of the reference, one comparison moved at its edge (`<` and `<=`, `==` and
   * `!=`), one integer constant one up or down, or `+` and `-`, `and` and `or`, `min` and `max`
   * swapped. `points` counts them; `byTests` the ones the original tests already fail, `byAdded` the
   * others the added statements fail; `survivors` names the rest (some of them equivalent to the
   * reference: no input tells them apart).
   */
  nearMisses: { points: number; byTests: number; byAdded: number; survivors: string[] }
}

/** What strengthening one task did. */
export interface StrengthenResult {
  /** The task with the new statements after its own (`tests`), or the task unchanged. */
  task: Task
  /** Statements of the original tests whose call has literal arguments (the ones mutated). */
  mutable: number
  /** Candidate inputs inside the contract, run through the reference. */
  candidates: number
  /** Mutations outside the input contract (not run). */
  outsideContract: number
  /** Candidates the reference raised on, timed out on, went over the step budget on, or returned a value that is no literal for. */
  rejected: number
  /** Candidates on which the reference's zip cut unequal lengths short (where the tests' never do). */
  zipTruncations: number
  /** Candidates whose output changes under a reading of the reference the tests do not pin. */
  readingDependent: number
  /** New statements in the strengthened suite. */
  added: number
  /** Added statements whose expected value holds a float: compared within a tolerance. */
  tolerant: number
  /** Distinct reference outputs among the added statements. */
  behaviours: number
  /** Statements of the strengthened suite the reference failed when rerun (a flaky or stateful reference): dropped from `added`. */
  referenceFailures: number
  /** Candidates on which the reference went over `maxSteps`: dropped (counted in `rejected` too), the same on any machine. */
  overBudget: number
  /**
   * Candidates that ran past the verifier's time limit on their own while within the step budget
   * (time spent outside Python code, in a builtin on a huge value): dropped (counted in `rejected`
   * too). Whether such a call finishes depends on the machine's speed, so a task with any is
   * reproducible by seed only on a machine as fast.
   */
  timedOut: number
  report: StrengthenReport
}

/** `assert CALL == EXPECTED` split at the `==` whose left side is a call with literal arguments. */
function literalCall(statement: string): { name: string; args: PyValue[] } | undefined {
  const body = /^assert\s+(.*)$/s.exec(statement.trim())?.[1]
  if (body === undefined) return undefined
  for (let at = body.indexOf(' == '); at !== -1; at = body.indexOf(' == ', at + 1)) {
    const call = parseCallArguments(body.slice(0, at))
    if (call) return call
  }
  return undefined
}

const callText = (name: string, args: readonly PyValue[]) => `${name}(${args.map(printPython).join(', ')})`

/** The exception the probe raises in the candidate's process when a call runs over the budget. */
const OVER_BUDGET = '_SeqkOverBudget'

const PROBE_SOURCE = readFileSync(new URL('./reference-probe.py', import.meta.url), 'utf8')

/**
 * A Python string literal of `text` on one line, with nothing in it that the verifier's
 * sanitiser cuts at (`if __name__`, `# Test`, `# Example`) or that ends a code block (backticks).
 */
function pythonLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/#/g, '\\x23')
    .replace(/`/g, '\\x60')
    .replace(/__name__/g, '\\x5f_name__')
}

/** The program that loads the probe, then the reference rewritten for `reading`, as an answer. */
function probeProgram(reference: string, reading: Reading | 'plain'): string {
  return [
    '```python',
    `_seqk_source = ${pythonLiteral(PROBE_SOURCE)}`,
    "exec(compile(_seqk_source, '<seqk-probe>', 'exec'))",
    `_seqk_load(${pythonLiteral(extractPythonCode(reference))}, '${reading}', globals())`,
    '```',
  ].join('\n')
}

/** Reference runs are chunked so one slow input costs one chunk, not the whole task. */
const CHUNK = 25

/** What the reference did on one input. */
type Outcome =
  | { kind: 'value'; value: PyValue; text: string; events: string[] }
  | { kind: 'raised'; error: string }
  | { kind: 'over-step-budget' }
  | { kind: 'timed-out' }
  | { kind: 'no-literal-output'; text: string }

/** A Python repr of the probe's `[value, events]` read into its parts. */
function probeResult(actual: string): Outcome {
  const whole = parsePython(actual)
  const events = whole?.type === 'list' && whole.items.length === 2 ? whole.items[1] : undefined
  if (whole?.type !== 'list' || events?.type !== 'list') return { kind: 'no-literal-output', text: actual }
  const names = events.items.flatMap((e) => (e.type === 'str' ? [e.value] : []))
  // The value's own repr: the text between `[` and `, <events>]` (Python's digits, not ours).
  const tail = `, ${printPython(events)}]`
  const text = actual.endsWith(tail) ? actual.slice(1, actual.length - tail.length) : printPython(whole.items[0]!)
  return { kind: 'value', value: whole.items[0]!, text, events: names }
}

/** A call of a function the tests call, with literal arguments. */
interface Call {
  name: string
  args: PyValue[]
}

/** A probe's reply to one statement: the repr of its value, or the exception both fields hold; undefined when not reached in time. */
type Reply = { actual: string; error?: string } | undefined

/** The value a reply holds, when the call returned one. */
const valueOf = (reply: Reply) =>
  reply === undefined || reply.actual === reply.error ? undefined : parsePython(reply.actual)

/** What the probe's reply to `_seqk_probe` says the reference did (undefined: it ran out of time). */
function outcomeOf(reply: Reply): Outcome {
  if (reply === undefined) return { kind: 'timed-out' }
  // A call that raised reports its exception as both `actual` and `error`; a value, its repr.
  if (reply.actual === reply.error)
    return reply.error.startsWith(`${OVER_BUDGET}:`)
      ? { kind: 'over-step-budget' }
      : { kind: 'raised', error: reply.error }
  return probeResult(reply.actual)
}

/** The program that loads the probe, then the reference and its mutants (reference-probe.py), as an answer. */
function mutantProgram(reference: string, excluded: readonly string[]): string {
  return [
    '```python',
    `_seqk_source = ${pythonLiteral(PROBE_SOURCE)}`,
    "exec(compile(_seqk_source, '<seqk-probe>', 'exec'))",
    `_seqk_load_mutants(${pythonLiteral(extractPythonCode(reference))}, [${excluded.map(pythonLiteral).join(', ')}])`,
    '```',
  ].join('\n')
}

/** Kill runs are chunked smaller than probe runs: each input runs once per mutant. */
const KILL_CHUNK = 5

/** The mutants of a reference (near misses: one comparison, constant or operator changed) and which inputs tell each apart. */
interface NearMisses {
  /** Each mutant's change in words (`line 4: < -> <=`); mutant `n` is `points[n - 1]`. */
  points: string[]
  /** The mutants a test of each call fails (another value, or an exception); none where the run did not finish. */
  kills(calls: readonly Call[]): Promise<number[][]>
}

async function nearMisses(
  reference: string,
  excluded: readonly string[],
  run: (expressions: readonly string[], program: string, size?: number) => Promise<Reply[]>,
  killCall: (c: Call) => string,
): Promise<NearMisses> {
  const program = mutantProgram(reference, excluded)
  const [listed] = await run(['_seqk_mutant_points()'], program)
  const parsed = valueOf(listed)
  const points = parsed?.type === 'list' ? parsed.items.flatMap((p) => (p.type === 'str' ? [p.value] : [])) : []
  return {
    points,
    kills: async (calls) => {
      if (points.length === 0) return calls.map(() => [])
      const replies = await run(calls.map(killCall), program, KILL_CHUNK)
      return replies.map((r) => {
        const value = valueOf(r)
        return value?.type === 'list' ? value.items.flatMap((m) => (m.type === 'int' ? [Number(m.value)] : [])) : []
      })
    },
  }
}

/** The float tolerance of EvalPlus (an absolute 1e-6, a relative 1e-7): one ulp of a rewrite is far inside. */
const ABSOLUTE = 1e-6
const RELATIVE = 1e-7
const close = (a: number, e: number) =>
  a === e || Math.abs(a - e) <= ABSOLUTE + RELATIVE * Math.abs(e) || (Number.isNaN(a) && Number.isNaN(e))

/** Python's `==` on two literal values, with floats compared within the tolerance. */
export function sameValue(a: PyValue, e: PyValue): boolean {
  const number = (v: PyValue) => (v.type === 'int' ? Number(v.value) : v.type === 'float' ? v.value : undefined)
  if ((a.type === 'float' || e.type === 'float') && number(a) !== undefined && number(e) !== undefined)
    return close(number(a)!, number(e)!)
  if ((a.type === 'list' && e.type === 'list') || (a.type === 'tuple' && e.type === 'tuple'))
    return a.items.length === e.items.length && a.items.every((x, i) => sameValue(x, e.items[i]!))
  if (a.type === 'set' && e.type === 'set') {
    const keys = new Set(e.items.map(printPython))
    return a.items.length === e.items.length && a.items.every((x) => keys.has(printPython(x)))
  }
  if (a.type === 'dict' && e.type === 'dict') {
    const byKey = new Map(e.entries.map(([k, x]) => [printPython(k), x]))
    return (
      a.entries.length === e.entries.length &&
      a.entries.every(([k, x]) => byKey.has(printPython(k)) && sameValue(x, byKey.get(printPython(k))!))
    )
  }
  return printPython(a) === printPython(e)
}

const holdsFloat = (v: PyValue): boolean =>
  v.type === 'float' ||
  ((v.type === 'list' || v.type === 'tuple' || v.type === 'set') && v.items.some(holdsFloat)) ||
  (v.type === 'dict' && v.entries.some(([k, x]) => holdsFloat(k) || holdsFloat(x)))

/**
 * The expected value of a statement whose floats compare within the tolerance, wrapped:
 * `assert f(x) == type('_SeqkClose', (), {...})([1.5, 2.0])`. Python calls the wrapper's `__eq__`
 * for `==` (the left side's gives way to an object it does not know); its repr is the plain
 * value's, so feedback shows `expected: [1.5, 2.0]`. The class is made inside each statement from
 * builtins alone, never defined by a statement of its own: every statement stands alone, so a
 * held-out split (`pythonTests({ heldOut })`, whose visible statements may run without the others)
 * never separates a use from its definition, and only test statements are counted. It runs alike
 * in this project's judge and under plain `python` (the official harness).
 *
 * @example
 * tolerantExpected('[1.5, 2.0]') // => "type('_SeqkClose', (), {...})([1.5, 2.0])"
 */
export function tolerantExpected(expected: string): string {
  return `${TOLERANT_CLASS}(${expected})`
}

/** The tolerant class as one expression: `same` recurses through lists, tuples and dicts, as `==` does. */
const TOLERANT_CLASS = [
  "type('_SeqkClose', (), {",
  "'__init__': lambda s, e: setattr(s, 'e', e), ",
  "'__repr__': lambda s: repr(s.e), ",
  "'__hash__': None, ",
  "'__eq__': lambda s, a: s.same(a, s.e), ",
  "'same': classmethod(lambda c, a, e: ",
  '(a == e or abs(a - e) <= 1e-06 + 1e-07 * abs(e) or (a != a and e != e)) ',
  'if isinstance(e, float) and isinstance(a, (int, float)) and not isinstance(a, bool) ',
  'else (len(a) == len(e) and all(c.same(x, y) for x, y in zip(a, e))) ',
  'if isinstance(e, (list, tuple)) and isinstance(a, type(e)) ',
  'else (a.keys() == e.keys() and all(c.same(a[k], e[k]) for k in e)) ',
  'if isinstance(e, dict) and isinstance(a, dict) ',
  'else a == e)})',
].join('')

/** What changed from the original call's arguments, in words. */
function describeChange(contract: InputContract | undefined, from: readonly PyValue[], to: readonly PyValue[]): string {
  const short = (v: PyValue | undefined) => {
    const text = v === undefined ? '(none)' : printPython(v)
    return text.length > 50 ? `${text.slice(0, 47)}...` : text
  }
  const i = to.findIndex((v, j) => from[j] === undefined || printPython(v) !== printPython(from[j]!))
  if (i === -1) return 'the same arguments'
  const name = contract?.params?.[i]
  return `argument ${i + 1}${name === undefined ? '' : ` (${name})`}: ${short(from[i])} -> ${short(to[i])}`
}

/**
 * Strengthens one python-tests task: new `assert CALL == EXPECTED` statements after its own.
 * Statements whose call is not made of literal arguments are kept and not mutated; a task with
 * none comes back unchanged. Every added statement passed the reference in a rerun of the whole
 * strengthened suite; `report` says, per candidate, why it was added or dropped.
 *
 * @example
 * const { task: stronger, added, report } = await strengthenTests(task, { seed: 1, inputs: 20, reference, verifier: verifiers.pythonTests() })
 */
export async function strengthenTests(task: Task, options: StrengthenOptions): Promise<StrengthenResult> {
  if (!(Number.isInteger(options.inputs) && options.inputs >= 0))
    throw new RangeError(`strengthenTests: inputs must be an integer >= 0, got ${String(options.inputs)}`)
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`strengthenTests: seed must be an integer, got ${String(options.seed)}`)
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
  if (!(Number.isSafeInteger(maxSteps) && maxSteps >= 1))
    throw new RangeError(`strengthenTests: maxSteps must be an integer >= 1, got ${String(options.maxSteps)}`)
  const tests = task.tests ?? ''
  const statements = tests.split('\n').filter((l) => l.trim() !== '')
  const located = statements.flatMap((s, at) => {
    const call = literalCall(s)
    return call ? [{ ...call, at }] : []
  })
  const prompt = typeof task.prompt === 'string' ? task.prompt : task.prompt.map((m) => m.content).join('\n')
  const contracts = new Map<string, InputContract>()
  for (const name of new Set(located.map((c) => c.name))) {
    const mine = located.filter((c) => c.name === name).map((c) => c.args)
    // The statement's examples count where they call the function the way the tests do.
    const examples = callsIn(prompt, name).filter((args) => mine.some((m) => m.length === args.length))
    contracts.set(name, inferContract(name, [...mine, ...examples], prompt))
  }
  const report: StrengthenReport = {
    contracts: [...contracts.values()].map((c) => ({
      name: c.name,
      observations: c.observations,
      clauses: describeContract(c),
    })),
    readings: [],
    zipInTests: [],
    added: [],
    dropped: [],
    nearMisses: { points: 0, byTests: 0, byAdded: 0, survivors: [] },
  }
  const result: StrengthenResult = {
    task,
    mutable: located.length,
    candidates: 0,
    outsideContract: 0,
    rejected: 0,
    zipTruncations: 0,
    readingDependent: 0,
    added: 0,
    tolerant: 0,
    behaviours: 0,
    referenceFailures: 0,
    overBudget: 0,
    timedOut: 0,
    report,
  }
  if (located.length === 0 || options.inputs === 0) return result
  const drop = (call: string, reason: DropReason, detail: string) => report.dropped.push({ call, reason, detail })

  const rng = createRng(seedFrom(options.seed, 'strengthen', task.id))
  const constants = harvest(located.flatMap((c) => c.args))
  const seen = new Set(located.map((c) => callText(c.name, c.args)))
  interface Candidate {
    text: string
    name: string
    args: PyValue[]
    from: (typeof located)[number]
  }
  const candidates: Candidate[] = []
  /** Draws up to `count` new inputs inside the contract, each a mutation of one of `parents`; returns their indices. */
  const draw = (count: number, parents: readonly Omit<Candidate, 'text'>[]): number[] => {
    const drawn: number[] = []
    // Mutations outside the contract cost no reference run, so many more may be drawn.
    for (let tries = 0; tries < count * 20 && drawn.length < count; tries++) {
      const base = parents[Math.floor(rng() * parents.length)]!
      if (base.args.length === 0) continue
      const i = Math.floor(rng() * base.args.length)
      const args = base.args.map((a, j) => (j === i ? mutateValue(a, rng, constants) : a))
      const text = callText(base.name, args)
      if (seen.has(text)) continue
      seen.add(text)
      const outside = contractViolation(contracts.get(base.name)!, args)
      if (outside !== undefined) {
        result.outsideContract++
        drop(text, 'outside-contract', outside)
        continue
      }
      drawn.push(candidates.push({ text, name: base.name, args, from: base.from }) - 1)
    }
    return drawn
  }

  const pythonStr = (text: string) => printPython({ type: 'str', value: text })
  /** The probe's statement for a call of the function `fn` of the probe (`_seqk_probe`, `_seqk_kills`). */
  const probeCall = (fn: string, c: Call) =>
    `${fn}(${pythonStr(c.name)}, ${maxSteps}${c.args.map((a) => `, ${printPython(a)}`).join('')})`
  /**
   * Runs `chunk` (probe expressions) in one verify of `program`, recording each reply. When the time
   * limit cut it short: the expressions it never reached and the one running when it was cut.
   */
  const runChunk = async (chunk: readonly string[], program: string, replies: Reply[], offset: number) => {
    const probe = { ...task, tests: chunk.map((c) => `assert ${c} == object()`).join('\n') }
    delete (probe as { heldOutTests?: unknown }).heldOutTests
    const verdict = await options.verifier.verify(probe, program)
    const results = verdict.diagnostics.tests ?? []
    for (const t of results)
      if (t.index < chunk.length && t.actual !== undefined)
        replies[offset + t.index] = t.error === undefined ? { actual: t.actual } : { actual: t.actual, error: t.error }
    if (verdict.diagnostics.outcome !== 'timeout') return []
    const reached = results.filter((t) => t.actual !== undefined).map((t) => t.index)
    const cut = reached.length === 0 ? -1 : Math.max(...reached)
    return chunk.flatMap((_, i) => (i === cut || !reached.includes(i) ? [i] : []))
  }
  /** Every expression's reply; undefined for one that ran out of time on its own. */
  const runAll = async (expressions: readonly string[], program: string, size = CHUNK) => {
    const replies: Reply[] = expressions.map(() => undefined)
    for (let from = 0; from < expressions.length; from += size) {
      const chunk = expressions.slice(from, from + size)
      const unreached = await runChunk(chunk, program, replies, from)
      // Slow calls that add up past the limit in one chunk must not decide which inputs are kept (that
      // would depend on the machine's speed): each unreached one gets a verify, and its limit, of its own.
      if (chunk.length > 1)
        for (const i of unreached) {
          replies[from + i] = undefined
          await runChunk([chunk[i]!], program, replies, from + i)
        }
    }
    return replies
  }
  const runs = new Map<Reading | 'plain', string>()
  const programOf = (reading: Reading | 'plain') => {
    if (!runs.has(reading)) runs.set(reading, probeProgram(options.reference, reading))
    return runs.get(reading)!
  }
  /** Each call's outcome under `reading`. */
  const probeAll = async (calls: readonly Call[], reading: Reading | 'plain'): Promise<Outcome[]> =>
    (
      await runAll(
        calls.map((c) => probeCall('_seqk_probe', c)),
        programOf(reading),
      )
    ).map(outcomeOf)

  // The original calls first (no step budget matters for them: only their events and outputs are read).
  const originals = await probeAll(located, 'plain')
  const eventsOf = (o: Outcome | undefined) => (o?.kind === 'value' ? o.events : [])
  const zipInTests = new Set(originals.flatMap((o) => eventsOf(o).filter((e) => e.startsWith('zip:'))))
  report.zipInTests = [...zipInTests].sort()
  const plain: Outcome[] = []
  /** Whether the original tests pin `reading` (an original output changes under it), asked once per reading. */
  const pinned = new Map<Reading, Promise<boolean>>()
  const pinnedBy = (reading: Reading) => {
    if (!pinned.has(reading))
      pinned.set(
        reading,
        (async () => {
          const inTests = located.flatMap((c, i) => (eventsOf(originals[i]).includes(TRIGGER[reading]) ? [i] : []))
          const again = await probeAll(
            inTests.map((i) => located[i]!),
            reading,
          )
          const is = inTests.some((i, j) => {
            const [o, r] = [originals[i]!, again[j]!]
            return o.kind === 'value' && !(r.kind === 'value' && sameValue(r.value, o.value))
          })
          report.readings.push({ reading, status: is ? 'pinned' : 'checked' })
          return is
        })(),
      )
    return pinned.get(reading)!
  }
  /** The candidates at `indices` the reference gives a value on that no zip cut and no open reading changes. */
  const screen = async (indices: readonly number[]): Promise<number[]> => {
    const outcomes = await probeAll(
      indices.map((i) => candidates[i]!),
      'plain',
    )
    const kept = new Set<number>()
    indices.forEach((i, j) => {
      const o = (plain[i] = outcomes[j]!)
      const c = candidates[i]!
      if (o.kind !== 'value') result.rejected++
      if (o.kind === 'raised') drop(c.text, 'reference-raised', o.error)
      else if (o.kind === 'over-step-budget') {
        result.overBudget++
        drop(c.text, 'over-step-budget', `the reference took more than ${maxSteps} line steps`)
      } else if (o.kind === 'timed-out') {
        result.timedOut++
        drop(c.text, 'timed-out', 'the reference ran out of time on this input alone, within the step budget')
      } else if (o.kind === 'no-literal-output')
        drop(c.text, 'no-literal-output', `the reference returned ${o.text.slice(0, 80)}, no Python literal`)
      else {
        const cut = o.events.filter((e) => e.startsWith('zip:') && !zipInTests.has(e))
        if (cut.length > 0) {
          result.zipTruncations++
          const where = cut.map((e) => `line ${e.split(':')[1]!} (${e.split(':')[2]!})`).join(', ')
          drop(
            c.text,
            'zip-truncation',
            `the reference's zip at ${where} cut unequal lengths short (< shorter, > longer than the first); the tests never make it cut so`,
          )
        } else kept.add(i)
      }
    })
    // Readings the reference touches: pinned by the tests when an original output changes under it.
    for (const reading of READINGS) {
      const touched = [...kept].filter((i) => eventsOf(plain[i]).includes(TRIGGER[reading]))
      if (touched.length === 0 || (await pinnedBy(reading))) continue
      const other = await probeAll(
        touched.map((i) => candidates[i]!),
        reading,
      )
      touched.forEach((i, j) => {
        const [o, r] = [plain[i]!, other[j]!]
        if (o.kind !== 'value' || (r.kind === 'value' && sameValue(r.value, o.value))) return
        kept.delete(i)
        result.readingDependent++
        const shown = r.kind === 'value' ? r.text.slice(0, 60) : r.kind
        drop(
          candidates[i]!.text,
          'reading-dependent',
          `under the reading ${reading} the reference gives ${shown} instead of ${o.text.slice(0, 60)}; the tests do not tell the two apart`,
        )
      })
    }
    return [...kept].sort((a, b) => a - b)
  }

  const wanted = options.inputs * (options.candidatesPerInput ?? DEFAULT_CANDIDATES_PER_INPUT)
  const roots = located.map((c) => ({ name: c.name, args: c.args, from: c }))
  const kept = await screen(draw(wanted, roots))

  // Near misses: which mutants of the reference each kept input tells from it, and which the tests already do.
  const mutants = await nearMisses(options.reference, options.heldOutMutants ?? [], runAll, (c) =>
    probeCall('_seqk_kills', c),
  )
  const killsOf = (calls: readonly Call[]) => mutants.kills(calls)
  const killedByTests = new Set((await killsOf(located)).flat())
  const kills = new Map<number, number[]>()
  const tell = async (indices: readonly number[]) => {
    const killed = await killsOf(indices.map((i) => candidates[i]!))
    indices.forEach((i, j) =>
      kills.set(
        i,
        killed[j]!.filter((m) => !killedByTests.has(m)),
      ),
    )
  }
  await tell(kept)
  // Search: while near misses survive every input so far, mutate the kept inputs again (a second
  // or third edit reaches inputs one edit cannot: a running sum that lands on the edge exactly).
  const alive = () => {
    const told = new Set([...kills.values()].flat())
    return mutants.points.filter((_, m) => !killedByTests.has(m + 1) && !told.has(m + 1)).length
  }
  for (let round = 0; round < (options.searchRounds ?? DEFAULT_SEARCH_ROUNDS) && alive() > 0; round++) {
    const parents = [...roots, ...kept.map((i) => candidates[i]!)]
    const fresh = await screen(draw(wanted, parents))
    await tell(fresh)
    kept.push(...fresh)
  }
  result.candidates = candidates.length

  // Selection: greedily the input that tells the most near misses apart that no chosen one does
  // (mutation-based reduction, as EvalPlus reduces its suites), then the first input of each
  // distinct output, in draw order, then the rest.
  const told = new Set<number>()
  const byOutput = new Set<string>()
  const outputOf = (i: number) => (plain[i] as { text: string }).text
  const because = new Map<number, number[]>()
  const first: number[] = []
  while (first.length < options.inputs) {
    let best = -1
    let gain: number[] = []
    for (const i of kept) {
      const news = (kills.get(i) ?? []).filter((m) => !told.has(m))
      if (news.length > gain.length) [best, gain] = [i, news]
    }
    if (best === -1) break
    first.push(best)
    because.set(best, gain)
    byOutput.add(outputOf(best))
    for (const m of gain) told.add(m)
  }
  const rest: number[] = []
  for (const i of kept) {
    if (because.has(i)) continue
    const out = outputOf(i)
    if (byOutput.has(out)) rest.push(i)
    else {
      byOutput.add(out)
      first.push(i)
    }
  }
  const firsts = new Set(first)
  let chosen = [...first, ...rest].slice(0, options.inputs)
  const statementOf = (i: number) => {
    const o = plain[i] as Extract<Outcome, { kind: 'value' }>
    const tolerant = holdsFloat(o.value)
    return { text: `assert ${candidates[i]!.text} == ${tolerant ? tolerantExpected(o.text) : o.text}`, tolerant }
  }
  const suiteOf = (indices: readonly number[]) => indices.map((i) => statementOf(i).text)
  // Rerun the whole suite: an added statement the reference fails now (state, randomness) goes.
  const stronger = (lines: readonly string[]) => ({ ...task, tests: [tests.trimEnd(), ...lines].join('\n') })
  if (chosen.length > 0) {
    /** Indices (into `chosen`) of the statements the reference fails in `suite`, or undefined when it did not finish. */
    const failingIn = async (suite: Task, lines: readonly string[]): Promise<Set<number> | undefined> => {
      const verdict = await options.verifier.verify(suite, options.reference)
      if (verdict.diagnostics.outcome !== 'failed' && verdict.diagnostics.outcome !== 'passed') return undefined
      // The added statements are the suite's last ones, whatever the judge counted before them.
      const all = verdict.diagnostics.tests ?? []
      const failed = all.filter((t) => !t.pass).map((t) => t.index - (all.length - lines.length))
      return new Set(failed.filter((i) => i >= 0))
    }
    // After the original tests (a stateful reference shows there); when those alone run out of time
    // on this machine (two shared tasks' take a second of CPU), the added ones, each within the step
    // budget, are rerun on their own, so a slow machine does not decide whether they are kept.
    const lines = suiteOf(chosen)
    const alone: Task = { ...task, tests: lines.join('\n') }
    delete (alone as { heldOutTests?: unknown }).heldOutTests
    const failing = (await failingIn(stronger(lines), lines)) ?? (await failingIn(alone, lines))
    result.referenceFailures = failing?.size ?? chosen.length
    for (const [j, i] of chosen.entries())
      if (failing === undefined || failing.has(j))
        drop(
          candidates[i]!.text,
          'reference-failed-rerun',
          'the reference failed this statement in a rerun of the suite',
        )
    chosen = failing === undefined ? [] : chosen.filter((_, j) => !failing.has(j))
  }
  const lines = suiteOf(chosen)
  for (const i of chosen) {
    const c = candidates[i]!
    const { text, tolerant } = statementOf(i)
    report.added.push({
      statement: text,
      from: c.from.at,
      changed: describeChange(contracts.get(c.name), c.from.args, c.args),
      why: because.has(i)
        ? 'tells near misses apart'
        : firsts.has(i)
          ? 'a new output'
          : 'another input for an output already covered',
      ...(because.has(i) ? { nearMisses: because.get(i)!.map((m) => mutants.points[m - 1]!) } : {}),
      tolerant,
    })
  }
  const byAdded = new Set(chosen.flatMap((i) => kills.get(i) ?? []))
  report.nearMisses = {
    points: mutants.points.length,
    byTests: killedByTests.size,
    byAdded: byAdded.size,
    survivors: mutants.points.filter((_, m) => !killedByTests.has(m + 1) && !byAdded.has(m + 1)),
  }
  result.added = chosen.length
  result.tolerant = report.added.filter((a) => a.tolerant).length
  result.behaviours = new Set(chosen.map((i) => (plain[i] as { text: string }).text)).size
  result.task = chosen.length > 0 ? stronger(lines) : task
  return result
}
