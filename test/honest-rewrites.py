"""Honest rewrites of a reference solution: the same program as far as its task can tell, written
the way another correct answer might be, for testing that strengthened tests never fail a correct
answer (test/strengthen-honesty.test.ts, scripts/strengthened-power.ts).

Reads a JSON list of {"code": ..., "family": ...} on stdin and writes a JSON list of the rewritten
programs (null where the family changes nothing in that code). Families:

- float-arithmetic: `a / b` as `a * (1.0 / b)`, `a * b * c` as `a * (b * c)`, a sum of floats by
  `math.fsum`, `x ** 0.5` of a non-negative number by `math.sqrt` (each equal in exact arithmetic,
  and a unit in the last place apart in floating point);
- truncating-division: `%`, `//` and `divmod` truncate towards zero on a negative operand (as
  `abs(x) % 10` for a digit, or C);
- round-half-away: `round` sends exact halves away from zero;
- set-order: sets iterate in the order their items first came in (as an answer that keeps them
  in a dict would);
- zip-by-index: `zip(a, b, ...)` loops over the indices of its first argument (as an answer that
  writes `for i in range(len(a))` does), raising where another argument is shorter.

A rewrite is honest only where the task cannot tell it from the reference; the caller keeps those
that pass the task's original tests.
"""

import ast
import json
import sys

HELPERS = {
    "float-arithmetic": '''
import math as _hr_math


def _hr_fsum(values, *start):
    values = list(values)
    if not start and values and all(type(v) is float for v in values):
        return _hr_math.fsum(values)
    return sum(values, *start)


def _hr_sqrt(x):
    if type(x) in (int, float) and x >= 0:
        return _hr_math.sqrt(x)
    return x ** 0.5
''',
    "truncating-division": '''
def _hr_truncated(a, b):
    numbers = (int, float)
    if type(a) not in numbers or type(b) not in numbers or b == 0 or a == 0 or (a < 0) == (b < 0):
        return None
    if type(a) is int and type(b) is int:
        quotient = -(abs(a) // abs(b))
        return quotient, a - b * quotient
    import math
    remainder = math.fmod(a, b)
    return float(int((a - remainder) / b)), remainder


def _hr_mod(a, b):
    t = _hr_truncated(a, b)
    return a % b if t is None else t[1]


def _hr_floordiv(a, b):
    t = _hr_truncated(a, b)
    return a // b if t is None else t[0]


def _hr_divmod(a, b):
    t = _hr_truncated(a, b)
    return divmod(a, b) if t is None else t
''',
    "round-half-away": '''
def _hr_round(number, ndigits=None):
    import decimal
    import math
    if type(number) not in (int, float) or not math.isfinite(number):
        return round(number) if ndigits is None else round(number, ndigits)
    step = decimal.Decimal(1) if ndigits is None else decimal.Decimal(1).scaleb(-ndigits)
    away = decimal.Decimal(number).quantize(step, rounding=decimal.ROUND_HALF_UP)
    return int(away) if ndigits is None or type(number) is int else float(away)
''',
    "set-order": '''
class _hr_set(set):
    def __init__(self, iterable=()):
        items = list(iterable)
        set.__init__(self, items)
        self._order = dict.fromkeys(items)

    def add(self, item):
        set.add(self, item)
        self._order.setdefault(item)

    def update(self, *others):
        for other in others:
            for item in other:
                self.add(item)

    def __iter__(self):
        order = getattr(self, "_order", {})
        first = [x for x in order if set.__contains__(self, x)]
        return iter(first + [x for x in set.__iter__(self) if x not in order])


class _hr_frozenset(frozenset):
    def __new__(cls, iterable=()):
        items = list(iterable)
        made = frozenset.__new__(cls, items)
        made._order = dict.fromkeys(items)
        return made

    def __iter__(self):
        return iter(list(self._order))
''',
    "zip-by-index": '''
def _hr_zip(first, *others):
    first = list(first)
    others = [list(o) for o in others]
    return [(first[i],) + tuple(o[i] for o in others) for i in range(len(first))]
''',
}


def call(name, args, node):
    return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args, keywords=[]), node)


class Rewrite(ast.NodeTransformer):
    def __init__(self, family):
        self.family = family
        self.changed = False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if self.family == "float-arithmetic":
            if isinstance(node.op, ast.Div):
                self.changed = True
                inverse = ast.BinOp(left=ast.Constant(value=1.0), op=ast.Div(), right=node.right)
                return ast.copy_location(ast.BinOp(left=node.left, op=ast.Mult(), right=inverse), node)
            if isinstance(node.op, ast.Mult) and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Mult):
                self.changed = True
                inner = ast.BinOp(left=node.left.right, op=ast.Mult(), right=node.right)
                return ast.copy_location(ast.BinOp(left=node.left.left, op=ast.Mult(), right=inner), node)
            if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and node.right.value == 0.5:
                self.changed = True
                return call("_hr_sqrt", [node.left], node)
        if self.family == "truncating-division" and isinstance(node.op, (ast.Mod, ast.FloorDiv)):
            self.changed = True
            return call("_hr_mod" if isinstance(node.op, ast.Mod) else "_hr_floordiv", [node.left, node.right], node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if (
            self.family == "truncating-division"
            and isinstance(node.target, ast.Name)
            and isinstance(node.op, (ast.Mod, ast.FloorDiv))
        ):
            self.changed = True
            name = "_hr_mod" if isinstance(node.op, ast.Mod) else "_hr_floordiv"
            value = call(name, [ast.Name(id=node.target.id, ctx=ast.Load()), node.value], node)
            return ast.copy_location(ast.Assign(targets=[node.target], value=value), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if not isinstance(node.func, ast.Name):
            return node
        renames = {
            "float-arithmetic": {"sum": "_hr_fsum"},
            "truncating-division": {"divmod": "_hr_divmod"},
            "round-half-away": {"round": "_hr_round"},
            "set-order": {"set": "_hr_set", "frozenset": "_hr_frozenset"},
            "zip-by-index": {"zip": "_hr_zip"},
        }[self.family]
        if node.func.id in renames and not node.keywords:
            self.changed = True
            node.func = ast.Name(id=renames[node.func.id], ctx=ast.Load())
        return node

    def visit_Set(self, node):
        self.generic_visit(node)
        if self.family != "set-order":
            return node
        self.changed = True
        return call("_hr_set", [ast.copy_location(ast.List(elts=node.elts, ctx=ast.Load()), node)], node)

    def visit_SetComp(self, node):
        self.generic_visit(node)
        if self.family != "set-order":
            return node
        self.changed = True
        return call("_hr_set", [ast.copy_location(ast.GeneratorExp(elt=node.elt, generators=node.generators), node)], node)


def rewrite(code, family):
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    rewriter = Rewrite(family)
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    if not rewriter.changed:
        return None
    body = ast.unparse(tree)
    # `from __future__` lines stay first.
    lines = body.split("\n")
    future = [line for line in lines if line.startswith("from __future__")]
    rest = [line for line in lines if not line.startswith("from __future__")]
    return "\n".join(future + [HELPERS[family].strip("\n"), ""] + rest)


def main():
    requests = json.load(sys.stdin)
    json.dump([rewrite(r["code"], r["family"]) for r in requests], sys.stdout)


if __name__ == "__main__":
    main()
