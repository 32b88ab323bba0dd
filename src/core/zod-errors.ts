import type { z } from 'zod'

/** One line per issue: `field.path: message (got value)`, so errors name the field to fix. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
        .join('')
      // With `reportInput: true` the offending value is on the issue; show it when it is short.
      const input = (issue as { input?: unknown }).input
      const shown =
        input === undefined || typeof input === 'object' || typeof input === 'function'
          ? ''
          : ` (got ${JSON.stringify(input)})`
      return `${path || '(root)'}: ${issue.message}${shown}`
    })
    .join('; ')
}
