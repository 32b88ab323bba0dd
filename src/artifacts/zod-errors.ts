import type { z } from 'zod'

/** One line per issue: `field.path: message`, so errors name the field to fix. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('')
      return `${path || '(root)'}: ${issue.message}`
    })
    .join('; ')
}
