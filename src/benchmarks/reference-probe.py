"""The reference solution's side of `seqk strengthen` (src/benchmarks/strengthen.ts).

strengthen.ts runs this module inside the candidate's process of the python-tests verifier, in
the globals the reference runs in (its sandbox, its judge), then loads the reference through
`_seqk_load`, which rewrites it in one of a few *readings*:

- `plain`: the reference as written. Its `zip(...)` calls report, by line and by which arguments
  are shorter, a call whose sized arguments have unequal lengths (zip cuts them short silently), and its `%`, `//`, `divmod` and
  `round` report an operation where another common reading gives another value; every value is
  the one Python gives.
- `truncating-division`: `%`, `//` and `divmod` on a negative operand truncate towards zero (as
  in C, and as `abs(x) % 10` does for a digit), instead of Python's floor.
- `round-half-away`: `round` sends exact halves away from zero, instead of to the even neighbour.
- `set-order`: sets iterate in the order their items first came in (as an answer that keeps
  them in a dict or a list would), instead of by hash.

A test calls `_seqk_probe(name, max_steps, *args)`: the named function under a tracer that counts
the reference's line events (deterministic, unlike time) and stops at `max_steps`, returning
`[value, events]`. strengthen.ts keeps an input only when the reference's output is the same under
every reading the original tests do not pin down, and no zip cut it short where the tests never do.
"""

import ast
import builtins
import copy
import decimal
import math
import sys

_SEQK_FILE = "<seqk-probe>"
_seqk_events = set()
_seqk_reading = ["plain"]
_seqk_uses_sets = [False]


class _SeqkOverBudget(Exception):
    """The call ran over the step budget (strengthen.ts reads this name in the verdict)."""


class _SeqkStop(BaseException):
    """Ends a traced call; BaseException, so the reference's own `except Exception` cannot swallow it."""


def _seqk_zip(site, *iterables, **options):
    # Which argument was cut short, by the line of the call and each later argument's length
    # against the first's: the tests may cut one way on purpose (an operator list one shorter
    # than its operands) and never the other.
    if len(iterables) >= 2 and not options.get("strict") and all(hasattr(i, "__len__") for i in iterables):
        first = len(iterables[0])
        signs = "".join("<" if len(i) < first else ">" if len(i) > first else "=" for i in iterables[1:])
        if signs.strip("="):
            _seqk_events.add("zip:%d:%s" % (site, signs))
    return builtins.zip(*iterables, **options)


