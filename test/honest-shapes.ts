/**
 * Honest answers whose values have another type than the reference's, for the parity corpus
 * (test/parity.test.ts): the reference solution with its entry point wrapped so that what it
 * returns changes type but not value, as real models write it — a namedtuple where a tuple is
 * expected, a `defaultdict(lambda: 0)` for a dict, a dict's keys view for a set, its items view
 * for a set of pairs, an `int`, `float` or `str` subclass, an `IntEnum` member, numpy scalars — and one whose entry point raises a standard exception the
 * tests then read (`str(e)`, `e.args`). The official `==` compares by value, so each passes
 * officially exactly when the reference does.
 *
 * Not here, because they are no honest shapes: a dict's values view (it equals nothing but itself,
 * so where a list is expected the official `==` fails it, and the verifier refuses it by name), and
 * a keys or items view where a list is expected (a view is set-like: it never equals a list).
 *
 * Pure string builders, like src/benchmarks/answer-shapes.ts: no interpreter, no I/O.
 */

/** The shapes, in the order the corpus builds them. */
export const VALUE_SHAPES = [
  'namedtuple',
  'defaultdict-lambda',
  'dict-keys-view',
  'dict-items-view',
  'int-subclass',
  'int-enum',
  'float-subclass',
  'str-subclass',
  'numpy-scalars',
  'exception-text',
] as const
export type ValueShape = (typeof VALUE_SHAPES)[number]

/** One line per shape, for the corpus's table. */
export const VALUE_SHAPE_DESCRIPTIONS: Record<ValueShape, string> = {
  namedtuple: 'every tuple returned as a namedtuple',
  'defaultdict-lambda': 'every dict returned as a defaultdict(lambda: 0)',
  'dict-keys-view': "every set returned as a dict's keys view",
  'dict-items-view': "every set of pairs with distinct first items returned as a dict's items view",
  'int-subclass': 'every int returned as an int subclass',
  'int-enum': 'every int returned as a member of an IntEnum',
  'float-subclass': 'every float returned as a float subclass',
  'str-subclass': 'every str returned as a str subclass',
  'numpy-scalars': 'every int, float and bool returned as a numpy scalar',
  'exception-text': 'the entry point raises a standard exception whose str() and args a probe test reads',
}

/** Python: every `base` returned (in lists and tuples too) as an honest subclass `name` of it. */
function subclassOf(base: 'int' | 'float' | 'str', name: string): string {
  return [
    `class ${name}(${base}):`,
    '    pass',
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is tuple:',
    '        return tuple(_seqk_shape(v) for v in value)',
    `    return ${name}(value) if type(value) is ${base} else value`,
  ].join('\n')
}

/** Python: `_seqk_shape(value)`, the value in the shape's type, nested values too. */
const CONVERSIONS: Record<Exclude<ValueShape, 'exception-text'>, string> = {
  namedtuple: [
    'import collections as _seqk_collections',
    '_seqk_kinds = {}',
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is tuple:',
    '        kind = _seqk_kinds.get(len(value))',
    '        if kind is None:',
    "            kind = _seqk_kinds[len(value)] = _seqk_collections.namedtuple('Result', ['f%d' % i for i in range(len(value))])",
    '        return kind(*[_seqk_shape(v) for v in value])',
    '    return value',
  ].join('\n'),
  'defaultdict-lambda': [
    'import collections as _seqk_collections',
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is dict:',
    '        return _seqk_collections.defaultdict(lambda: 0, {k: _seqk_shape(v) for k, v in value.items()})',
    '    return value',
  ].join('\n'),
  'dict-keys-view': [
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is set:',
    '        return dict.fromkeys(value).keys()',
    '    return value',
  ].join('\n'),
  // A set of pairs is an items view's value only when no first item repeats (a dict keeps one of each).
  'dict-items-view': [
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is set and all(type(v) is tuple and len(v) == 2 for v in value) and len({v[0] for v in value}) == len(value):',
    '        return dict(value).items()',
    '    return value',
  ].join('\n'),
  'int-subclass': subclassOf('int', 'Count'),
  // One IntEnum per value returned, as code that names its results would define them.
  'int-enum': [
    'import enum as _seqk_enum',
    '_seqk_enums = {}',
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is tuple:',
    '        return tuple(_seqk_shape(v) for v in value)',
    '    if type(value) is not int:',
    '        return value',
    '    if value not in _seqk_enums:',
    "        _seqk_enums[value] = _seqk_enum.IntEnum('Result', {'n': value}).n",
    '    return _seqk_enums[value]',
  ].join('\n'),
  'float-subclass': subclassOf('float', 'Measure'),
  'str-subclass': subclassOf('str', 'Text'),
  // numpy imported where a number is returned, as an answer that uses it would.
  'numpy-scalars': [
    'def _seqk_shape(value):',
    '    if type(value) is list:',
    '        return [_seqk_shape(v) for v in value]',
    '    if type(value) is tuple:',
    '        return tuple(_seqk_shape(v) for v in value)',
    '    if type(value) not in (bool, int, float) or (type(value) is int and not -(2 ** 63) <= value < 2 ** 63):',
    '        return value',
    '    import numpy',
    '    kind = {bool: numpy.bool_, int: numpy.int64, float: numpy.float64}[type(value)]',
    '    return kind(value)',
  ].join('\n'),
}

