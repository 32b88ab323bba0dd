"""Laws of the plain-value codec (codec.py): what is encoded decodes to an equal value of exactly
the same types; a subclass crosses as its base value only when the candidate's side coerces; and
nothing malformed, oversized or crafted is ever decoded.

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import collections
import enum
import json
import math
import random
import unittest

from codec import (
    MAX_DEPTH,
    MAX_NODES,
    NotPlain,
    ProtocolError,
    base_value,
    cut,
    decode,
    describe_exception,
    encode,
    holds_set,
)

SEED = 20261201


def _scalar(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(10**30), 10**30)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1.5, float("inf"), -float("inf"), rng.uniform(-1e300, 1e300)])
    if kind == 4:
        return complex(rng.uniform(-9, 9), rng.uniform(-9, 9))
    if kind == 5:
        return "".join(
            chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xA0, 0x3000), 0xD800, 0x1F600]))
            for _ in range(rng.randrange(6))
        )
    if kind == 6:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(6)))
    return bytearray(rng.randrange(256) for _ in range(rng.randrange(4)))


def _hashable(rng):
    value = _scalar(rng)
    return bytes(value) if isinstance(value, bytearray) else value


def _value(rng, depth=0):
    """A random plain value of every kind the codec knows, a few levels deep."""
    if depth > 3 or rng.random() < 0.3:
        return _scalar(rng)
    items = [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = [_hashable(rng) for _ in range(rng.randrange(4))]
    kind = rng.randrange(10)
    builders = [
        lambda: items,
        lambda: tuple(items),
        lambda: dict(zip(keys, items)),
        lambda: set(keys),
        lambda: frozenset(keys),
        lambda: collections.Counter(dict(zip(keys, [rng.randrange(9) for _ in keys]))),
        lambda: collections.OrderedDict(zip(keys, items)),
        lambda: collections.defaultdict(rng.choice([int, list, None]), zip(keys, items)),
        lambda: collections.deque(items, rng.choice([None, 2, 5])),
        lambda: [tuple(items), dict(zip(keys, items))],
    ]
    return builders[kind]()


def _same(a, b):
    """Equal, with exactly the same types all the way down (nan equal to nan, -0.0 not to 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, complex):
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, (list, tuple, collections.deque)):
        return (
            len(a) == len(b)
            and all(_same(x, y) for x, y in zip(a, b))
            and getattr(a, "maxlen", None) == getattr(b, "maxlen", None)
        )
    if isinstance(a, dict):
        return (
            list(a) == list(b)
            and all(_same(a[k], b[k]) for k in a)
            and getattr(a, "default_factory", None) == getattr(b, "default_factory", None)
        )
    return a == b


class RoundTrip(unittest.TestCase):
    def test_every_plain_value_decodes_to_itself_through_json(self):
        rng = random.Random(SEED)
        for _ in range(2000):
            value = _value(rng)
            tagged = json.loads(json.dumps(encode(value), ensure_ascii=True))
            self.assertTrue(_same(decode(tagged), value), value)

    def test_coercion_changes_nothing_plain(self):
        rng = random.Random(SEED + 1)
        for _ in range(500):
            value = _value(rng)
            self.assertEqual(encode(value, coerce=True), encode(value))

    def test_limits_of_size_and_depth(self):
        nested = 3
        for _ in range(MAX_DEPTH):
            nested = [nested]
        self.assertTrue(_same(decode(encode(nested)), nested))
        with self.assertRaisesRegex(NotPlain, "nested deeper"):
            encode([nested])
        with self.assertRaisesRegex(NotPlain, "more than"):
            encode([0] * MAX_NODES)
        cycle = []
        cycle.append(cycle)
        with self.assertRaises(NotPlain):
            encode(cycle)


