import { describe, expect, it } from 'vitest'
import { isPromiseLike } from './awaitable.js'

describe('isPromiseLike', () => {
  it('tells promises and thenables from plain values', () => {
    expect(isPromiseLike(Promise.resolve(1))).toBe(true)
    expect(isPromiseLike({ then: (resolve: (v: number) => void) => resolve(1) } as PromiseLike<number>)).toBe(true)
    expect(isPromiseLike({ pass: true })).toBe(false)
    expect(isPromiseLike({ then: 'not a function' })).toBe(false)
    expect(isPromiseLike(null)).toBe(false)
    expect(isPromiseLike(undefined)).toBe(false)
    expect(isPromiseLike(0)).toBe(false)
  })
})
