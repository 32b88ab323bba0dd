/**
 * Strengthened tests (the EvalPlus recipe for code benchmarks): extra test inputs made by
 * type-aware mutation of the existing tests' arguments, their expected values taken from the
 * reference solution run by the same verifier (same sandbox, same judge), inputs the reference
 * rejects or times out on dropped, and the set reduced greedily to cover distinct reference
 * behaviours first. Reproducible by seed.
 */
import { createRng, seedFrom } from '../metrics/random.js'
import type { Task } from '../protocol/task.js'
import type { Verifier } from '../verifiers/verifier.js'
import { extractPythonCode } from '../verifiers/python-tests/extract.js'
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
  /** Candidates tried per kept input before giving up (default 4). */
  candidatesPerInput?: number
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

/** What strengthening one task did. */
export interface StrengthenResult {
  /** The task with the new statements after its own (`tests`), or the task unchanged. */
  task: Task
  /** Statements of the original tests whose call has literal arguments (the ones mutated). */
  mutable: number
  /** Candidate inputs run through the reference. */
  candidates: number
  /** Candidates the reference raised on, timed out on, went over the step budget on, or returned a value that is no literal for. */
  rejected: number
  /** New statements in the strengthened suite. */
  added: number
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

/** The exception the probe's step counter raises in the candidate's process when a call runs over the budget. */
const OVER_BUDGET = '_SeqkOverBudget'

/**
 * The reference with a step counter beside it: `_seqk_steps(name, *args)` calls the named
 * function under a tracer that counts line events (deterministic for a given interpreter, unlike
 * time) and raises `_SeqkOverBudget` once the budget is spent. The tests' calls run in the
 * candidate's process, reached by name with plain values, so the counter sits with the reference.
 * Its own stop derives from BaseException so that the reference's `except Exception` cannot
 * swallow it. Inserted after any `from __future__` line, which must stay first, and before the
 * rest, which a sanitiser may cut at `if __name__`.
 */
function withStepCounter(reference: string, maxSteps: number): string {
  const code = extractPythonCode(reference)
  const counter = [
    `class ${OVER_BUDGET}(Exception):`,
    '    pass',
    'def _seqk_steps(_seqk_name, *args):',
    '    import sys',
    `    left = [${maxSteps}]`,
    '    class Over(BaseException):',
    '        pass',
    '    def local(frame, event, arg):',
    "        if event == 'line':",
    '            left[0] -= 1',
    '            if left[0] < 0:',
    '                raise Over()',
    '        return local',
    // A name the tests call that the reference does not define is a builtin (`abs(-2)`).
    "    function = globals()[_seqk_name] if _seqk_name in globals() else getattr(__import__('builtins'), _seqk_name)",
    '    previous = sys.gettrace()',
    '    sys.settrace(lambda frame, event, arg: local)',
    '    try:',
    '        return function(*args)',
    '    except Over:',
    `        raise ${OVER_BUDGET}('over the step budget of ${maxSteps}') from None`,
    '    finally:',
    '        sys.settrace(previous)',
    '',
  ].join('\n')
  const lines = code.split('\n')
  let at = 0
  lines.forEach((line, i) => {
    if (/^from\s+__future__\s+import\b/.test(line)) at = i + 1
  })
  return ['```python', ...lines.slice(0, at), counter, ...lines.slice(at), '```'].join('\n')
}
/** Reference runs are chunked so one slow input costs one chunk, not the whole task. */
const CHUNK = 25

/**
 * Strengthens one python-tests task: new `assert CALL == EXPECTED` statements after its own.
 * Statements whose call is not made of literal arguments are kept and not mutated; a task with
 * none comes back unchanged. Every added statement passed the reference in a rerun of the whole
 * strengthened suite.
 *
 * @example
 * const { task: stronger, added } = await strengthenTests(task, { seed: 1, inputs: 20, reference, verifier: verifiers.pythonTests() })
 */
export async function strengthenTests(task: Task, options: StrengthenOptions): Promise<StrengthenResult> {
  if (!(Number.isInteger(options.inputs) && options.inputs >= 0))
    throw new RangeError(`strengthenTests: inputs must be an integer >= 0, got ${String(options.inputs)}`)
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`strengthenTests: seed must be an integer, got ${String(options.seed)}`)
  const tests = task.tests ?? ''
  const statements = tests.split('\n').filter((l) => l.trim() !== '')
  const calls = statements.flatMap((s) => literalCall(s) ?? [])
  const none: StrengthenResult = {
    task,
    mutable: calls.length,
    candidates: 0,
    rejected: 0,
    added: 0,
    behaviours: 0,
    referenceFailures: 0,
    overBudget: 0,
    timedOut: 0,
  }
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
  if (!(Number.isSafeInteger(maxSteps) && maxSteps >= 1))
    throw new RangeError(`strengthenTests: maxSteps must be an integer >= 1, got ${String(options.maxSteps)}`)
  if (calls.length === 0 || options.inputs === 0) return none
  const rng = createRng(seedFrom(options.seed, 'strengthen', task.id))
  const constants = harvest(calls.flatMap((c) => c.args))
  const seen = new Set(calls.map((c) => callText(c.name, c.args)))
  const candidates: string[] = []
  /** Each candidate's call through the step counter (a plain function name), or as written. */
  const counted = new Map<string, string>()
  const wanted = options.inputs * (options.candidatesPerInput ?? 4)
  for (let tries = 0; tries < wanted * 5 && candidates.length < wanted; tries++) {
    const base = calls[Math.floor(rng() * calls.length)]!
    if (base.args.length === 0) continue
    const i = Math.floor(rng() * base.args.length)
    const args = base.args.map((a, j) => (j === i ? mutateValue(a, rng, constants) : a))
    const text = callText(base.name, args)
    if (!seen.has(text)) {
      seen.add(text)
      candidates.push(text)
      counted.set(
        text,
        /^[A-Za-z_]\w*$/.test(base.name)
          ? `_seqk_steps(${printPython({ type: 'str', value: base.name })}, ${args.map(printPython).join(', ')})`
          : text,
      )
    }
  }
  // The reference's output for each candidate: `== object()` never holds, so the judge reports it.
  const outputs = new Map<string, string>()
  const overBudget = new Set<string>()
  const withCounter = withStepCounter(options.reference, maxSteps)
  /**
   * Runs `chunk` in one verify. When the time limit cut it short: the candidates it never reached
   * ("not run") and the one running when it was cut (the last that has a result).
   */
  const probe = async (chunk: readonly string[]): Promise<string[]> => {
    const tests = { ...task, tests: chunk.map((c) => `assert ${counted.get(c)!} == object()`).join('\n') }
    delete (tests as { heldOutTests?: unknown }).heldOutTests
    const verdict = await options.verifier.verify(tests, withCounter)
    const results = verdict.diagnostics.tests ?? []
    for (const t of results) {
      const call = chunk[t.index]
      // A call that raised reports its exception as both `actual` and `error`; a value, its repr.
      if (call !== undefined && t.error?.startsWith(`${OVER_BUDGET}:`) === true) overBudget.add(call)
      if (call === undefined || t.actual === undefined || t.actual === t.error || parsePython(t.actual) === undefined)
        continue
      outputs.set(call, t.actual)
    }
    if (verdict.diagnostics.outcome !== 'timeout') return []
    const reached = results.filter((t) => t.actual !== undefined).map((t) => t.index)
    const cut = reached.length === 0 ? -1 : Math.max(...reached)
    return chunk.filter((_, i) => i === cut || !reached.includes(i))
  }
  let timedOut = 0
  for (let from = 0; from < candidates.length; from += CHUNK) {
    const chunk = candidates.slice(from, from + CHUNK)
    const unreached = await probe(chunk)
    // Slow calls that add up past the limit in one chunk must not decide which inputs are kept (that
    // would depend on the machine's speed): each unreached one gets a verify, and its limit, of its own.
    if (chunk.length === 1) timedOut += unreached.length
    else for (const call of unreached) timedOut += (await probe([call])).length
  }
  // Greedy cover: the first input of each distinct output, in draw order, then the rest.
  const byOutput = new Set<string>()
  const first: string[] = []
  const rest: string[] = []
  for (const c of candidates) {
    const out = outputs.get(c)
    if (out === undefined) continue
    if (byOutput.has(out)) rest.push(c)
    else {
      byOutput.add(out)
      first.push(c)
    }
  }
  const chosen = [...first, ...rest].slice(0, options.inputs)
  let added = chosen.map((c) => `assert ${c} == ${outputs.get(c)!}`)
  // Rerun the whole suite: an added statement the reference fails now (state, randomness) goes.
  const stronger = (lines: readonly string[]) => ({ ...task, tests: [tests.trimEnd(), ...lines].join('\n') })
  let referenceFailures = 0
  if (added.length > 0) {
    /** Indices (into `added`) of the statements the reference fails in `suite`, or undefined when it did not finish. */
    const failingIn = async (suite: Task): Promise<Set<number> | undefined> => {
      const verdict = await options.verifier.verify(suite, options.reference)
      if (verdict.diagnostics.outcome !== 'failed' && verdict.diagnostics.outcome !== 'passed') return undefined
      // The added statements are the suite's last ones, whatever the judge counted before them.
      const all = verdict.diagnostics.tests ?? []
      return new Set(
        all
          .filter((t) => !t.pass)
          .map((t) => t.index - (all.length - added.length))
          .filter((i) => i >= 0),
      )
    }
    // After the original tests (a stateful reference shows there); when those alone run out of time
    // on this machine (two shared tasks' take a second of CPU), the added ones, each within the step
    // budget, are rerun on their own, so a slow machine does not decide whether they are kept.
    const alone: Task = { ...task, tests: added.join('\n') }
    delete (alone as { heldOutTests?: unknown }).heldOutTests
    const failing = (await failingIn(stronger(added))) ?? (await failingIn(alone))
    referenceFailures = failing?.size ?? added.length
    added = failing === undefined ? [] : added.filter((_, i) => !failing.has(i))
  }
  const kept = new Set(added.map((a) => a.slice(a.lastIndexOf(' == ') + 4)))
  return {
    task: added.length > 0 ? stronger(added) : task,
    mutable: calls.length,
    candidates: candidates.length,
    rejected: candidates.length - outputs.size,
    added: added.length,
    behaviours: kept.size,
    referenceFailures,
    overBudget: overBudget.size,
    timedOut,
  }
}
