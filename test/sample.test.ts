// The lanes' sample (test/sample.ts): its size and order, that it is drawn again from its seed, that
// a grown corpus keeps its other choices, and the lane switch.
import { afterEach, describe, expect, it } from 'vitest'
import { laneFrom, sample, sampleSeed } from './sample.js'

const ids = Array.from({ length: 200 }, (_, i) => `task/${i}`)
const draw = (items: readonly string[], size = 20) => sample('sample test', items, size, (id) => id, 'fast')
const saved = process.env.SEQK_TEST_SEED

afterEach(() => {
  if (saved === undefined) delete process.env.SEQK_TEST_SEED
  else process.env.SEQK_TEST_SEED = saved
})

describe('sample', () => {
  it('keeps `size` distinct items in their original order', () => {
    const chosen = draw(ids)
    expect(chosen).toHaveLength(20)
    expect(new Set(chosen).size).toBe(20)
    expect(chosen).toEqual(ids.filter((id) => chosen.includes(id)))
  })

  it('draws the same items from one seed and others from another', () => {
    process.env.SEQK_TEST_SEED = 'one'
    const one = draw(ids)
    expect(draw(ids)).toEqual(one)
    expect(draw([...ids].reverse())).toEqual(one.slice().reverse())
    process.env.SEQK_TEST_SEED = 'two'
    expect(draw(ids)).not.toEqual(one)
  })

  it('seeds from the commit unless SEQK_TEST_SEED says otherwise', () => {
    delete process.env.SEQK_TEST_SEED
    expect(sampleSeed()).toMatch(/^([0-9a-f]{12}|no-git)$/)
    process.env.SEQK_TEST_SEED = ' 4f1c2a9e0b7d '
    expect(sampleSeed()).toBe('4f1c2a9e0b7d')
  })

  it('keeps its choices when the corpus grows: an item is displaced only by an added one', () => {
    process.env.SEQK_TEST_SEED = 'grow'
    const before = draw(ids)
    const added = Array.from({ length: 50 }, (_, i) => `added/${i}`)
    const after = draw([...ids, ...added])
    const displaced = before.filter((id) => !after.includes(id))
    expect(after.filter((id) => id.startsWith('added/'))).toHaveLength(displaced.length)
    expect(after.filter((id) => !id.startsWith('added/') && !before.includes(id))).toEqual([])
  })

  it('keeps every item in the long lane, or when the sample is the whole corpus', () => {
    expect(sample('sample test', ids, 20, (id) => id, 'long')).toEqual(ids)
    expect(draw(ids.slice(0, 5), 20)).toEqual(ids.slice(0, 5))
  })
})

describe('laneFrom', () => {
  it('reads fast (the default) and long, and refuses anything else with the fix', () => {
    expect(laneFrom(undefined)).toBe('fast')
    expect(laneFrom('')).toBe('fast')
    expect(laneFrom('long')).toBe('long')
    expect(() => laneFrom('full')).toThrow(
      'SEQK_TEST_LANE=full: use fast (a sample of each long corpus, the default) or long (all of it)',
    )
  })
})