def _seqk_truncated(a, b):
    """(quotient, remainder) of a by b rounded towards zero, or None where that is Python's own."""
    numbers = (int, float)
    if not (isinstance(a, numbers) and isinstance(b, numbers)) or isinstance(a, bool) or isinstance(b, bool):
        return None
    if b == 0 or (a < 0) == (b < 0) or a == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):
        quotient = -(abs(a) // abs(b))
        return quotient, a - b * quotient
    remainder = math.fmod(a, b)
    return float(int((a - remainder) / b)), remainder


def _seqk_division(kind):
    def operation(a, b):
        native = a % b if kind == "mod" else a // b if kind == "floordiv" else builtins.divmod(a, b)
        try:
            other = _seqk_truncated(a, b)
        except Exception:  # e.g. an int too large for a float: no other reading to offer
            other = None
        if other is None:
            return native
        alternative = other[1] if kind == "mod" else other[0] if kind == "floordiv" else other
        if alternative == native:
            return native
        if _seqk_reading[0] == "truncating-division":
            return alternative
        _seqk_events.add("division")
        return native

    return operation


_seqk_mod = _seqk_division("mod")
_seqk_floordiv = _seqk_division("floordiv")
_seqk_divmod = _seqk_division("divmod")


def _seqk_round(number, ndigits=None):
    native = builtins.round(number) if ndigits is None else builtins.round(number, ndigits)
    if not isinstance(number, (int, float)) or isinstance(number, bool) or not math.isfinite(number):
        return native
    try:
        step = decimal.Decimal(1) if ndigits is None else decimal.Decimal(1).scaleb(-ndigits)
        away = decimal.Decimal(number).quantize(step, rounding=decimal.ROUND_HALF_UP)
        other = int(away) if ndigits is None or isinstance(number, int) else float(away)
    except Exception:  # a precision the decimal context cannot hold: no other reading to offer
        return native
    if other == native:
        return native
    if _seqk_reading[0] == "round-half-away":
        return other
    _seqk_events.add("round")
    return native


# Python's own set types by the builtins module: the set-order reading rebinds the names in the
# globals this module shares with the reference.
class _SeqkSet(builtins.set):
    """A set that iterates in the order its items first came in (as a dict-based answer would)."""

    def __init__(self, iterable=()):
        items = builtins.list(iterable)
        builtins.set.__init__(self, items)
        self._seqk_order = builtins.dict.fromkeys(items)

    def add(self, item):
        builtins.set.add(self, item)
        self._seqk_order.setdefault(item)

    def update(self, *others):
        for other in others:
            for item in other:
                self.add(item)

    def __iter__(self):
        order = getattr(self, "_seqk_order", {})
        first = [x for x in order if builtins.set.__contains__(self, x)]
        return builtins.iter(first + [x for x in builtins.set.__iter__(self) if x not in order])


class _SeqkFrozenSet(builtins.frozenset):
    def __new__(cls, iterable=()):
        items = builtins.list(iterable)
        made = builtins.frozenset.__new__(cls, items)
        made._seqk_order = builtins.dict.fromkeys(items)
        return made

    def __iter__(self):
        return builtins.iter(builtins.list(self._seqk_order))


def _seqk_plain(value):
    """The value with this module's set types turned back into Python's (the judge reads plain values)."""
    if isinstance(value, _SeqkFrozenSet):
        return builtins.frozenset(_seqk_plain(v) for v in builtins.frozenset.__iter__(value))
    if isinstance(value, _SeqkSet):
        return builtins.set(_seqk_plain(v) for v in builtins.set.__iter__(value))
    if type(value) is list:
        return [_seqk_plain(v) for v in value]
    if type(value) is tuple:
        return tuple(_seqk_plain(v) for v in value)
    if type(value) is dict:
        return {_seqk_plain(k): _seqk_plain(v) for k, v in value.items()}
    return value


class _SeqkRewrite(ast.NodeTransformer):
    def __init__(self, reading):
        self.reading = reading

    def _call(self, name, args, node):
        return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "zip":
            site = ast.Constant(value=node.lineno)
            node.func = ast.Name(id="_seqk_zip", ctx=ast.Load())
            node.args = [site] + node.args
        if isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset"):
            _seqk_uses_sets[0] = True
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod):
            return self._call("_seqk_mod", [node.left, node.right], node)
        if isinstance(node.op, ast.FloorDiv):
            return self._call("_seqk_floordiv", [node.left, node.right], node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and isinstance(node.op, (ast.Mod, ast.FloorDiv)):
            name = "_seqk_mod" if isinstance(node.op, ast.Mod) else "_seqk_floordiv"
            value = self._call(name, [ast.Name(id=node.target.id, ctx=ast.Load()), node.value], node)
            return ast.copy_location(ast.Assign(targets=[node.target], value=value), node)
        return node

    def visit_Set(self, node):
        self.generic_visit(node)
        _seqk_uses_sets[0] = True
        if self.reading != "set-order":
            return node
        return self._call("_SeqkSet", [ast.copy_location(ast.List(elts=node.elts, ctx=ast.Load()), node)], node)

    def visit_SetComp(self, node):
        self.generic_visit(node)
        _seqk_uses_sets[0] = True
        if self.reading != "set-order":
            return node
        generator = ast.copy_location(ast.GeneratorExp(elt=node.elt, generators=node.generators), node)
        return self._call("_SeqkSet", [generator], node)


def _seqk_load(source, reading, namespace):
    """Runs the reference, rewritten for `reading`, in `namespace` (the candidate's globals)."""
    _seqk_reading[0] = reading
    _seqk_uses_sets[0] = False
    tree = ast.fix_missing_locations(_SeqkRewrite(reading).visit(ast.parse(source)))
    namespace["divmod"] = _seqk_divmod
    namespace["round"] = _seqk_round
    if reading == "set-order":
        namespace["set"] = _SeqkSet
        namespace["frozenset"] = _SeqkFrozenSet
    exec(compile(tree, "<reference>", "exec"), namespace)


def _seqk_traced(function, args, max_steps):
    """(value, steps) of `function(*args)` counting the line events of code outside this module;
    raises _SeqkStop past `max_steps`."""
    left = [max_steps]

    def local(frame, event, arg):
        if event == "line":
            left[0] -= 1
            if left[0] < 0:
                raise _SeqkStop()
        return local

    def calls(frame, event, arg):
        # This module's own frames are not the reference's steps.
        return None if frame.f_code.co_filename == _SEQK_FILE else local

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        value = function(*args)
    finally:
        sys.settrace(previous)
    return value, max_steps - left[0]


def _seqk_function(namespace, name):
    found = namespace.get(name)
    return found if found is not None else getattr(builtins, name)


def _seqk_probe(_seqk_name, _seqk_max_steps, *args):
    """[value, events] of the named function on `args`, within the step budget."""
    function = _seqk_function(globals(), _seqk_name)
    _seqk_events.clear()
    try:
        value = _seqk_traced(function, args, _seqk_max_steps)[0]
    except _SeqkStop:
        raise _SeqkOverBudget("over the step budget of %d" % _seqk_max_steps) from None
    events = sorted(_seqk_events)
    if _seqk_uses_sets[0]:
        events.append("set")
    return [_seqk_plain(value), events]


# -- Mutants of the reference: which inputs tell it from a near miss ------------------------------
#
# `_seqk_load_mutants` compiles the reference as written and one copy per mutation point inside
# its functions (a comparison at its edge moved: `<` and `<=`, `>` and `>=`, `==` and `!=`; an
# integer constant one up or down; `+` and `-`, `and` and `or`, `min` and `max` swapped), each in
# a namespace of its own. `_seqk_kills` runs one input through the reference and every mutant and
# returns the mutants a test with that input would fail: another value (floats within the tests'
# tolerance), or an exception. A mutant over its step budget is not counted: slower is not wrong.

_SEQK_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_SEQK_SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
                 ast.Add: "+", ast.Sub: "-", ast.And: "and", ast.Or: "or"}
