/**
 * Checked extension points. A verifier, feedback mode, history policy, chat model or predicate is
 * user code the loop calls; what it returns is checked with zod where it enters the loop, and a
 * value outside the contract is a {@link ComponentError} naming the component, the field and the
 * fix, instead of a crash far away (a reporter reading `diagnostics.outcome` of undefined, a
 * trajectory file that no longer parses) or, worse, a silent failure (`pass: 'yes'`).
 */
import type { z } from 'zod'
import { describeZodError } from './zod-errors.js'

const BRAND = Symbol.for('vitest-seqk.componentError')

/** What a {@link ComponentError} is built from: who broke its contract, where, and how to fix it. */
export interface ContractBreach {
  /** The component as the user knows it: `verifier "my-check"@1`, `chat model "echo" (actor)`. */
  component: string
  /** What it returned: `verdict`, `feedback`, `history`, `completion`, `predicate result`. */
  returned: string
  /** Where, for reproduction: `for task "t1", attempt 2`. */
  where?: string
  /** The contract as a whole: the shape to return. Said when no field-specific hint applies. */
  contract: string
  /**
   * Field-specific fixes by dotted path (`pass`, `diagnostics.outcome`, `(root)` for the whole
   * value); the longest path that is a prefix of a failing field wins.
   */
  hints?: Readonly<Record<string, string>>
}

/** One problem with a returned value: its field (dotted path, `(root)` for the whole value) and what is wrong. */
export interface ContractProblem {
  field: string
  message: string
}

/**
 * A component plugged into the loop returned a value outside its contract: a bug in that
 * component's code, not in the answer under test and not in the infrastructure.
 *
 * The protocol does not record it as an infrastructure error of one trajectory (a `StageError`):
 * it is thrown out of the trajectory and fails the whole cell at once, with this message. Why:
 * - it is deterministic: every trajectory would hit the same bug, so running on only spends money;
 * - an infrastructure error can be tolerated (`maxErrorRate`), censored in the rates and retried
 *   by a resume, none of which a programming error should get: a wrong-shaped verdict must never
 *   count as a pass, nor as a silent failure, nor as a measurement at all;
 * - the message names what to change, so the cell's failure is the fastest way to the fix.
 * A component that *throws* (a grader that is down, a predicate that crashed) is still an
 * infrastructure error of the trajectory, as before: only a returned value is checked here.
 *
 * @example
 * catch (error) { if (isComponentError(error)) console.error(error.component, error.fields) }
 */
export class ComponentError extends TypeError {
  /** Who broke its contract, e.g. `verifier "my-check"@1`. */
  readonly component: string
  /** The failing fields as dotted paths (`pass`, `diagnostics.outcome`; `(root)` for the whole value). */
  readonly fields: readonly string[]
  /** What to change. */
  readonly fix: string

  constructor(breach: ContractBreach, problems: readonly ContractProblem[]) {
    const fields = [...new Set(problems.map((p) => p.field))]
    const fix = fixFor(breach, fields)
    const where = breach.where ? ` ${breach.where}` : ''
    super(
      `${breach.component} returned a malformed ${breach.returned}${where}: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}. Fix: ${fix}`,
    )
    this.name = 'ComponentError'
    this.component = breach.component
    this.fields = fields
    this.fix = fix
    Object.defineProperty(this, BRAND, { value: true })
  }
}

/** Whether `error` is a {@link ComponentError} (also one from another copy of this package). */
export function isComponentError(error: unknown): error is ComponentError {
  return error !== null && typeof error === 'object' && (error as Record<symbol, unknown>)[BRAND] === true
}

function fixFor(breach: ContractBreach, fields: readonly string[]): string {
  const hints = breach.hints ?? {}
  const keys = Object.keys(hints)
  const chosen: string[] = []
  for (const field of fields) {
    const key = keys
      .filter((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`))
      .sort((a, b) => b.length - a.length)[0]
    const hint = key === undefined ? undefined : hints[key]
    if (hint !== undefined && !chosen.includes(hint)) chosen.push(hint)
  }
  return chosen.length > 0
    ? `${chosen.join('; ')}. The ${breach.returned} must be ${breach.contract}`
    : `the ${breach.returned} must be ${breach.contract}`
}

/** The dotted path of a zod issue, as {@link describeZodError} writes it. */
function pathOf(path: readonly PropertyKey[]): string {
  return (
    path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('') || '(root)'
  )
}

/**
 * The problems zod found in `value` (re-parsed with the offending values reported; only called
 * once a check failed, so the happy path pays nothing for it), one per issue, with field paths
 * and messages from {@link describeZodError}.
 */
export function zodProblems(schema: z.ZodType, value: unknown): ContractProblem[] {
  const parsed = schema.safeParse(value, { reportInput: true })
  if (parsed.success) return []
  if (value === undefined || value === null)
    return [{ field: '(root)', message: `got ${String(value)} (nothing was returned)` }]
  return parsed.error.issues.map((issue) => {
    const field = pathOf(issue.path)
    const described = describeZodError({ issues: [issue] } as z.ZodError)
    return { field, message: described.slice(described.indexOf(': ') + 2) }
  })
}

/**
 * Checks `value` against `schema` and returns the parsed value, or throws the
 * {@link ComponentError} of `breach()` (built only on failure). For the colder paths; the loop's
 * hot checks call `safeParse` inline and build the error only on failure.
 *
 * @example
 * const result = checkReturned(ResultSchema, returned, () => ({ component: 'verifiers.predicate("even")', returned: 'predicate result', contract: 'true, false or { pass, reason? }' }))
 */
export function checkReturned<T>(schema: z.ZodType<T>, value: unknown, breach: () => ContractBreach): T {
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new ComponentError(breach(), zodProblems(schema, value))
}

/** A short, safe rendering of a value for an error message. */
export function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 59)}…` : value)
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return `${value}n`
  if (value === null || typeof value !== 'object') return String(value)
  return Array.isArray(value) ? 'an array' : 'an object'
}
