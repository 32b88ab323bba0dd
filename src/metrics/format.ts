/**
 * A rate as points with one decimal, the one way tables, reports and messages print rates:
 * `null`/undefined/NaN as an em dash, and never "-0.0" (a difference of −1e-17 is no change).
 *
 * @example
 * percent(0.8766) // => '87.7'
 * percent(-1e-17) // => '0.0'
 */
export function percent(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  const text = (value * 100).toFixed(1)
  return text === '-0.0' ? '0.0' : text
}

/**
 * A change in points with its sign: '+3.2', '-1.0', '+0.0'.
 *
 * @example
 * signedPercent(-0.01) // => '-1.0'
 */
export function signedPercent(value: number | null | undefined): string {
  const text = percent(value)
  return text === '—' || text.startsWith('-') ? text : `+${text}`
}
