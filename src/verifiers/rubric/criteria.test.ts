import { describe, expect, it } from 'vitest'
import type { Task } from '../../protocol/task.js'
import { CriterionSchema, criteriaOf, positionalId, RubricTaskError } from './criteria.js'
import { criterionSatisfied as satisfied } from '../../core/contract.js'

const task = (criteria: unknown, id = 't1'): Task => ({ id, prompt: 'p', criteria }) as Task

describe('CriterionSchema', () => {
  it('accepts every declarative check and keeps criteria plain JSON', () => {
    const criteria = [
      { id: 'a', text: 'At most 5 words', check: { kind: 'max-words', limit: 5 } },
      { id: 'b', text: 'At least 2 words', check: { kind: 'min-words', limit: 2 } },
      { id: 'c', text: 'Is valid JSON', check: { kind: 'json' } },
      { id: 'd', text: 'Mentions "x"', check: { kind: 'includes', text: 'x', caseSensitive: true } },
      { id: 'e', text: 'Ends with "y"', check: { kind: 'regex', pattern: 'y$', flags: 'i', mustMatch: true } },
      { id: 'f:1.x-y', text: 'graded', points: -3, tags: ['axis:accuracy'] },
    ]
    for (const c of criteria) expect(CriterionSchema.parse(c)).toEqual(c)
    expect(JSON.parse(JSON.stringify(criteria))).toEqual(criteria)
  })

  it.each([
    [{ id: '', text: 't' }, 'id'],
    [{ id: 'a b', text: 't' }, 'letters, digits'],
    [{ id: 'a', text: '' }, 'text'],
    [{ id: 'a', text: 't', points: 0 }, 'points must not be 0'],
    [{ id: 'a', text: 't', check: { kind: 'regex', pattern: '(' } }, 'not a valid regular expression'],
    [{ id: 'a', text: 't', check: { kind: 'regex', pattern: 'x', flags: 'q' } }, 'flags'],
    [{ id: 'a', text: 't', check: { kind: 'max-words', limit: 2.5 } }, 'whole number'],
    [{ id: 'a', text: 't', check: { kind: 'length' } }, 'kind'],
    [{ id: 'a', text: 't', predicate: () => true }, 'predicate'],
  ])('rejects %j', (input, fragment) => {
    const parsed = CriterionSchema.safeParse(input)
    expect(parsed.success).toBe(false)
    expect(JSON.stringify(parsed.error!.issues)).toContain(fragment)
  })
})

describe('criteriaOf', () => {
  it('returns undefined for a task without criteria, and the parsed list otherwise', () => {
    expect(criteriaOf({ id: 't', prompt: 'p' })).toBeUndefined()
    expect(criteriaOf(task([{ id: 'a', text: 'A' }]))).toEqual([{ id: 'a', text: 'A' }])
  })

  it('parses each task object once', () => {
    const t = task([{ id: 'a', text: 'A' }])
    expect(criteriaOf(t)).toBe(criteriaOf(t))
  })

  it('names the task and the field of a malformed criterion', () => {
    expect(() => criteriaOf(task([{ id: 'a', text: 'A' }, { id: 'b' }], 'rx/9'))).toThrow(RubricTaskError)
    expect(() => criteriaOf(task([{ id: 'a', text: 'A' }, { id: 'b' }], 'rx/9'))).toThrow(
      /task "rx\/9": criteria\[1\]\.text/,
    )
    expect(() => criteriaOf(task([]))).toThrow(/at least one criterion/)
    expect(() => criteriaOf(task('nope'))).toThrow(/task "t1": criteria/)
  })

  it('rejects duplicate ids', () => {
    expect(() =>
      criteriaOf(
        task([
          { id: 'a', text: 'A' },
          { id: 'a', text: 'B' },
        ]),
      ),
    ).toThrow(/duplicate criterion id "a"/)
  })
})

describe('satisfied and positionalId', () => {
  it('counts a met criterion and an unmet penalty in the answer’s favour', () => {
    expect(satisfied({ met: true })).toBe(true)
    expect(satisfied({ met: false, points: 3 })).toBe(false)
    expect(satisfied({ met: true, points: -2 })).toBe(false)
    expect(satisfied({ met: false, points: -2 })).toBe(true)
  })

  it('numbers criteria from 1', () => {
    expect([0, 1, 9].map(positionalId)).toEqual(['c1', 'c2', 'c10'])
  })
})
