import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { checkReturned, ComponentError, isComponentError, zodProblems } from './component-error.js'

const Schema = z.object({ pass: z.boolean(), inner: z.object({ n: z.number() }) })
const breach = {
  component: 'widget "w"@1',
  returned: 'widget',
  where: 'for task "t"',
  contract: '{ pass: boolean, inner: { n: number } }',
  hints: { pass: 'make pass a boolean', inner: 'add inner', 'inner.n': 'make inner.n a number' },
}

describe('ComponentError', () => {
  it('names the component, where, every failing field with the value got, and the fix for it', () => {
    const error = new ComponentError(breach, zodProblems(Schema, { pass: 'yes', inner: { n: 'x' } }))
    expect(error).toBeInstanceOf(TypeError)
    expect(error.name).toBe('ComponentError')
    expect(error.component).toBe('widget "w"@1')
    expect(error.fields).toEqual(['pass', 'inner.n'])
    expect(error.message).toMatch(
      /^widget "w"@1 returned a malformed widget for task "t": pass: .*expected boolean.*\(got "yes"\); inner\.n: .*\(got "x"\)\. Fix: make pass a boolean; make inner\.n a number\. The widget must be \{ pass: boolean/,
    )
  })

  it('prefers the longest matching hint and falls back to the contract', () => {
    expect(new ComponentError(breach, [{ field: 'inner', message: 'missing' }]).fix).toBe(
      'add inner. The widget must be { pass: boolean, inner: { n: number } }',
    )
    expect(new ComponentError({ ...breach, hints: {} }, [{ field: 'other', message: 'bad' }]).fix).toBe(
      'the widget must be { pass: boolean, inner: { n: number } }',
    )
  })

  it('says so when nothing was returned', () => {
    const problems = zodProblems(Schema, undefined)
    expect(problems).toEqual([{ field: '(root)', message: 'got undefined (nothing was returned)' }])
  })

  it('is recognised by isComponentError, and nothing else is', () => {
    expect(isComponentError(new ComponentError(breach, [{ field: 'pass', message: 'bad' }]))).toBe(true)
    for (const other of [new TypeError('x'), { name: 'ComponentError' }, null, 'ComponentError', undefined])
      expect(isComponentError(other)).toBe(false)
  })
})

describe('checkReturned', () => {
  it('returns the parsed value, or throws a ComponentError built only on failure', () => {
    let built = 0
    const lazy = () => (built++, breach)
    expect(checkReturned(Schema, { pass: true, inner: { n: 1 }, extra: 1 }, lazy)).toEqual({
      pass: true,
      inner: { n: 1 },
    })
    expect(built).toBe(0)
    expect(() => checkReturned(Schema, { pass: true }, lazy)).toThrow(ComponentError)
    expect(built).toBe(1)
  })
})
