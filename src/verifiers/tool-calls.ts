/**
 * The `tool-calls` verifier: for tasks whose success is calling the right tools with the right
 * arguments. It scores an agent's recorded episode (every tool call of every turn), not its text.
 */
import { z } from 'zod'
import { canonicalJson } from '../core/fingerprint.js'
import type { ToolCallRecord } from '../core/episode.js'
import type { AnyTask } from '../core/task.js'
import { describeZodError } from '../core/zod-errors.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { booleanOption, choiceOption } from './reference.js'
import type { TestOutcome, Verdict, Verifier, VerifyOptions } from './verifier.js'

/** One call a task expects: the tool's name and, optionally, arguments it must be given. */
export const ExpectedToolCallSchema = z
  .object({
    name: z.string().min(1),
    /** The arguments (all of them with `arguments: 'exact'`, else these keys with these values). */
    arguments: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
/** One call a task expects (see {@link ExpectedToolCallSchema}). */
export type ExpectedToolCall = z.infer<typeof ExpectedToolCallSchema>

/**
 * The task field the tool-calls verifier owns. `protocol/task.ts` adds it to the TaskSchema.
 *
 * @example
 * ToolCallsTaskFieldsSchema.parse({ expectedToolCalls: [{ name: 'search', arguments: { query: 'seq@k' } }] })
 */
export const ToolCallsTaskFieldsSchema = z.object({
  /** The tool calls an agent must make for the task to pass (`verifiers.toolCalls()`). */
  expectedToolCalls: z.array(ExpectedToolCallSchema).min(1).optional(),
})

/** The options of `verifiers.toolCalls()`. */
export interface ToolCallsOptions {
  /** `'any'` (default): the expected calls in any order; `'strict'`: in the task's order (other calls may come between, unless `allowExtra: false`). */
  order?: 'any' | 'strict'
  /** `'subset'` (default): the expected keys with equal values (as canonical JSON); `'exact'`: the whole arguments object equal. */
  arguments?: 'subset' | 'exact'
  /** Calls beyond the expected ones are allowed (default true); false: any other call fails the verdict. */
  allowExtra?: boolean
  /** A call that failed (invalid arguments, the tool threw) still counts as made (default false). */
  allowErrors?: boolean
}

const OPTIONS = ['order', 'arguments', 'allowExtra', 'allowErrors'] as const
const WHERE = 'verifiers.toolCalls()'

function expectedOf(task: AnyTask): ExpectedToolCall[] | string {
  const parsed = ToolCallsTaskFieldsSchema.safeParse(task, { reportInput: true })
  if (!parsed.success)
    return `task ${task.id}: ${describeZodError(parsed.error)}: give expectedToolCalls as [{ name: 'tool', arguments?: { ... } }]`
  if (parsed.data.expectedToolCalls === undefined)
    return `task ${task.id}: tool-calls needs \`expectedToolCalls\` ([{ name, arguments? }]), but the task has none`
  return parsed.data.expectedToolCalls
}

const shownCall = (name: string, args: unknown): string => `${name}(${args === undefined ? '' : canonicalJson(args)})`

/**
 * A verifier that passes when the agent's episode made every call the task's `expectedToolCalls`
 * lists (each recorded call matches at most one expected call), with the arguments they give.
 * Its diagnostics list each expected call, met or not, with the closest call made by that name,
 * so `feedback.verifier()` tells the agent what it missed. An attempt without an episode (the
 * actor is not `actors.agent`) is an error, never a verdict.
 *
 * @example
 * seqEval('routing', { tasks, actors: [actors.agent({ model, tools })], verifier: verifiers.toolCalls({ order: 'strict' }) })
 */
export function toolCalls(options: ToolCallsOptions = {}): Verifier {
  rejectUnknownOptions(WHERE, options, OPTIONS)
  const order = choiceOption(WHERE, 'order', options.order, ['any', 'strict'] as const, 'any')
  const argumentsRule = choiceOption(WHERE, 'arguments', options.arguments, ['subset', 'exact'] as const, 'subset')
  const allowExtra = booleanOption(WHERE, 'allowExtra', options.allowExtra, true)
  const allowErrors = booleanOption(WHERE, 'allowErrors', options.allowErrors, false)

  const matches = (expected: ExpectedToolCall, call: ToolCallRecord, args: unknown): boolean => {
    if (call.name !== expected.name || (!allowErrors && call.error !== null)) return false
    if (expected.arguments === undefined) return true
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return false
    if (argumentsRule === 'exact') return canonicalJson(args) === canonicalJson(expected.arguments)
    const given = args as Record<string, unknown>
    return Object.entries(expected.arguments).every(
      ([key, value]) => key in given && canonicalJson(given[key]) === canonicalJson(value),
    )
  }

  return {
    name: 'tool-calls',
    version: '1',
    settings: { order, arguments: argumentsRule, allowExtra, allowErrors },
    checkTask(task) {
      const expected = expectedOf(task)
      return typeof expected === 'string' ? [expected] : []
    },
    verify(task: AnyTask, _answer: string, verifyOptions: VerifyOptions = {}): Verdict {
      const expected = expectedOf(task)
      if (typeof expected === 'string') throw new Error(`vitest-seqk ${WHERE}: ${expected}`)
      const { episode } = verifyOptions
      if (episode === undefined)
        throw new Error(
          `vitest-seqk ${WHERE}: the attempt at task ${task.id} has no episode of tool calls; the actor must be actors.agent({ model, tools })`,
        )
      const calls = episode.turns.flatMap((t) => t.toolCalls)
      const args = calls.map((c) => {
        try {
          return JSON.parse(c.arguments) as unknown
        } catch {
          return undefined
        }
      })
      const fits = (e: number, c: number) => matches(expected[e]!, calls[c]!, args[c])
      const matchedCall =
        order === 'strict'
          ? matchInOrder(expected.length, calls.length, fits)
          : matchAny(expected.length, calls.length, fits)
      const used = new Set(matchedCall.filter((c) => c >= 0))
      const extra = calls.filter((_c, i) => !used.has(i))
      const tests: TestOutcome[] = expected.map((e, index) => {
        const made = matchedCall[index]!
        const source = shownCall(e.name, e.arguments)
        if (made >= 0) return { index, source, pass: true, actual: shownCall(calls[made]!.name, args[made]) }
        const near = calls.findIndex((c) => c.name === e.name)
        return {
          index,
          source,
          pass: false,
          ...(near >= 0 ? { actual: shownCall(calls[near]!.name, args[near] ?? calls[near]!.arguments) } : {}),
          error:
            near < 0
              ? `no call of ${e.name}`
              : calls[near]!.error !== null && !allowErrors
                ? `the call of ${e.name} failed: ${calls[near]!.error}`
                : order === 'strict'
                  ? `no call of ${e.name} with these arguments in this order`
                  : `no call of ${e.name} with these arguments`,
        }
      })
      const missing = tests.filter((t) => !t.pass).length
      const extraFails = !allowExtra && extra.length > 0
      const pass = missing === 0 && !extraFails
      const parts = [
        missing === 0
          ? `all ${expected.length} expected tool call${expected.length === 1 ? ' was' : 's were'} made`
          : `${missing} of ${expected.length} expected tool calls ${missing === 1 ? 'was' : 'were'} not made: ${tests
              .filter((t) => !t.pass)
              .map((t) => t.source)
              .join(', ')}`,
        ...(extraFails
          ? [
              `${extra.length} other call${extra.length === 1 ? '' : 's'} (allowExtra: false): ${extra.map((c) => c.name).join(', ')}`,
            ]
          : []),
      ]
      return {
        pass,
        score: (expected.length - missing) / expected.length,
        extracted: calls.map((c, i) => shownCall(c.name, args[i] ?? c.arguments)).join('\n'),
        diagnostics: { outcome: pass ? 'passed' : 'failed', summary: parts.join('; '), tests },
      }
    },
  }
}

/** For each expected call (in order), the earliest recorded call after the previous match that fits, or -1 (greedy is optimal for a subsequence). */
function matchInOrder(expected: number, calls: number, fits: (e: number, c: number) => boolean): number[] {
  const out: number[] = []
  let from = 0
  for (let e = 0; e < expected; e++) {
    let found = -1
    for (let c = from; c < calls; c++) {
      if (fits(e, c)) {
        found = c
        break
      }
    }
    out.push(found)
    if (found >= 0) from = found + 1
  }
  return out
}

/** A maximum matching of expected calls to recorded calls, each used once (augmenting paths; lists are short). */
function matchAny(expected: number, calls: number, fits: (e: number, c: number) => boolean): number[] {
  const ofCall = new Array<number>(calls).fill(-1)
  const augment = (e: number, seen: boolean[]): boolean => {
    for (let c = 0; c < calls; c++) {
      if (seen[c] || !fits(e, c)) continue
      seen[c] = true
      if (ofCall[c] === -1 || augment(ofCall[c]!, seen)) {
        ofCall[c] = e
        return true
      }
    }
    return false
  }
  for (let e = 0; e < expected; e++) augment(e, new Array<boolean>(calls).fill(false))
  const out = new Array<number>(expected).fill(-1)
  ofCall.forEach((e, c) => {
    if (e >= 0) out[e] = c
  })
  return out
}
