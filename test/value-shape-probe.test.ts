// The value-shape probe of the parity corpus: it may leave out only the shapes that change no value,
// and keeps every shape on a task whose probe does not finish.
import { describe, expect, it } from 'vitest'
import { probeValueShapes } from './value-shape-probe.js'

describe('probeValueShapes', () => {
  it('finds the shapes that change a returned value, only the outermost call, and keeps all on a failure', async () => {
    const applies = await probeValueShapes(
      [
        { id: 'set', code: 'def f(xs):\n    return set(xs)', entryPoint: 'f', tests: 'assert f([1, 1]) == {1}' },
        // Its own recursion returns ints; the tests see only a list of strings.
        {
          id: 'strs',
          code: 'def f(n):\n    return [] if n == 0 else f(n - 1) + [str(n)]',
          entryPoint: 'f',
          tests: "assert f(2) == ['1', '2']",
        },
        {
          id: 'pairs',
          code: 'def f():\n    return [(1, 2.5), {"a": 1}]',
          entryPoint: 'f',
          tests: 'assert f()[0] == (1, 2.5)',
        },
        { id: 'fails', code: 'def f():\n    return 1', entryPoint: 'f', tests: 'assert f() == 2' },
      ],
      2,
    )
    expect([...(applies.get('set') ?? [])].sort()).toEqual(['dict-keys-view'])
    expect([...(applies.get('strs') ?? [])].sort()).toEqual(['str-subclass'])
    expect([...(applies.get('pairs') ?? [])].sort()).toEqual([
      'defaultdict-lambda',
      'float-subclass',
      'int-enum',
      'int-subclass',
      'namedtuple',
    ])
    expect(applies.has('fails')).toBe(true)
    expect(applies.get('fails')).toBeUndefined()
  }, 60_000)
})
