"""The judge's side of an attempt (attempt.py) without a candidate: which names the tests may get
from the candidate, how its exceptions are rebuilt, and the bounds of the tests' own evaluation.

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import ast
import builtins
import itertools
import math
import time
import unittest

from attempt import (
    WITHHELD,
    Attempt,
    EvaluationBounds,
    EvaluationOverrun,
    Opaque,
    Remote,
    bindable,
    compiled,
    held_out_quotes,
    loaded_names,
    selected,
    withhold_quotes,
)
from codec import encode


class _Deadline:
    def __init__(self, seconds):
        self.deadline = time.monotonic() + seconds


def _attempt(tests):
    attempt = Attempt({"memoryBytes": 0}, ast.parse(tests), tests, 1000)
    attempt.channel = _Deadline(5)
    return attempt


class Names(unittest.TestCase):
    def test_only_names_the_tests_use_and_may_use(self):
        self.assertFalse(bindable("__builtins__"))
        self.assertFalse(bindable("__import__"))
        self.assertFalse(bindable("all"))
        self.assertFalse(bindable("ValueError"))
        self.assertTrue(bindable("primes_up_to"))
        attempt = _attempt("assert all(add(a, b) == c for a, b, c in cases)\nassert math.isclose(0.1, x)")
        names = {
            "__builtins__": {"kind": "module", "module": "itertools"},
            "all": {"kind": "callable"},
            "add": {"kind": "callable"},
            "cases": {"kind": "value", "value": encode([(1, 2, 3)])},
            "math": {"kind": "module", "module": "math"},
            "x": {"kind": "value", "value": encode(0.1)},
            "unused": {"kind": "callable"},
        }
        namespace = attempt.namespace(names)
        self.assertIs(namespace["__builtins__"], builtins)
        self.assertNotIn("all", namespace)
        self.assertNotIn("unused", namespace)
        self.assertIs(type(namespace["add"]), Remote)
        self.assertEqual(namespace["cases"], [(1, 2, 3)])
        self.assertIs(namespace["math"], math)

    def test_a_candidate_name_is_never_a_live_object_of_the_judge(self):
        attempt = _attempt("assert 7 in primes_up_to(10)\nassert math.pi > 3\nassert q(1)")
        namespace = attempt.namespace(
            {
                "primes_up_to": {"kind": "class", "module": "itertools", "qualname": "count"},
                "math": {"kind": "module", "module": "itertools"},
                "q": {"kind": "module", "module": "os"},
            }
        )
        self.assertIsNot(namespace["primes_up_to"], itertools.count)
        self.assertIs(type(namespace["primes_up_to"]), Opaque)
        self.assertIs(type(namespace["math"]), Opaque)
        self.assertIs(type(namespace["q"]), Opaque)


class Exceptions(unittest.TestCase):
    def rebuilt(self, record):
        return _attempt("x").exception(record, "f()")

    def test_message_and_arguments_read_as_in_the_candidates_process(self):
        for original in (
            KeyError("k"),
            KeyError(("k", 1)),
            ValueError(3, "three"),
            OSError(2, "gone"),
            ValueError(),
            UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        ):
            record = {
                "builtin": type(original).__name__,
                "named": [],
                "message": str(original),
                "args": encode(original.args),
                "text": "t",
            }
            exc = self.rebuilt(record)
            self.assertIsInstance(exc, type(original))
            self.assertEqual(str(exc), str(original))
            self.assertEqual(exc.args, original.args)

    def test_a_class_that_words_its_own_message(self):
        record = {"builtin": "ValueError", "named": [], "message": "custom text", "args": encode((1,)), "text": "t"}
        exc = self.rebuilt(record)
        self.assertIsInstance(exc, ValueError)
        self.assertEqual(str(exc), "custom text")
        self.assertEqual(exc.args, (1,))

    def test_without_plain_arguments_the_message_stays(self):
        exc = self.rebuilt({"builtin": "NotAClass", "named": [], "message": "m", "args": None, "text": "t"})
        self.assertIs(type(exc), Exception)
        self.assertEqual(str(exc), "m")


class Bounds(unittest.TestCase):
    def test_a_loop_in_the_tests_own_code_ends_at_the_deadline(self):
        code = compiled(ast.parse("while True:\n    pass").body[0], "exec")
        started = time.monotonic()
        with self.assertRaises(EvaluationOverrun):
            with EvaluationBounds(time.monotonic() + 0.1, 0) as bounds:
                bounds.run(code, {}, "exec")
        self.assertLess(time.monotonic() - started, 2)

    def test_memory_beyond_the_attempts_limit_is_a_memory_error(self):
        code = compiled(ast.parse("x = bytearray(512 * 1024 * 1024)").body[0], "exec")
        with self.assertRaises(MemoryError):
            with EvaluationBounds(time.monotonic() + 5, 64 * 1024 * 1024) as bounds:
                bounds.run(code, {}, "exec")
        # And the judge has its own limit back.
        bytearray(128 * 1024 * 1024)

    def test_no_overrun_outside_the_tests_code(self):
        with EvaluationBounds(time.monotonic() + 0.05, 0) as bounds:
            deadline = time.monotonic() + 0.3
            while time.monotonic() < deadline:
                pass
            self.assertTrue(bounds.overdue)
            with self.assertRaises(EvaluationOverrun):
                bounds.run(compiled(ast.parse("1").body[0].value, "eval"), {}, "eval")


if __name__ == "__main__":
    unittest.main()


class HeldOut(unittest.TestCase):
    TESTS = (
        "assert f(1) == 2\n"
        "assert f([10, 20, 30]) == 60 or held_only\n"
        "assert g(\"abc\", 1e3) == 'x'\n"
        "assert f(2) == 4\n"
    )

    def test_a_selection_runs_and_names_only_its_statements(self):
        tree = ast.parse(self.TESTS)
        part = selected(tree, [3, 0, 9, -1, "2"])
        self.assertEqual(part.seqk_indices, [0, 3])
        self.assertEqual(len(part.body), 2)
        self.assertEqual(loaded_names(part), ["f"])

    def test_quotes_of_held_out_calls_are_withheld_and_nothing_else(self):
        tree = ast.parse(self.TESTS)
        quotes = held_out_quotes(self.TESTS, tree, [0, 3])
        # The calls as written, their arguments as written and as Python prints them.
        for quote in ("f([10,20,30])", "[10,20,30]", "g('abc',1e3)", "'abc',1000.0"):
            self.assertIn(quote, quotes)
        result = {
            "outcome": "failed",
            "error": "raised for [10, 20, 30]",
            "tests": [
                {"index": 0, "actual": "seen g( 'abc', 1000.0 )", "error": "f(1) is fine", "expected": "2"},
                {"index": 3, "actual": "2", "error": 'did you mean g("abc", 1e3)?'},
            ],
        }
        withhold_quotes(result, quotes)
        self.assertEqual(result["error"], WITHHELD)
        self.assertEqual(result["tests"][0]["actual"], WITHHELD)
        # A visible statement's own call is no secret, nor is a short argument.
        self.assertEqual(result["tests"][0]["error"], "f(1) is fine")
        self.assertEqual(result["tests"][1]["actual"], "2")
        self.assertEqual(result["tests"][1]["error"], WITHHELD)
