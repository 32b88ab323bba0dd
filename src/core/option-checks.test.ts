import { describe, expect, it } from 'vitest'
import { checkNumberOptions, rejectUnknownOptions } from './option-checks.js'

describe('rejectUnknownOptions', () => {
  const known = ['model', 'temperature', 'maxRetries', 'timeoutMs']

  it('names each unknown option, the nearest valid one when close, and every valid one', () => {
    expect(() => rejectUnknownOptions('x()', { model: 'm', temprature: 0.7 }, known)).toThrow(
      new TypeError(
        'x(): unknown option "temprature" (did you mean "temperature"?); valid options: maxRetries, model, temperature, timeoutMs',
      ),
    )
    // Case ignored, and a name one contains (retries ~ maxRetries).
    expect(() => rejectUnknownOptions('x()', { TimeoutMS: 1, retries: 2 }, known)).toThrow(
      /unknown options "TimeoutMS" \(did you mean "timeoutMs"\?\), "retries" \(did you mean "maxRetries"\?\)/,
    )
    // Nothing close: no suggestion.
    expect(() => rejectUnknownOptions('x()', { zzz: 1 }, known)).toThrow(/unknown option "zzz"; valid options/)
  })

  it('accepts known options', () => {
    expect(() => rejectUnknownOptions('x()', { model: 'm', timeoutMs: 5 }, known)).not.toThrow()
  })
})

describe('checkNumberOptions', () => {
  const bounds = {
    tries: { min: 0, max: 5, integer: true, why: 'five is plenty' },
    rate: { min: 0, max: 1, why: 'a share' },
  }

  it('names every number outside its range, with the range and why; absent options are fine', () => {
    expect(() => checkNumberOptions('x()', { tries: 2.5, rate: '0.5' }, bounds)).toThrow(
      new RangeError(
        'x(): tries must be a whole number from 0 to 5 (five is plenty), got 2.5; rate must be a number from 0 to 1 (a share), got "0.5"',
      ),
    )
    expect(() => checkNumberOptions('x()', { tries: 5 }, bounds)).not.toThrow()
    expect(() => checkNumberOptions('x()', { rate: Number.NaN }, bounds)).toThrow(/rate must be a number from 0 to 1/)
  })
})
