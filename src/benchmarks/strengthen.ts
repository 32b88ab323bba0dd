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
}

/** What strengthening one task did. */
export interface StrengthenResult {
  /** The task with the new statements after its own (`tests`), or the task unchanged. */
  task: Task
  /** Statements of the original tests whose call has literal arguments (the ones mutated). */
  mutable: number
  /** Candidate inputs run through the reference. */
  candidates: number
  /** Candidates the reference raised on, timed out on, or returned a value that is no literal for. */
  rejected: number
  /** New statements in the strengthened suite. */
  added: number
  /** Distinct reference outputs among the added statements. */
  behaviours: number
  /** Statements of the strengthened suite the reference failed when rerun (a flaky or stateful reference): dropped from `added`. */
  referenceFailures: number
  /**
   * Candidates that ran past the verifier's time limit on their own: dropped (counted in
   * `rejected` too). Whether a call near the limit finishes depends on the machine's speed, so a
   * task with any is reproducible by seed only on a machine as fast.
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
    timedOut: 0,
  }
  if (calls.length === 0 || options.inputs === 0) return none
  const rng = createRng(seedFrom(options.seed, 'strengthen', task.id))
  const constants = harvest(calls.flatMap((c) => c.args))
  const seen = new Set(calls.map((c) => callText(c.name, c.args)))
  const candidates: string[] = []
  const wanted = options.inputs * (options.candidatesPerInput ?? 4)
  for (let tries = 0; tries < wanted * 5 && candidates.length < wanted; tries++) {
    const base = calls[Math.floor(rng() * calls.length)]!
    if (base.args.length === 0) continue
    const i = Math.floor(rng() * base.args.length)
    const text = callText(
      base.name,
      base.args.map((a, j) => (j === i ? mutateValue(a, rng, constants) : a)),
    )
    if (!seen.has(text)) {
      seen.add(text)
      candidates.push(text)
    }
  }
  // The reference's output for each candidate: `== object()` never holds, so the judge reports it.
  const outputs = new Map<string, string>()
  /**
   * Runs `chunk` in one verify. When the time limit cut it short: the candidates it never reached
   * ("not run") and the one running when it was cut (the last that has a result).
   */
  const probe = async (chunk: readonly string[]): Promise<string[]> => {
    const tests = { ...task, tests: chunk.map((c) => `assert ${c} == object()`).join('\n') }
    delete (tests as { heldOutTests?: unknown }).heldOutTests
    const verdict = await options.verifier.verify(tests, options.reference)
    const results = verdict.diagnostics.tests ?? []
    for (const t of results) {
      const call = chunk[t.index]
      // A call that raised reports its exception as both `actual` and `error`; a value, its repr.
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
    const verdict = await options.verifier.verify(stronger(added), options.reference)
    // The added statements are the suite's last ones, whatever the judge counted before them.
    const all = verdict.diagnostics.tests ?? []
    const failing = new Set(
      all
        .filter((t) => !t.pass)
        .map((t) => t.index - (all.length - added.length))
        .filter((i) => i >= 0),
    )
    referenceFailures =
      verdict.diagnostics.outcome === 'failed' || verdict.diagnostics.outcome === 'passed' ? failing.size : added.length
    added =
      verdict.diagnostics.outcome === 'failed' || verdict.diagnostics.outcome === 'passed'
        ? added.filter((_, i) => !failing.has(i))
        : []
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
    timedOut,
  }
}
