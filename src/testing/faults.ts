// The fault queue: faults wait in the order they were injected; each request takes the first one
// whose `match` accepts it, until the fault's `times` are used up.
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import type { Fault, FaultSpec, TestServerRequest } from './types.js'

const FaultSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('status'),
    status: z.union([
      z.literal(408),
      z.literal(409),
      z.literal(429),
      z.literal(500),
      z.literal(502),
      z.literal(503),
      z.literal(529),
    ]),
    retryAfterSeconds: z.number().nonnegative().optional(),
    retryAfterMs: z.number().nonnegative().optional(),
  }),
  z.object({ kind: z.literal('slow'), delayMs: z.number().nonnegative() }),
  z.object({ kind: z.literal('hang') }),
  z.object({ kind: z.literal('reset') }),
  z.object({ kind: z.literal('malformed-json') }),
  z.object({ kind: z.literal('empty-choices') }),
  z.object({ kind: z.literal('truncated') }),
  z.object({ kind: z.literal('stream-cut') }),
])
const ScopeSchema = z.object({
  times: z.number().int().positive().optional(),
  match: z
    .custom<(request: TestServerRequest) => boolean>((value) => typeof value === 'function', 'expected a function')
    .optional(),
})

interface QueuedFault {
  fault: Fault
  remaining: number
  match?: (request: TestServerRequest) => boolean
}

/** Faults waiting for requests. One test server owns one queue. */
export class FaultQueue {
  #queue: QueuedFault[] = []

  /** Appends faults; throws a TypeError naming the field when one is malformed (e.g. an unsupported status). */
  add(...specs: FaultSpec[]): void {
    const queued = specs.map((spec, i) => {
      const fault = FaultSchema.safeParse(spec)
      const scope = ScopeSchema.safeParse(spec)
      if (!fault.success) throw new TypeError(`injectFaults: fault #${i}: ${describeZodError(fault.error)}`)
      if (!scope.success) throw new TypeError(`injectFaults: fault #${i}: ${describeZodError(scope.error)}`)
      return { fault: fault.data as Fault, remaining: spec.times ?? 1, match: spec.match }
    })
    this.#queue.push(...queued)
  }

  /** The fault for `request`, if any (using one of its `times`). A throwing `match` propagates. */
  take(request: TestServerRequest): Fault | undefined {
    const at = this.#queue.findIndex((entry) => entry.match === undefined || entry.match(request))
    if (at < 0) return undefined
    const entry = this.#queue[at]!
    entry.remaining -= 1
    if (entry.remaining <= 0) this.#queue.splice(at, 1)
    return entry.fault
  }

  /** Faults still waiting (each counted once, whatever its remaining `times`). */
  get pending(): number {
    return this.#queue.length
  }

  clear(): void {
    this.#queue = []
  }
}

/** `retry-after` (whole or fractional seconds, as given) and `retry-after-ms` headers of a status fault. */
export function retryHeaders(fault: Extract<Fault, { kind: 'status' }>): Record<string, string> {
  const headers: Record<string, string> = {}
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds)
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs)
  return headers
}