_SEQK_ARITHMETIC = {ast.Add: ast.Sub, ast.Sub: ast.Add}
_SEQK_LOGIC = {ast.And: ast.Or, ast.Or: ast.And}
_SEQK_EXTREMES = {"min": "max", "max": "min"}
_seqk_mutants = []
_seqk_points = []
# The place of a mutant held out of the search: no input is said to fail it.
_SEQK_EXCLUDED = {}


class _SeqkMutation(ast.NodeTransformer):
    """Walks the mutation points inside functions in a fixed order, naming each in `points`, and
    applies the one numbered `target` (none when it is -1)."""

    def __init__(self, target):
        self.target = target
        self.points = []
        self.depth = 0

    def _point(self, node, what):
        self.points.append("line %d: %s" % (getattr(node, "lineno", 0), what))
        return len(self.points) - 1 == self.target

    def _inside(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _inside

    def visit_Module(self, node):
        # A function a later top-level `def` of the same name replaces is never called: its mutants
        # are the reference itself (HumanEval Pro gives the base problem's function twice).
        last = {}
        for statement in node.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                last[statement.name] = statement
        for statement in node.body:
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) or last[statement.name] is statement:
                self.visit(statement)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        for i, op in enumerate(node.ops):
            other = _SEQK_FLIPS.get(type(op))
            if self.depth and other and self._point(node, "%s -> %s" % (_SEQK_SYMBOLS[type(op)], _SEQK_SYMBOLS[other])):
                node.ops[i] = other()
        return node

    def visit_Constant(self, node):
        if self.depth and type(node.value) is int:
            for delta in (1, -1):
                if self._point(node, "%d -> %d" % (node.value, node.value + delta)):
                    return ast.copy_location(ast.Constant(value=node.value + delta), node)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        other = _SEQK_ARITHMETIC.get(type(node.op))
        if self.depth and other and self._point(node, "%s -> %s" % (_SEQK_SYMBOLS[type(node.op)], _SEQK_SYMBOLS[other])):
            node.op = other()
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        other = _SEQK_ARITHMETIC.get(type(node.op))
        if self.depth and other and self._point(node, "%s= -> %s=" % (_SEQK_SYMBOLS[type(node.op)], _SEQK_SYMBOLS[other])):
            node.op = other()
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        other = _SEQK_LOGIC[type(node.op)]
        if self.depth and self._point(node, "%s -> %s" % (_SEQK_SYMBOLS[type(node.op)], _SEQK_SYMBOLS[other])):
            node.op = other()
        return node

    def visit_Name(self, node):
        other = _SEQK_EXTREMES.get(node.id)
        if self.depth and other and isinstance(node.ctx, ast.Load) and self._point(node, "%s -> %s" % (node.id, other)):
            return ast.copy_location(ast.Name(id=other, ctx=node.ctx), node)
        return node


