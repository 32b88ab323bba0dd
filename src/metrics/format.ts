/**
 * The one way numbers are printed: the terminal table, Markdown, the HTML report, `seqk analyze`,
 * `seqk power` and the gate's messages all format through these, so a rate, a cost or a rank
 * reads the same everywhere. Pure and dependency-free (metrics/ imports nothing of ours).
 *
 * Ranks are computed, not formatted, in metrics/ranks.ts (`competitionRanks`, the one tie rule);
 * {@link ordinal} prints them.
 */

/** The minus sign every printed number uses (U+2212), not the hyphen: `−1.0`, `−$0.25`. */
export const MINUS = '\u2212'

/**
 * A digit string as printed: its minus sign dropped when every digit is zero ("-0.0" is no
 * change), and otherwise written as {@link MINUS}.
 */
function withoutNegativeZero(text: string): string {
  if (/^-0(\.0*)?$/.test(text)) return text.slice(1)
  return text.startsWith('-') ? MINUS + text.slice(1) : text
}

/** Whether a value can be printed as a number at all; anything else prints as an em dash. */
function printable(value: number | null | undefined): value is number {
  return value !== null && value !== undefined && Number.isFinite(value)
}

export interface PercentOptions {
  /** Decimals after the point (default 1: tables and messages; 0 where a rate is a round figure such as a power). */
  digits?: number
}

/**
 * A rate as points (×100, no "%" sign: the caller's heading or text says "%" or "points"), with
 * one decimal unless `digits` says otherwise. `null`/undefined/NaN/±Infinity print as an em dash,
 * and never "-0.0": a difference of −1e-17 is no change.
 *
 * @example
 * percent(0.8766) // => '87.7'
 * percent(-1e-17) // => '0.0'
 * percent(0.8, { digits: 0 }) // => '80'
 * percent(null) // => '—'
 */
export function percent(value: number | null | undefined, options: PercentOptions = {}): string {
  if (!printable(value)) return '—'
  return withoutNegativeZero((value * 100).toFixed(options.digits ?? 1))
}

/**
 * A change in points with its sign: '+3.2', '-1.0', and '+0.0' for no change (the sign follows
 * the printed digits, so a change that rounds to zero is never "-0.0").
 *
 * @example
 * signedPercent(-0.01) // => '−1.0'
 * signedPercent(0.032) // => '+3.2'
 */
export function signedPercent(value: number | null | undefined, options: PercentOptions = {}): string {
  const text = percent(value, options)
  return text === '—' || text.startsWith(MINUS) ? text : `+${text}`
}

/**
 * A ratio that is not a rate (EGS, LGS, a correlation) with two decimals; `null`/undefined/NaN
 * as an em dash, never "-0.00".
 *
 * @example
 * ratio(0.5) // => '0.50'
 * ratio(-0.001) // => '0.00'
 * ratio(-0.5) // => '−0.50'
 */
export function ratio(value: number | null | undefined): string {
  return printable(value) ? withoutNegativeZero(value.toFixed(2)) : '—'
}

/**
 * {@link ratio} with its sign, as correlations read: '+0.42', '-0.10', '+0.00'.
 *
 * @example
 * signedRatio(0.421) // => '+0.42'
 */
export function signedRatio(value: number | null | undefined): string {
  const text = ratio(value)
  return text === '—' || text.startsWith(MINUS) ? text : `+${text}`
}

/**
 * US dollars, one rule for every table, report and chart:
 * - `$0` for exactly zero (a free model, a replayed call) and for −0;
 * - cents (`$1.50`, `$0.01`) from one cent up;
 * - two significant digits below a cent (`$0.0042`, `$0.000012`, `$1.2e-7`), so a cost that is
 *   not zero never prints as zero; what rounds up to a cent prints as `$0.01`;
 * - `?` when unknown (`null`: a model without a price) or not a finite number: a cost we cannot
 *   tell, which is not the em dash of a rate that does not apply.
 *
 * A negative amount (a saving shown as a difference) keeps its sign in front: `−$0.25`.
 *
 * @example
 * money(1.5) // => '$1.50'
 * money(0.0042) // => '$0.0042'
 * money(0) // => '$0'
 * money(null) // => '?'
 */
export function money(value: number | null | undefined): string {
  if (!printable(value)) return '?'
  if (value === 0) return '$0'
  const size = Math.abs(value)
  const sign = value < 0 ? MINUS : ''
  const small = size.toPrecision(2)
  return `${sign}$${Number(small) < 0.01 ? small : size.toFixed(2)}`
}

/**
 * An English ordinal, as ranks are printed: 1st 2nd 3rd 4th … 11th 12th 13th … 21st 22nd 23rd …
 * 101st 111th 112th (11–13 of every hundred take "th").
 *
 * @throws RangeError when `n` is not an integer: ranks are whole numbers, and a fractional one
 *   is an average rank (metrics/ranks.ts `averageRanks`, for Spearman) printed by mistake.
 * @example
 * ordinal(21) // => '21st'
 * ordinal(112) // => '112th'
 */
