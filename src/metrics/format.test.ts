import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compactCount,
  fraction,
  intervalText,
  MINUS,
  money,
  ordinal,
  percent,
  percentText,
  plural,
  pValueText,
  ratio,
  shareText,
  signedPercent,
  signedRatio,
} from './format.js'
import { competitionRanks, sameRate } from './ranks.js'

const RUNS = { seed: 42, numRuns: 500 }

/** A printed number read back: the minus sign (U+2212) as JavaScript's. */
const read = (text: string): number => Number(text.replace(MINUS, '-'))
/** What a printed amount says, read back: "−$0.25" → -0.25, "$1.2e-7" → 1.2e-7. */
const readMoney = (text: string): number =>
  (text.startsWith(MINUS) ? -1 : 1) * Number(text.replace(new RegExp(`^${MINUS}?\\$`), ''))

describe('percent', () => {
  it('prints points with one decimal and never "-0.0"', () => {
    expect(percent(0.8766)).toBe('87.7')
    expect(percent(-1e-17)).toBe('0.0')
    expect(percent(-0)).toBe('0.0')
    expect(percent(null)).toBe('—')
    expect(percent(undefined)).toBe('—')
    expect(percent(Number.NaN)).toBe('—')
    expect(percent(Number.POSITIVE_INFINITY)).toBe('—')
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), (v) => percent(v) !== '-0.0'),
      RUNS,
    )
  })

  it('takes other precisions through one option, with the same laws', () => {
    expect(percent(0.8, { digits: 0 })).toBe('80')
    expect(percent(-0.004, { digits: 0 })).toBe('0')
    expect(percent(0.87654, { digits: 2 })).toBe('87.65')
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), fc.integer({ min: 0, max: 3 }), (v, digits) => {
        const text = percent(v, { digits })
        expect(text).not.toMatch(/^-0(\.0*)?$/)
        expect(text.split('.')[1]?.length ?? 0).toBe(digits)
        // Read back, it is the rate to within half a unit of its last digit.
        expect(Math.abs(read(text) / 100 - v)).toBeLessThanOrEqual((0.5 * 10 ** -digits) / 100 + 1e-12)
      }),
      RUNS,
    )
  })

  it('signs a change: +, − or +0.0 for no change, the sign agreeing with the digits', () => {
    expect(signedPercent(0.032)).toBe('+3.2')
    expect(signedPercent(-0.01)).toBe('−1.0')
    expect(signedPercent(-1e-17)).toBe('+0.0')
    expect(signedPercent(null)).toBe('—')
    expect(signedPercent(-0.1, { digits: 0 })).toBe('−10')
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), (v) => {
        const text = signedPercent(v)
        expect(text.slice(1)).toBe(percent(Math.abs(v)))
        expect(text[0]).toBe(read(percent(v)) < 0 ? MINUS : '+')
        expect(text).not.toContain('-')
      }),
      RUNS,
    )
  })
})

describe('ratio', () => {
  it('prints two decimals, never "-0.00", and signs correlations', () => {
    expect(ratio(0.5)).toBe('0.50')
    expect(ratio(-0.001)).toBe('0.00')
    expect(ratio(null)).toBe('—')
    expect(signedRatio(0.421)).toBe('+0.42')
    expect(signedRatio(-0.1)).toBe('−0.10')
    expect(signedRatio(-0.001)).toBe('+0.00')
    expect(signedRatio(undefined)).toBe('—')
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), (v) => {
        expect(ratio(v)).not.toBe('-0.00')
        expect(signedRatio(v)).not.toBe('-0.00')
      }),
      RUNS,
    )
  })
})