/**
 * The Python source of a shape's conversion: it defines `_seqk_shape(value)`, which returns `value`
 * in the shape's type (test/value-shape-probe.ts runs each on the reference's own values to learn
 * which shapes change anything on a task).
 */
export function valueConversion(shape: Exclude<ValueShape, 'exception-text'>): string {
  return CONVERSIONS[shape]
}

/**
 * The exceptions the exception-text shape raises, by task (cycled): how the answer raises it, and
 * how the probe test builds the one it must equal (`None`: the answer's own class, checked by its
 * name, text and arguments).
 */
const EXCEPTIONS: readonly { raise: string; expected: string }[] = [
  { raise: "KeyError('k')", expected: "KeyError('k')" },
  { raise: "KeyError(('k', 1))", expected: "KeyError(('k', 1))" },
  { raise: "ValueError(3, 'three')", expected: "ValueError(3, 'three')" },
  { raise: "OSError(2, 'No such file or directory')", expected: "OSError(2, 'No such file or directory')" },
  { raise: 'IndexError()', expected: 'IndexError()' },
  {
    raise: "UnicodeDecodeError('utf-8', b'\\xff', 0, 1, 'invalid start byte')",
    expected: "UnicodeDecodeError('utf-8', b'\\xff', 0, 1, 'invalid start byte')",
  },
  { raise: 'TaskError(5)', expected: 'None' },
]

/** The answer's class for the last of EXCEPTIONS: a ValueError that words its own message. */
const TASK_ERROR = [
  'class TaskError(ValueError):',
  '    def __str__(self):',
  "        return 'task: %s' % self.args[0]",
].join('\n')

/** Wraps `entryPoint` (called by the tests) so that only its outermost call is reshaped: its own recursion sees the reference. */
function wrapped(entryPoint: string, body: string[]): string {
  return [
    '_seqk_inner = ' + entryPoint,
    '_seqk_depth = [0]',
    `def ${entryPoint}(*args, **kwargs):`,
    ...body.map((line) => `    ${line}`),
    '    if _seqk_depth[0]:',
    '        return _seqk_inner(*args, **kwargs)',
    '    _seqk_depth[0] += 1',
    '    try:',
    '        return _seqk_shape(_seqk_inner(*args, **kwargs))',
    '    finally:',
    '        _seqk_depth[0] -= 1',
  ].join('\n')
}

/** An answer and, for exception-text, the tests with their probe. */
export interface ValueShapeCase {
  code: string
  tests: string
}

/**
 * The reference `code` with its entry point reshaped as `shape` says; `index` picks the exception
 * of exception-text (cycled over the corpus so that every kind occurs).
 *
 * @example
 * valueShape('namedtuple', 'def f():\n    return (1, 2)', 'f', 'assert f() == (1, 2)', 0).code // ends with the wrapper of f
 */
export function valueShape(
  shape: ValueShape,
  code: string,
  entryPoint: string,
  tests: string,
  index: number,
): ValueShapeCase {
  if (shape !== 'exception-text') {
    return { code: `${code.trimEnd()}\n\n\n${CONVERSIONS[shape]}\n${wrapped(entryPoint, [])}\n`, tests }
  }
  const exception = EXCEPTIONS[index % EXCEPTIONS.length] as (typeof EXCEPTIONS)[number]
  const identity = 'def _seqk_shape(value):\n    return value'
  const raising = ["if kwargs.pop('seqk_probe', False):", `    raise ${exception.raise}`]
  const probe = [
    'try:',
    `    ${entryPoint}(seqk_probe=True)`,
    'except Exception as _seqk_raised:',
    `    _seqk_expected = ${exception.expected}`,
    '    if _seqk_expected is None:',
    "        assert (type(_seqk_raised).__name__, str(_seqk_raised), _seqk_raised.args, isinstance(_seqk_raised, ValueError)) == ('TaskError', 'task: 5', (5,), True)",
    '    else:',
    '        assert isinstance(_seqk_raised, type(_seqk_expected)), type(_seqk_raised)',
    '        assert (str(_seqk_raised), _seqk_raised.args) == (str(_seqk_expected), _seqk_expected.args), (str(_seqk_raised), _seqk_raised.args)',
    'else:',
    "    raise AssertionError('the probe raised nothing')",
  ].join('\n')
  return {
    code: `${code.trimEnd()}\n\n\n${TASK_ERROR}\n${identity}\n${wrapped(entryPoint, raising)}\n`,
    tests: `${tests.trimEnd()}\n${probe}\n`,
  }
}
