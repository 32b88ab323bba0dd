// Argument checks shared by the metrics. Not re-exported from index.ts: they are not part of the
// public API, only the wording of its RangeErrors is.

export function assertBudget(budget: number, name = 'budget'): void {
  if (!Number.isInteger(budget) || budget < 1) {
    throw new RangeError(`${name} must be an integer >= 1 (got ${String(budget)})`)
  }
}

export function assertCounts(n: number, c: number, k: number, where = ''): void {
  const at = where === '' ? '' : ` for ${where}`
  if (!Number.isInteger(n) || n < 0) {
    throw new RangeError(`n (samples drawn) must be an integer >= 0${at} (got ${String(n)})`)
  }
  if (!Number.isInteger(c) || c < 0) {
    throw new RangeError(`c (samples passed) must be an integer >= 0${at} (got ${String(c)})`)
  }
  if (c > n) {
    throw new RangeError(`c (samples passed) must be <= n (samples drawn)${at} (got c = ${c}, n = ${n})`)
  }
  if (!Number.isInteger(k) || k < 1) {
    throw new RangeError(`k must be an integer >= 1${at} (got ${String(k)})`)
  }
}