class Coercion(unittest.TestCase):
    """The candidate's side sends what the official `==` compares by."""

    def test_subclasses_cross_as_their_base_type(self):
        Point = collections.namedtuple("Point", "x y")

        class Colour(enum.IntEnum):
            RED = 1

        class Text(str):
            pass

        class Ratio(float):
            pass

        cases = [
            (Point(1, 2), (1, 2)),
            (Colour.RED, 1),
            (Text("a"), "a"),
            (Ratio(0.5), 0.5),
            (collections.defaultdict(lambda: 0, {"a": 1}), {"a": 1}),
            ({"a": 1}.keys(), {"a"}),
            ({"a": 1}.items(), {("a", 1)}),
            ([Point(0, 0)], [(0, 0)]),
        ]
        for value, expected in cases:
            decoded = decode(encode(value, coerce=True))
            # The value, and the judge's own subclass of its base type under the candidate's type name.
            self.assertEqual(decoded, expected)
            self.assertIsInstance(decoded, type(expected))
            if type(value) is not list:
                self.assertIsNot(type(decoded), type(expected))
                self.assertEqual(type(decoded).__name__, type(value).__name__)
                self.assertEqual(type(decoded).__mro__[1:], type(expected).__mro__)
        # `type(x) is str` is false for a str subclass, as officially; `==` and hashing are str's.
        text = decode(encode(Text("a"), coerce=True))
        self.assertFalse(type(text) is str)
        self.assertEqual({text: 1}, {"a": 1})
        self.assertEqual(repr(text), "'a'")

    def test_ranges_and_the_tests_iterators_cross(self):
        self.assertEqual(decode(encode(range(3, 10 ** 30, 7))), range(3, 10 ** 30, 7))
        drained = decode(encode([(x * x for x in range(4)), iter("ab")], drain=True))
        self.assertEqual([type(g).__name__ for g in drained], ["generator", "generator"])
        self.assertEqual([list(g) for g in drained], [[0, 1, 4, 9], ["a", "b"]])
        with self.assertRaises(NotPlain):
            encode(iter([1]))

    def test_an_index_object_crosses_as_its_int_only_when_it_equals_it(self):
        class Index:
            def __index__(self):
                return 7

            def __eq__(self, other):
                return other == 7

            __hash__ = object.__hash__

        class Liar(Index):
            def __eq__(self, other):
                return False

            __hash__ = object.__hash__

        self.assertEqual(decode(encode(Index(), coerce=True)), 7)
        with self.assertRaises(NotPlain):
            encode(Liar(), coerce=True)

    def test_what_never_crosses(self):
        for value in ({"a": 1}.values(), object(), iter([1]), (x for x in [1]), len):
            with self.assertRaises(NotPlain):
                base_value(value)
        with self.assertRaisesRegex(NotPlain, "defaultdict whose default factory"):
            encode(collections.defaultdict(lambda: 0))

    def test_a_lying_subclass_crosses_as_its_value(self):
        class Always(int):
            def __eq__(self, other):
                return True

            __hash__ = int.__hash__

        crossed = decode(encode(Always(4), coerce=True))
        self.assertIs(type(crossed).__mro__[1], int)
        self.assertNotIn("__eq__", type(crossed).__dict__)
        self.assertNotEqual(crossed, 3)


class Refusals(unittest.TestCase):
    def test_malformed_values_are_protocol_errors(self):
        for bad in (
            None,
            [],
            ["?"],
            ["i", 3],
            ["b", 2],
            ["b", True],
            ["f", "x" * 100],
            ["y", "!!"],
            ["l", 3],
            ["d", [[1]]],
            ["S", [["l", []]]],
            ["D", "lambda", []],
            ["Q", -1, []],
            ["r", "f"],
            ["c", "0x1p0"],
            ["i", "f" * (2 * 1024 * 1024 + 1)],
        ):
            with self.assertRaises(ProtocolError, msg=repr(bad)[:80]):
                decode(bad)

    def test_keys_crafted_to_collide_are_refused(self):
        colliding = [["i", format(n * (2**61 - 1), "x")] for n in range(40)]
        with self.assertRaisesRegex(ProtocolError, "share one hash"):
            decode(["S", colliding])

    def test_a_deadline_stops_a_long_read(self):
        with self.assertRaisesRegex(ProtocolError, "time limit"):
            decode(["l", [["n"]] * 5000], deadline=0.0)

    def test_holds_set_finds_sets_anywhere(self):
        self.assertTrue(holds_set(encode([1, {"a": frozenset([2])}])))
        self.assertFalse(holds_set(encode([1, {"a": (2, 3)}])))


class Text(unittest.TestCase):
    def test_cut_and_describe(self):
        self.assertEqual(cut("x" * 10), "x" * 10)
        self.assertTrue(cut("x" * 1000).endswith("[1000 chars total]"))

        class Broken(Exception):
            def __str__(self):
                raise RuntimeError("no")

        self.assertTrue(describe_exception(Broken()).endswith("Broken: <exception str() failed>"))
        self.assertEqual(describe_exception(KeyError("k")), "KeyError: 'k'")
        self.assertRegex(
            describe_exception(SyntaxError("bad", ("<candidate>", 3, 1, "x y\n"))),
            r"SyntaxError: bad \(candidate line 3: x y\)",
        )


if __name__ == "__main__":
    unittest.main()
