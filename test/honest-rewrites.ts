/**
 * Honest rewrites of reference solutions (test/honest-rewrites.py): programs a task cannot tell
 * from its reference, written as another correct answer might be. A strengthened suite must pass
 * every one that passes the original tests: a failure is a correct answer rejected.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { OFFICIAL_PYTHON } from './official-harness.js'

/** The rewrite families, in the order test/honest-rewrites.py documents them. */
export const HONEST_FAMILIES = [
  'float-arithmetic',
  'truncating-division',
  'round-half-away',
  'set-order',
  'zip-by-index',
] as const
export type HonestFamily = (typeof HONEST_FAMILIES)[number]

const SCRIPT = fileURLToPath(new URL('./honest-rewrites.py', import.meta.url))

/** Each code rewritten by its family, or null where the family changes nothing in it. */
export function honestRewrites(requests: readonly { code: string; family: HonestFamily }[]): (string | null)[] {
  const out = execFileSync(OFFICIAL_PYTHON, [SCRIPT], {
    input: JSON.stringify(requests),
    maxBuffer: 256 * 1024 * 1024,
    encoding: 'utf8',
  })
  return JSON.parse(out) as (string | null)[]
}
