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

/**
 * Honest programs of shapes the parity corpus's value shapes do not meet: tests that share the
 * program's state with the answer (they seed `random` for it, capture its `print` with
 * `redirect_stdout`, feed it `sys.stdin`, define a global it reads, read `sys.argv` as it does),
 * that pass it a `range` or a generator, call it 100 000 times, get back a 700 000-element list or
 * a string of two million characters, or run `asyncio.run` on an async answer; and one wrong answer
 * a value shape used to pass (`type(x) is str` of a `str` subclass). Each is one answer and its
 * tests; `official` is its official verdict (candidate then tests in one `python3 file.py`), which
 * the parity test checks too. Where judging out of process cannot give the official verdict,
 * `refusal` is the message ours must give instead (docs/python-verifier.md names each).
 */
export interface ProgramShape {
  name: string
  description: string
  code: string
  tests: string
  official: 'pass' | 'fail'
  /** The documented refusal our verdict carries instead of the official verdict. */
  refusal?: RegExp
}

export const PROGRAM_SHAPES: readonly ProgramShape[] = [
  {
    name: 'seeded-random',
    description: 'the tests seed random, draw the expected values, seed again, and call the answer',
    code: 'import random\n\ndef roll(n):\n    return [random.randint(1, 6) for _ in range(n)]',
    tests: [
      'import random',
      'random.seed(42)',
      'expected = [random.randint(1, 6) for _ in range(5)]',
      'random.seed(42)',
      'assert roll(5) == expected',
      'from random import seed, choice',
      'seed(7)',
      'first = roll(3)',
      'seed(7)',
      'assert roll(3) == first',
    ].join('\n'),
    official: 'pass',
  },
  {
    name: 'redirect-stdout',
    description: "the tests capture the answer's print with contextlib.redirect_stdout (and stderr)",
    code: 'import sys\n\ndef greet(name):\n    print(f"Hello, {name}!")\n    print("note", file=sys.stderr)',
    tests: [
      'import contextlib, io',
      'out, err = io.StringIO(), io.StringIO()',
      'with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):',
      '    greet("Ada")',
      '    greet("Bob")',
      'assert out.getvalue() == "Hello, Ada!\\nHello, Bob!\\n"',
      'assert err.getvalue() == "note\\nnote\\n"',
    ].join('\n'),
    official: 'pass',
  },
  {
    name: 'stdin',
    description: 'the tests set sys.stdin to a StringIO the answer reads with input()',
    code: 'def total():\n    input()\n    return sum(map(int, input().split()))',
    tests: [
      'import io, sys',
      'sys.stdin = io.StringIO("3\\n1 2 3\\nrest\\n")',
      'assert total() == 6',
      'assert sys.stdin.read() == "rest\\n"',
    ].join('\n'),
    official: 'pass',
  },
  {
    name: 'test-global',
    description: 'the tests define (and change) a global the answer reads',
    code: 'def scaled(x):\n    return x * FACTOR',
    tests: 'FACTOR = 3\nassert scaled(2) == 6\nFACTOR = 5\nassert scaled(2) == 10',
    official: 'pass',
  },
  {
    name: 'range-argument',
    description: 'the tests pass the answer a range',
    code: 'def total(xs):\n    return sum(xs) if isinstance(xs, range) else -1',
    tests: 'assert total(range(10)) == 45\nassert total(range(0, 100, 7)) == sum(range(0, 100, 7))',
    official: 'pass',
  },
  {
    name: 'generator-argument',
    description: 'the tests pass the answer a generator and an iterator',
    code: 'def total(xs):\n    return sum(xs)',
    tests: 'assert total(x * x for x in range(4)) == 14\nassert total(iter([1, 2])) == 3',
    official: 'pass',
  },
  {
    name: 'many-calls',
    description: 'the tests call the answer 100 000 times in a loop',
    code: 'def double(x):\n    return 2 * x',
    tests: 'for i in range(100000):\n    assert double(i) == 2 * i',
    official: 'pass',
    refusal:
      /timed out after \d+ ms in the call double\(\d+\) \(after \d+ calls to the answer: each crosses to the candidate's process, a cost the official single-process run does not pay; tests that call the answer this often need a larger timeoutMs\)/,
  },
  {
    name: 'large-list',
    description: 'the answer returns a 700 000-element list',
    code: 'def squares(n):\n    return [i * i for i in range(n)]',
    tests: 'result = squares(700000)\nassert len(result) == 700000\nassert result[-1] == 699999 ** 2',
    official: 'pass',
  },
  {
    name: 'large-string',
    description: 'the answer returns a string of two million non-ASCII characters',
    code: 'def text(n):\n    return "é" * n',
    tests: 'assert len(text(2000000)) == 2000000\nassert set(text(2000000)) == {"é"}',
    official: 'pass',
  },
  {
    name: 'asyncio',
    description: 'the tests run an async answer with asyncio.run',
    code: 'import asyncio\n\nasync def fetch(x):\n    await asyncio.sleep(0)\n    return x * 2',
    tests: 'import asyncio\nassert asyncio.run(fetch(21)) == 42',
    official: 'pass',
  },
  {
    name: 'argv',
    description: 'the answer and the tests read sys.argv',
    code: 'import sys\n\ndef arguments():\n    return sys.argv[1:]',
    tests: 'import sys\nassert arguments() == []\nassert len(sys.argv) == 1',
    official: 'pass',
  },
  {
    name: 'str-subclass-type',
    description: 'a wrong answer: the tests check type(x) is str, and it returns a str subclass',
    code: 'class Text(str):\n    pass\n\ndef name():\n    return Text("Ada")',
    tests: 'assert name() == "Ada"\nassert type(name()) is str',
    official: 'fail',
  },
]