def _seqk_compiled(source, target, excluded=frozenset()):
    """A fresh namespace holding the reference with mutation `target` made, and the points' names;
    no namespace when the mutant is one of the `excluded` programs (by their parse trees)."""
    mutation = _SeqkMutation(target)
    tree = ast.fix_missing_locations(mutation.visit(ast.parse(source)))
    if ast.dump(tree) in excluded:
        return None, mutation.points
    namespace = {"__name__": "__seqk_mutant__", "__builtins__": builtins}
    exec(compile(tree, "<reference>", "exec"), namespace)
    return namespace, mutation.points


def _seqk_load_mutants(source, excluded=()):
    """Compiles the reference and its mutants, less any that is one of the `excluded` programs (a
    measurement held out from the search); returns the mutation points' names."""
    dumps = set()
    for program in excluded:
        try:
            dumps.add(ast.dump(ast.parse(program)))
        except SyntaxError:  # a program that does not parse is no mutant of the reference
            pass
    reference, points = _seqk_compiled(source, -1)
    _seqk_mutants[:] = [reference]
    _seqk_points[:] = points
    for target in range(len(points)):
        try:
            namespace = _seqk_compiled(source, target, dumps)[0]
            _seqk_mutants.append(namespace if namespace is not None else _SEQK_EXCLUDED)
        except Exception:  # a mutant that does not load is no near miss: its tests fail at once
            _seqk_mutants.append(None)
    return points


def _seqk_mutant_points():
    """The mutation points' names, in the order `_seqk_kills` numbers them (from 1)."""
    return list(_seqk_points)


def _seqk_same(actual, expected):
    """`actual == expected` as a test compares them: floats within 1e-6 + 1e-7 * |expected|."""
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return actual == expected or abs(actual - expected) <= 1e-06 + 1e-07 * abs(expected) or (
            actual != actual and expected != expected
        )
    if isinstance(expected, (list, tuple)) and isinstance(actual, type(expected)):
        return len(actual) == len(expected) and all(_seqk_same(a, e) for a, e in builtins.zip(actual, expected))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_seqk_same(actual[k], expected[k]) for k in expected)
    return bool(actual == expected)


def _seqk_kills(_seqk_name, _seqk_max_steps, *args):
    """The mutants (1-based, in point order) that a test of the named function on `args` fails.
    Each mutant may take four times the reference's steps and a thousand more, within the budget."""
    reference = _seqk_mutants[0]
    value, steps = _seqk_traced(_seqk_function(reference, _seqk_name), copy.deepcopy(args), _seqk_max_steps)
    budget = min(_seqk_max_steps, 4 * steps + 1000)
    killed = []
    for number, namespace in enumerate(_seqk_mutants[1:], 1):
        if namespace is _SEQK_EXCLUDED:
            continue
        if namespace is None:
            killed.append(number)
            continue
        try:
            other = _seqk_traced(_seqk_function(namespace, _seqk_name), copy.deepcopy(args), budget)[0]
        except _SeqkStop:
            continue
        except (Exception, SystemExit):  # the mutant's failure: the test fails
            killed.append(number)
            continue
        try:
            same = _seqk_same(other, value)
        except Exception:  # values that cannot be compared: the test fails
            same = False
        if not same:
            killed.append(number)
    return killed
