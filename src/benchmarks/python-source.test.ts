import { describe, expect, it } from 'vitest'
import {
  blankStringsAndComments,
  callNames,
  functionSpan,
  importLines,
  importedNames,
  topLevelDefs,
} from './python-source.js'

const py = String.raw

describe('blankStringsAndComments', () => {
  it('blanks strings (quotes included) and comments, keeping length and line breaks', () => {
    const source = py`x = "f(1)"  # g(2)
y = '''h(
3)''' + k(4)
z = 'it\'s' + r"\"q(5)"`
    const blanked = blankStringsAndComments(source)
    expect(blanked).toHaveLength(source.length)
    expect(blanked.split('\n')).toHaveLength(source.split('\n').length)
    expect(blanked).not.toMatch(/[fghq]\(/)
    expect(blanked).toContain('k(4)')
    expect(blanked.split('\n')[3]).toBe('z = ' + ' '.repeat(7) + ' + r' + ' '.repeat(8))
  })

  it('ends an unterminated single-quoted string at the end of its line', () => {
    expect(blankStringsAndComments("a = 'oops\nb(1)")).toBe('a =      \nb(1)')
  })
})

describe('topLevelDefs', () => {
  it('lists column-0 defs in order, not nested ones or ones in docstrings', () => {
    const source = py`def f(x):
    def g():
        pass
    """
def not_me():
    """
    return x

async def h(): pass
class C:
    def m(self): pass
`
    expect(topLevelDefs(source)).toEqual(['f', 'h'])
    expect(topLevelDefs(source, { classes: true })).toEqual(['f', 'h', 'C'])
  })
})

describe('importLines / importedNames', () => {
  it('keeps top-level import statements only', () => {
    const source = py`
import math
from typing import List, Tuple  # types
import collections as ct, re
def f():
    import os
    """
from the docstring import nothing
import this
    """
from x.y import (a,
    b)
`
    expect(importLines(source)).toEqual([
      'import math',
      'from typing import List, Tuple',
      'import collections as ct, re',
    ])
    expect([...importedNames(importLines(source))]).toEqual(['math', 'List', 'Tuple', 'ct', 're'])
    expect([...importedNames(['import os.path', 'from a import b as c'])]).toEqual(['os', 'c'])
  })
})

describe('callNames', () => {
  it('lists plain-name calls, not methods, module functions or keywords', () => {
    expect(callNames('assert math.isclose(area(2), 4.0)\nassert not (f(g(1)) == "h(2)")\nx.y(3)')).toEqual([
      'area',
      'f',
      'g',
    ])
  })
})

describe('functionSpan', () => {
  const source = py`def base(x):
    return x


def main(xs):
    """Docstring
at column 0 inside.
"""
    total = 0

    for x in xs:
        total += base(x)
    return total


assert main([1]) == 1
`
  it('runs from the def line to the last line of the body', () => {
    const span = functionSpan(source, 'main')
    expect(span?.lines[0]).toBe('def main(xs):')
    expect(span?.lines.at(-1)).toBe('    return total')
    expect(functionSpan(source, 'base')?.lines).toEqual(['def base(x):', '    return x'])
    expect(functionSpan(source, 'missing')).toBeUndefined()
  })

  it('takes the last definition when a name is defined twice', () => {
    expect(functionSpan('def f():\n    return 1\ndef f():\n    return 2\n', 'f')?.start).toBe(2)
  })
})