describe('money', () => {
  it('follows one rule: $0, cents from a cent up, two significant digits below, ? when unknown', () => {
    expect(money(0)).toBe('$0')
    expect(money(-0)).toBe('$0')
    expect(money(1.5)).toBe('$1.50')
    expect(money(0.01)).toBe('$0.01')
    expect(money(0.0042)).toBe('$0.0042')
    expect(money(0.00012)).toBe('$0.00012')
    expect(money(0.000012)).toBe('$0.000012')
    expect(money(1.2e-7)).toBe('$1.2e-7')
    // Rounds up to a cent: a cent, not "$0.010".
    expect(money(0.00999)).toBe('$0.01')
    expect(money(-0.25)).toBe('−$0.25')
    expect(money(null)).toBe('?')
    expect(money(undefined)).toBe('?')
    expect(money(Number.NaN)).toBe('?')
    expect(money(Number.POSITIVE_INFINITY)).toBe('?')
  })

  it('never prints "-0", "NaN", or a cost that is not zero as zero', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (v) => {
        const text = money(v)
        expect(text).toMatch(/^\u2212?\$\d/)
        expect(text).not.toMatch(/NaN|Infinity|^\u2212\$0$|^\u2212\$0\.0*$/)
        if (v !== 0) expect(readMoney(text)).not.toBe(0)
      }),
      RUNS,
    )
  })

  it('reads back to within its precision: half a cent, or 5% below a cent', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (v) => {
        const back = readMoney(money(v))
        if (Math.abs(v) >= 0.01) expect(Math.abs(back - v)).toBeLessThanOrEqual(0.005 + Math.abs(v) * 1e-12)
        else if (v !== 0) expect(Math.abs(back - v) / Math.abs(v)).toBeLessThanOrEqual(0.05 + 1e-9)
        else expect(back).toBe(0)
      }),
      RUNS,
    )
  })
})

describe('ordinal', () => {
  it('prints the ranks people read', () => {
    const cases: [number, string][] = [
      [1, '1st'],
      [2, '2nd'],
      [3, '3rd'],
      [4, '4th'],
      [11, '11th'],
      [12, '12th'],
      [13, '13th'],
      [21, '21st'],
      [22, '22nd'],
      [23, '23rd'],
      [101, '101st'],
      [111, '111th'],
      [112, '112th'],
      [0, '0th'],
    ]
    for (const [n, text] of cases) expect(ordinal(n)).toBe(text)
  })

  it('agrees with English ordinal plural rules for every n in 1..10000', () => {
    // An independent oracle: ICU's ordinal categories (one → st, two → nd, few → rd, other → th).
    const rules = new Intl.PluralRules('en-US', { type: 'ordinal' })
    const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th', zero: 'th', many: 'th' } as const
    for (let n = 1; n <= 10000; n++) expect(ordinal(n)).toBe(`${n}${suffix[rules.select(n)]}`)
  })

  it('refuses a fractional rank (an average rank printed by mistake)', () => {
    expect(() => ordinal(2.5)).toThrow(/must be an integer \(got 2.5\)/)
    expect(() => ordinal(Number.NaN)).toThrow(RangeError)
  })
})

describe('compactCount', () => {
  it('keeps small counts and shortens large ones with k and M', () => {
    expect(compactCount(0)).toBe('0')
    expect(compactCount(950)).toBe('950')
    expect(compactCount(2048)).toBe('2.0k')
    expect(compactCount(1_234_567)).toBe('1.2M')
    // The unit is picked after rounding.
    expect(compactCount(999_960)).toBe('1.0M')
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_000_000 }), (n) => {
        const text = compactCount(n)
        expect(text).toMatch(/^\d{1,3}(\.\d[kM])?$/)
        const back = text.endsWith('M')
          ? Number(text.slice(0, -1)) * 1e6
          : text.endsWith('k')
            ? Number(text.slice(0, -1)) * 1e3
            : Number(text)
        expect(Math.abs(back - n)).toBeLessThanOrEqual(n < 1e3 ? 0 : n < 999_950 ? 50 : 50_000)
      }),
      RUNS,
    )
  })
})

describe('display ranks (metrics/ranks.ts competitionRanks, printed with ordinal)', () => {
  /** Rates of counts out of one total: what leaderboards rank. */
  const ratesArb = fc.integer({ min: 1, max: 200 }).chain((total) =>
    fc.array(
      fc.integer({ min: 0, max: total }).map((c) => c / total),
      { maxLength: 12 },
    ),
  )

  it('gives equal rates equal ranks, and every rank is 1 + the number strictly better', () => {
    fc.assert(
      fc.property(ratesArb, (rates) => {
        const ranks = competitionRanks(new Map(rates.map((r, i) => [i, r])))
        rates.forEach((r, i) => {
          const better = rates.filter((s) => s > r && !sameRate(s, r)).length
          expect(ranks.get(i)).toBe(1 + better)
          rates.forEach((s, j) => {
            if (sameRate(r, s)) expect(ranks.get(j)).toBe(ranks.get(i))
            else expect(Math.sign((ranks.get(j) as number) - (ranks.get(i) as number))).toBe(Math.sign(r - s))
          })
        })
      }),
      RUNS,
    )
  })

  it('prints "1224" ties as a leaderboard does', () => {
    const ranks = competitionRanks(
      new Map([
        ['a', 0.9],
        ['b', 0.7],
        ['c', 0.9],
        ['d', 0.5],
      ]),
    )
    expect([...ranks.values()].map(ordinal)).toEqual(['1st', '3rd', '1st', '4th'])
  })
})