export function ordinal(n: number): string {
  if (!Number.isInteger(n)) throw new RangeError(`ordinal(): n must be an integer (got ${String(n)})`)
  const last2 = Math.abs(n) % 100
  const last = Math.abs(n) % 10
  const suffix = last2 >= 11 && last2 <= 13 ? 'th' : last === 1 ? 'st' : last === 2 ? 'nd' : last === 3 ? 'rd' : 'th'
  return `${n}${suffix}`
}

/**
 * A count (of tokens) in at most four digits: as is below a thousand, then with one decimal and
 * `k` or `M`. The unit is picked after rounding, so 999 960 prints as `1.0M`, not `1000.0k`.
 *
 * @example
 * compactCount(950) // => '950'
 * compactCount(2048) // => '2.0k'
 * compactCount(1_234_567) // => '1.2M'
 */
export function compactCount(n: number): string {
  if (Math.abs(n) < 1e3) return String(n)
  const thousands = (n / 1e3).toFixed(1)
  return Math.abs(Number(thousands)) < 1e3 ? `${thousands}k` : `${(n / 1e6).toFixed(1)}M`
}

/**
 * A rate with its "%" sign, for sentences (threshold and gate messages): {@link percent} and '%',
 * or an em dash alone when there is no number.
 *
 * @example
 * percentText(0.5) // => '50.0%'
 * percentText(null) // => '—'
 */
export function percentText(value: number | null | undefined, options: PercentOptions = {}): string {
  const text = percent(value, options)
  return text === '—' ? text : `${text}%`
}

/**
 * A count with its noun, singular for exactly one: '1 error', '2 errors', '0 cells'. The plural
 * is the singular with an "s" unless given ('trajectory', 'trajectories').
 *
 * @example
 * plural(1, 'error') // => '1 error'
 * plural(4, 'task') // => '4 tasks'
 * plural(3, 'trajectory', 'trajectories') // => '3 trajectories'
 */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`
}

export interface IntervalOptions extends PercentOptions {
  /** Signed bounds, for a difference (`−13.2–+8.4`). */
  signed?: boolean
}

/**
 * An interval as every output writes it: its two bounds in points joined by an en dash
 * (`65.1–97.7`, a difference `−13.2–+8.4`), or an em dash alone when a bound is unknown.
 *
 * @example
 * intervalText(0.651, 0.977) // => '65.1–97.7'
 * intervalText(-0.132, 0.084, { signed: true }) // => '−13.2–+8.4'
 * intervalText(null, 0.5) // => '—'
 */
export function intervalText(
  lo: number | null | undefined,
  hi: number | null | undefined,
  options: IntervalOptions = {},
): string {
  if (!printable(lo) || !printable(hi)) return '—'
  const bound = options.signed ? signedPercent : percent
  return `${bound(lo, options)}\u2013${bound(hi, options)}`
}

/**
 * A p-value as every output writes it: two significant digits in plain decimals from 0.001 up
 * (`0.025`, `0.0010`), `< 0.001` below (never an exponent), with its `p` and relation.
 *
 * @example
 * pValueText(0.0249) // => 'p = 0.025'
 * pValueText(0.001) // => 'p = 0.0010'
 * pValueText(8.6e-4) // => 'p < 0.001'
 */
export function pValueText(p: number | null | undefined): string {
  if (!printable(p)) return 'p = —'
  return p < 0.001 ? 'p < 0.001' : `p = ${probability(p)}`
}

/**
 * A probability or significance level in two significant digits, plain decimals, never an
 * exponent (`0.025`, `0.0125` → `0.013`); below 0.0001, `< 0.0001`.
 *
 * @example
 * probability(0.0125) // => '0.013'
 */
export function probability(p: number | null | undefined): string {
  if (!printable(p)) return '—'
  if (p < 0.0001) return '< 0.0001'
  const [digits, exponent] = p.toExponential(1).split('e')
  const e = Number(exponent)
  return e >= 0 ? p.toPrecision(2) : (Number(digits) * 10 ** e).toFixed(1 - e)
}

/**
 * A share as a count of a total: `3/4`, or an em dash when the total is zero.
 *
 * @example
 * fraction(3, 4) // => '3/4'
 */
export function fraction(n: number, total: number): string {
  return total === 0 ? '—' : `${n}/${total}`
}

/**
 * A share in points with the counts it comes from: `75.0 (3/4)`, or an em dash alone when the
 * total is zero (no rate, and no `0.0` that would read as a measured zero).
 *
 * @example
 * shareText(3, 4) // => '75.0 (3/4)'
 * shareText(0, 0) // => '—'
 */
export function shareText(
  n: number,
  total: number,
  rate: number | null | undefined = total === 0 ? null : n / total,
): string {
  return total === 0 ? '—' : `${percent(rate)} (${fraction(n, total)})`
}

/**
 * A token total as every output writes it when some calls may not have reported usage: the
 * count ({@link compactCount}); `≥` before it when `unknownCalls` of the calls are not in it;
 * `unknown` when none reported any (`total` null). Never a zero for an unknown.
 *
 * @example
 * tokensText(2048, 0) // => '2.0k'
 * tokensText(2048, 3) // => '≥2.0k'
 * tokensText(null, 12) // => 'unknown'
 */
export function tokensText(total: number | null, unknownCalls = 0): string {
  if (total === null) return 'unknown'
  return `${unknownCalls > 0 ? '≥' : ''}${compactCount(total)}`
}
