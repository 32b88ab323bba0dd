/**
 * The few distribution functions the intervals need (Beta and Student t quantiles), written here
 * rather than pulled in: each is a textbook algorithm of a dozen lines, checked against reference
 * values in the tests.
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ]
  const y = x - 1
  let a = c[0]!
  const t = y + 7.5
  for (let i = 1; i < 9; i++) a += c[i]! / (y + i)
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a)
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 500; m++) {
    const m2 = 2 * m
    let term = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2))
    d = 1 + term * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + term / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    term = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2))
    d = 1 + term * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + term / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const step = d * c
    h *= step
    if (Math.abs(step - 1) < 1e-15) break
  }
  return h
}

/**
 * The regularised incomplete beta function I_x(a, b) = P(X ≤ x) for X ~ Beta(a, b), a, b > 0.
 *
 * @example
 * regularizedBeta(0.5, 2, 2) // => 0.5
 */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x))
  // The fraction converges fast on the side of the mean; the other side uses the symmetry I_x(a,b) = 1 - I_{1-x}(b,a).
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b
}

/**
 * The p-quantile of Beta(a, b): the x with I_x(a, b) = p, by bisection (the CDF is monotone, so
 * 64 halvings reach the spacing of doubles in [0, 1] without any convergence caveat).
 *
 * @example
 * betaQuantile(0.025, 10, 1) // => 0.025 ** (1 / 10) ≈ 0.6915
 */
export function betaQuantile(p: number, a: number, b: number): number {
  if (p <= 0) return 0
  if (p >= 1) return 1
  let lo = 0
  let hi = 1
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2
    if (regularizedBeta(mid, a, b) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/**
 * P(T ≤ t) for Student's t with `df` > 0 degrees of freedom (through the incomplete beta function).
 *
 * @example
 * studentTCdf(0, 5) // => 0.5
 */
export function studentTCdf(t: number, df: number): number {
  if (t === Infinity) return 1
  if (t === -Infinity) return 0
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5)
  return t > 0 ? 1 - tail : tail
}

/**
 * The p-quantile of Student's t with `df` degrees of freedom (df = Infinity gives the normal
 * quantile), by bisection on the CDF.
 *
 * @example
 * studentTQuantile(0.975, 9) // ≈ 2.2622
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) return p <= 0 ? -Infinity : Infinity
  if (df === Infinity) return normalQuantile(p)
  if (p < 0.5) return -studentTQuantile(1 - p, df)
  // Intervals ask for the same few quantiles (0.975 at N − 1) thousands of times in a power
  // simulation, and each costs some 80 incomplete-beta evaluations: remembered, per (p, df).
  const key = `${p}/${df}`
  const known = T_QUANTILES.get(key)
  if (known !== undefined) return known
  const value = tQuantileBySearch(p, df)
  if (T_QUANTILES.size >= 4096) T_QUANTILES.clear()
  T_QUANTILES.set(key, value)
  return value
}

const T_QUANTILES = new Map<string, number>()

function tQuantileBySearch(p: number, df: number): number {
  let lo = 0
  let hi = 1
  while (studentTCdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 80 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2
    if (studentTCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

/**
 * The p-quantile of the standard normal (Acklam's rational approximation, relative error
 * 1.15e-9: far below anything an interval bound is printed with).
 *
 * @example
 * normalQuantile(0.975) // ≈ 1.959964
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p <= 0 ? -Infinity : Infinity
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
    2.506628277459239,
  ]
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1]
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416]
  const low = 0.02425
  let x: number
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p))
    x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  } else if (p <= 1 - low) {
    const q = p - 0.5
    const r = q * q
    x =
      ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
      (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p))
    x =
      -(((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  }
  return x
}