describe('plural', () => {
  it('is singular for exactly one and plural otherwise, zero and negatives included', () => {
    expect(plural(1, 'error')).toBe('1 error')
    expect(plural(0, 'error')).toBe('0 errors')
    expect(plural(2, 'cell')).toBe('2 cells')
    expect(plural(-1, 'point')).toBe('-1 points')
    expect(plural(1, 'trajectory', 'trajectories')).toBe('1 trajectory')
    expect(plural(3, 'trajectory', 'trajectories')).toBe('3 trajectories')
  })

  it('agrees with English cardinal plural rules for every n in 0..1000', () => {
    const rules = new Intl.PluralRules('en-US')
    for (let n = 0; n <= 1000; n++)
      expect(plural(n, 'repeat')).toBe(rules.select(n) === 'one' ? `${n} repeat` : `${n} repeats`)
  })
})

describe('percentText', () => {
  it('is percent with a % sign, and an em dash alone without a number', () => {
    expect(percentText(0.5)).toBe('50.0%')
    expect(percentText(0.6)).toBe('60.0%')
    expect(percentText(1)).toBe('100.0%')
    expect(percentText(0.8, { digits: 0 })).toBe('80%')
    expect(percentText(null)).toBe('—')
    expect(percentText(Number.NaN)).toBe('—')
  })
})

describe('intervalText', () => {
  it('writes every interval one way: bounds joined by an en dash, an em dash when a bound is unknown', () => {
    expect(intervalText(0.651, 0.977)).toBe('65.1–97.7')
    expect(intervalText(-0.132, 0.084, { signed: true })).toBe('−13.2–+8.4')
    expect(intervalText(null, 0.5)).toBe('—')
    expect(intervalText(0.1, Number.NaN)).toBe('—')
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.boolean(),
        (a, b, signed) => {
          const [lo, hi] = [Math.min(a, b), Math.max(a, b)]
          const text = intervalText(lo, hi, { signed })
          const [left, right] = text.split('\u2013')
          expect(left).toBe(signed ? signedPercent(lo) : percent(lo))
          expect(right).toBe(signed ? signedPercent(hi) : percent(hi))
          expect(text).not.toMatch(/-|\[|\bto\b/)
        },
      ),
      RUNS,
    )
  })
})

describe('pValueText', () => {
  it('prints two significant digits in decimals from 0.001 up and "< 0.001" below, never an exponent', () => {
    expect(pValueText(0.0249)).toBe('p = 0.025')
    expect(pValueText(0.001)).toBe('p = 0.0010')
    expect(pValueText(8.6e-4)).toBe('p < 0.001')
    expect(pValueText(0.5)).toBe('p = 0.50')
    expect(pValueText(null)).toBe('p = —')
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (p) => {
        const text = pValueText(p)
        expect(text).not.toMatch(/e/)
        if (p >= 0.001) expect(Math.abs(Number(text.slice(4)) - p)).toBeLessThanOrEqual(p * 0.05 + 1e-12)
        else expect(text).toBe('p < 0.001')
      }),
      RUNS,
    )
  })
})

describe('fraction and shareText', () => {
  it('print a share with its counts, and a dash where there is no total (never a measured 0.0)', () => {
    expect(fraction(3, 4)).toBe('3/4')
    expect(fraction(0, 0)).toBe('—')
    expect(shareText(3, 4)).toBe('75.0 (3/4)')
    expect(shareText(0, 0)).toBe('—')
    expect(shareText(0, 7)).toBe('0.0 (0/7)')
  })
})
