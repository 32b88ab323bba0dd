"""Plain values: what crosses between the candidate's process (worker.py) and the judge (judge.py).

A *plain value* is one of None, bool, int, float, complex, str, bytes, bytearray, list, tuple,
dict, set, frozenset, and the standard library's collections.Counter, OrderedDict, defaultdict
(with a built-in factory) and deque, nested at most MAX_DEPTH deep with at most MAX_NODES parts.
It travels as tagged JSON:

    ["n"]  ["b", 0|1]  ["i", hex]  ["f", float.hex]  ["c", re.hex, im.hex]  ["s", text]
    ["y", base64]  ["Y", base64]  ["l", [...]]  ["t", [...]]  ["d", [[k, v], ...]]
    ["S", [...]]  ["F", [...]]  ["C", [[k, v], ...]]  ["O", [[k, v], ...]]
    ["D", factory, [[k, v], ...]]  ["Q", maxlen | null, [...]]  ["r", name]
    ["R", start, stop, step]  ["x", type name, value]  ["g", [...]]
    ["li", "hex,hex,..."]  ["lf", [float.hex, ...]]  ["ls", [text, ...]]  (and "ti", "tf", "ts")

Why tagged and by exact type: the judge rebuilds every value from these tags with its own types,
so nothing the candidate defined (an `__eq__` that always says yes, a `str` subclass, a lying
`__hash__`) ever reaches the side that compares. The candidate's side sends a subclass of a plain
type as that type (`encode(..., coerce=True)`: a namedtuple as a tuple, an IntEnum or a numpy
integer as an int, a dict view as a set), the value the official `==` would compare by.
`["r", name]` is a reference to one of the candidate's functions passed as an argument (only the
judge sends it). `["R", ...]` is a range (hex ints), by value both ways. `["x", name, value]` is a
value of a subclass of a plain type (or of a type the official `==` compares as one), sent as its
base value with its type's name: the judge rebuilds it as an instance of a subclass of its own
base type with that name and nothing else, so `==` and `isinstance(x, str)` read as the base
type's and `type(x) is str` is false, as officially. `["g", [...]]` is an iterator or generator the
tests pass as an argument, drained by the judge: the candidate gets a generator of its items.
A list or tuple of COMPACT_MIN or more items all of one exact type int, float or str travels in
one piece (`["li", "1f,-2,..."]`): a 700 000-element list of ints is then 5 MB and a fraction of a
second each way, instead of 13 MB and seconds of tagging every item. Floats go as `float.hex` (exact, nan and -0.0 too) and ints as hex (exempt from
Python's int/str digit limit).
"""

import base64
import collections
import collections.abc
import io
import operator
import sys
import time
import traceback

MAX_DEPTH = 100
MAX_NODES = 1000000
# More keys of one set or dict sharing one hash than this is a crafted value: inserting n keys
# that all collide costs n^2 comparisons (45,000 such ints took the judge 5 s).
MAX_SAME_HASH = 32
# The longest int accepted, in hex digits (8 Mbit): far beyond any test, cheap to rebuild.
MAX_INT_HEX = 2 * 1024 * 1024
# defaultdict factories the judge can rebuild (a defaultdict with any other factory crosses as a dict).
DEFAULT_FACTORIES = {
    "int": int,
    "float": float,
    "complex": complex,
    "str": str,
    "bytes": bytes,
    "bool": bool,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
}
# A list or tuple this long whose items are all of one exact type int, float or str is sent compactly.
COMPACT_MIN = 16
_COMPACT = {int: "i", float: "f", str: "s"}
# A subclass of one of these crosses as ["x", its name, its base value] (see _subclass).
_SUBCLASSABLE = (
    str, int, float, complex, bytes, bytearray, tuple, list, dict, set, frozenset,
    collections.Counter, collections.OrderedDict, collections.defaultdict, collections.deque,
)
# The judge's classes made for the candidate's type names, at most this many per process (past it,
# a value crosses as its base type).
MAX_SUBCLASSES = 1024
MAX_TYPE_NAME = 100
# Every repr and error text is cut to this many characters, so an enormous value (a list of a
# million items, a 10 MB string) cannot blow up a frame or the feedback prompt.
MAX_TEXT = 500

_DICT_KEYS = type({}.keys())
_DICT_VALUES = type({}.values())
_DICT_ITEMS = type({}.items())


def cut(text):
    """Truncates to MAX_TEXT characters, saying how much was cut."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + "... [%d chars total]" % len(text)


def describe_exception(exc):
    """`Type: message` on one logical line (what the feedback shows); never raises."""
    try:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except BaseException:  # a candidate's exception may have a broken __str__
        text = type(exc).__name__
    # format_exception_only renders SyntaxError on several lines (text and caret): keep it compact.
    if isinstance(exc, SyntaxError):
        line = (exc.text or "").strip()
        where = (exc.filename or "").strip("<>")
        text = "%s: %s (%sline %s%s)" % (
            type(exc).__name__,
            exc.msg,
            where + " " if where else "",
            exc.lineno,
            ": " + line if line else "",
        )
    return cut(text)


class NotPlain(Exception):
    """A value that cannot cross between the processes, with the reason in words."""


class ProtocolError(Exception):
    """A frame or value that does not follow the protocol (from the candidate's side: its fault)."""


def type_name(value):
    try:
        return type(value).__qualname__
    except BaseException:  # a metaclass may raise anything
        return "?"


def _numpy_scalar(value):
    """The Python value of a numpy scalar (np.int64, np.bool_, np.float32...), else None. numpy is
    never imported here: a value can only be one of its scalars when the candidate imported it."""
    numpy = sys.modules.get("numpy")
    generic = getattr(numpy, "generic", None) if numpy is not None else None
    if not isinstance(generic, type) or not isinstance(value, generic):
        return None
    item = value.item()
    return None if isinstance(item, generic) else item


def base_value(value):
    """The plain value the official `==` compares `value` by, for the candidate's side: a
    subclass of a plain type as that type, a numpy scalar as its Python value, an object with
    `__index__` that equals its index as that int, a dict's keys or items view as a set; else
    raises NotPlain with the reason. Runs in the candidate's process: what it calls is the
    candidate's, and whatever it returns is only the candidate's word, checked again by tag."""
    scalar = _numpy_scalar(value)
    if scalar is not None:
        return scalar
    # By the type's own MRO: isinstance() believes a `__class__` property.
    kind = type(value)
    for plain in (int, float, str, complex, bytes, bytearray, tuple, list, frozenset, set, collections.deque):
        if issubclass(kind, plain):
            return _as_base(value, plain)
    if issubclass(kind, dict):
        return _as_dict(value)
    if type(value) is _DICT_KEYS:
        return set(value)
    if type(value) is _DICT_ITEMS:
        try:
            return set(value)
        except TypeError:
            raise NotPlain("a dict items view with unhashable values")
    if type(value) is _DICT_VALUES:
        raise NotPlain("a dict values view (it equals nothing but itself)")
    if getattr(type(value), "__index__", None) is not None:
        number = int.__int__(operator.index(value))
        if bool(value == number):
            return number
    raise NotPlain("an object of type %s, not a plain value" % type_name(value))


def _as_base(value, plain):
    if plain is int:
        return int.__int__(value)
    if plain is float:
        return float.__float__(value)
    if plain is str:
        return str.__str__(value)
    if plain is complex:
        return complex(complex.real.__get__(value), complex.imag.__get__(value))
    if plain in (bytes, bytearray):
        return plain(memoryview(value))
    if plain is collections.deque:
        return collections.deque(collections.deque.__iter__(value), value.maxlen)
    return plain(plain.__iter__(value))


def _as_dict(value):
    kind = type(value)
    if issubclass(kind, collections.Counter):
        return collections.Counter(dict(dict.items(value)))
    if issubclass(kind, collections.OrderedDict):
        return collections.OrderedDict(collections.OrderedDict.items(value))
    if issubclass(kind, collections.defaultdict) and value.default_factory in DEFAULT_FACTORIES.values():
        return collections.defaultdict(value.default_factory, dict.items(value))
    return dict(dict.items(value))


class _Encoder:
    """Tags values by exact type (see encode)."""

    def __init__(self, ref, coerce, drain=False):
        self.ref = ref
        self.coerce = coerce
        self.drain = drain
        self.nodes = 0

    def many(self, values, depth):
        return [self.value(x, depth + 1) for x in values]

    def pairs(self, items, depth):
        return [[self.value(k, depth + 1), self.value(x, depth + 1)] for k, x in items]

    def value(self, v, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise NotPlain("a value with more than %d parts" % MAX_NODES)
        if depth > MAX_DEPTH:
            raise NotPlain("a value nested deeper than %d levels (a cycle?)" % MAX_DEPTH)
        t = type(v)
        if v is None:
            return ["n"]
        if t is bool:
            return ["b", 1 if v else 0]
        if t is int:
            return ["i", int.__format__(v, "x")]
        if t is float:
            return ["f", float.hex(v)]
        if t is str:
            return ["s", v]
        if t is list:
            return self.sequence("l", v, depth)
        if t is tuple:
            return self.sequence("t", v, depth)
        if t is dict:
            return ["d", self.pairs(dict.items(v), depth)]
        return self.rare(v, t, depth)

    def sequence(self, tag, items, depth):
        """An exact list or tuple: compact when long and of one scalar type, else item by item."""
        if len(items) >= COMPACT_MIN:
            kind = _COMPACT.get(type(items[0]))
            first = type(items[0])
            if kind is not None and all(type(x) is first for x in items):
                self.nodes += len(items)
                if self.nodes > MAX_NODES:
                    raise NotPlain("a value with more than %d parts" % MAX_NODES)
                if kind == "i":
                    return [tag + kind, ",".join(["%x" % x for x in items])]
                if kind == "f":
                    return [tag + kind, [float.hex(x) for x in items]]
                return [tag + kind, list(items)]
        return [tag, self.many(items, depth)]

    def rare(self, v, t, depth):
        if t is range:
            return ["R", int.__format__(v.start, "x"), int.__format__(v.stop, "x"), int.__format__(v.step, "x")]
        if t is set or t is frozenset:
            return ["S" if t is set else "F", self.many(t.__iter__(v), depth)]
        if t is complex:
            return ["c", float.hex(v.real), float.hex(v.imag)]
        if t is bytes or t is bytearray:
            return ["y" if t is bytes else "Y", base64.b64encode(bytes(v)).decode("ascii")]
        if t is collections.Counter:
            return ["C", self.pairs(dict.items(v), depth)]
        if t is collections.OrderedDict:
            return ["O", self.pairs(collections.OrderedDict.items(v), depth)]
        if t is collections.defaultdict:
            return self.defaultdict(v, depth)
        if t is collections.deque:
            return ["Q", v.maxlen, self.many(collections.deque.__iter__(v), depth)]
        name = self.ref(v) if self.ref is not None else None
        if name is not None:
            return ["r", name]
        if self.drain and isinstance(v, collections.abc.Iterator) and not isinstance(v, io.IOBase):
            return ["g", self.many(self.drained(v), depth)]
        if self.coerce:
            self.nodes -= 1
            base = base_value(v)
            inner = self.value(base, depth)
            return ["x", _short_type_name(v), inner] if type(base) in _SUBCLASSABLE else inner
        raise NotPlain("an object of type %s, not a plain value" % type_name(v))

    def drained(self, iterator):
        """The items of an iterator the tests pass (their own generator): consumed here, bounded."""
        items = []
        for item in iterator:
            if len(items) >= MAX_NODES:
                raise NotPlain("an iterator with more than %d items" % MAX_NODES)
            items.append(item)
        return items

    def defaultdict(self, v, depth):
        factory = v.default_factory
        name = None if factory is None else next((n for n, f in DEFAULT_FACTORIES.items() if f is factory), False)
        if name is not False:
            return ["D", name, self.pairs(dict.items(v), depth)]
        if self.coerce:
            return ["x", "defaultdict", ["d", self.pairs(dict.items(v), depth)]]
        raise NotPlain("a defaultdict whose default factory is %s (only built-in types can cross)" % type_name(factory))


def encode(value, ref=None, coerce=False, drain=False):
    """The tagged form of a plain value; raises NotPlain naming the first part that is not one.
    `ref(value)` may turn a value (a function stub on the judge's side) into a name; `coerce`
    sends what is not exactly plain as its base value and its type's name (see base_value);
    `drain` sends an iterator as its items (the judge's arguments)."""
    return _Encoder(ref, coerce, drain).value(value, 0)


def _short_type_name(value):
    try:
        name = type(value).__name__
    except BaseException:  # a metaclass may raise anything
        name = None
    return name[:MAX_TYPE_NAME] if type(name) is str and name else "object"


_subclasses = {}


def _subclass(base, name):
    """The judge's own subclass of `base` named `name`, with nothing of its own (made once per
    pair); None past MAX_SUBCLASSES or for a base that cannot be subclassed."""
    key = (base, name)
    cls = _subclasses.get(key)
    if cls is None:
        if len(_subclasses) >= MAX_SUBCLASSES:
            return None
        cls = _subclasses[key] = type(name, (base,), {"__module__": "__main__", "__slots__": ()})
    return cls


def _as_subclass(name, value):
    """`value` as an instance of the judge's subclass of its type named `name`."""
    base = type(value)
    if base not in _SUBCLASSABLE:
        return value
    cls = _subclass(base, name)
    if cls is None:
        return value
    if base is collections.defaultdict:
        return cls(value.default_factory, value)
    if base is collections.deque:
        return cls(value, value.maxlen)
    return cls(value)


def _generator(items):
    """A real generator over `items` (an argument the tests passed as one)."""
    yield from items


class _Decoder:
    """Rebuilds tagged values with this process's own types (see decode)."""

    def __init__(self, resolve, deadline):
        self.resolve = resolve
        self.deadline = deadline
        self.nodes = 0

    def items(self, payload):
        if type(payload) is not list:
            raise ProtocolError("expected a list of parts")
        return payload

    def distinct_hashes(self, keys):
        """The keys, once no more than MAX_SAME_HASH of them share a hash (counted in O(n): the
        tally's own keys are distinct hash values)."""
        tally = {}
        for key in keys:
            h = hash(key)
            count = tally.get(h, 0) + 1
            if count > MAX_SAME_HASH:
                raise ProtocolError("a set or dict whose keys were crafted to share one hash")
            tally[h] = count
        return keys

    def pairs(self, payload, depth):
        out = []
        for pair in self.items(payload):
            if type(pair) is not list or len(pair) != 2:
                raise ProtocolError("expected [key, value] pairs")
            out.append((self.value(pair[0], depth + 1), self.value(pair[1], depth + 1)))
        self.distinct_hashes([k for k, _ in out])
        return out

    def many(self, payload, depth):
        return [self.value(x, depth + 1) for x in self.items(payload)]

    def compact(self, tag, payload):
        """A compact list or tuple (see _Encoder.sequence), its items counted as parts."""
        kind = tag[1]
        if kind == "i":
            if type(payload) is not str:
                raise ProtocolError("a malformed compact list")
            parts = payload.split(",") if payload else []
        else:
            parts = self.items(payload)
        self.nodes += len(parts)
        if self.nodes > MAX_NODES:
            raise ProtocolError("a value larger or deeper than the limits")
        if kind == "i":
            if any(len(p) > MAX_INT_HEX for p in parts):
                raise ProtocolError("a malformed int")
            items = [int(p, 16) for p in parts]
        elif kind == "f":
            items = [_fromhex(p) for p in parts]
        else:
            if not all(type(p) is str for p in parts):
                raise ProtocolError("a malformed compact list of str")
            items = list(parts)
        return items if tag[0] == "l" else tuple(items)

    def value(self, node, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise ProtocolError("a value larger or deeper than the limits")
        if self.deadline is not None and self.nodes & 1023 == 0 and time.monotonic() > self.deadline:
            raise ProtocolError("a value that took longer than the time limit to read")
        if type(node) is not list or not node or type(node[0]) is not str:
            raise ProtocolError("a value without a tag")
        try:
            return self.tagged(node[0], node, depth)
        except ProtocolError:
            raise
        except (TypeError, ValueError, OverflowError, UnicodeError) as exc:
            # An unhashable set element or dict key, bad base64 or hex: malformed, whoever sent it.
            raise ProtocolError("a malformed %r value: %s" % (node[0][:20], exc))

    def tagged(self, tag, node, depth):
        n = len(node)
        arg = node[1] if n > 1 else None
        if n == 1 and tag == "n":
            return None
        if n == 2:
            if tag == "b" and type(arg) is int and arg in (0, 1):
                return arg == 1
            if tag == "i" and type(arg) is str and len(arg) <= MAX_INT_HEX:
                return int(arg, 16)
            if tag == "f":
                return _fromhex(arg)
            if tag == "s" and type(arg) is str:
                return str(arg)
            if tag in ("y", "Y") and type(arg) is str:
                raw = base64.b64decode(arg.encode("ascii"), validate=True)
                return raw if tag == "y" else bytearray(raw)
            if tag in _SEQUENCES:
                return _SEQUENCES[tag](self.many(arg, depth))
            if tag in ("S", "F"):
                return (set if tag == "S" else frozenset)(self.distinct_hashes(self.many(arg, depth)))
            if tag in _MAPPINGS:
                return _MAPPINGS[tag](self.pairs(arg, depth))
            if tag == "r" and type(arg) is str and self.resolve is not None:
                return self.resolve(arg)
        if n == 2 and tag in _COMPACT_TAGS:
            return self.compact(tag, arg)
        if n == 4 and tag == "R" and all(type(x) is str and len(x) <= MAX_INT_HEX for x in node[1:]):
            return range(int(node[1], 16), int(node[2], 16), int(node[3], 16))
        if n == 2 and tag == "g":
            return _generator(self.many(arg, depth))
        if n == 3:
            if tag == "x" and type(arg) is str and 0 < len(arg) <= MAX_TYPE_NAME:
                return _as_subclass(arg, self.value(node[2], depth + 1))
            if tag == "c":
                return complex(_fromhex(arg), _fromhex(node[2]))
            if tag == "D" and (arg is None or (type(arg) is str and arg in DEFAULT_FACTORIES)):
                return collections.defaultdict(
                    None if arg is None else DEFAULT_FACTORIES[arg], self.pairs(node[2], depth)
                )
            if tag == "Q" and (arg is None or (type(arg) is int and arg >= 0)):
                return collections.deque(self.many(node[2], depth), arg)
        raise ProtocolError("an unknown or malformed value tag %r" % tag[:20])


_SEQUENCES = {"l": list, "t": tuple}
_COMPACT_TAGS = frozenset(a + b for a in "lt" for b in "ifs")
_MAPPINGS = {"d": dict, "C": lambda pairs: collections.Counter(dict(pairs)), "O": collections.OrderedDict}


def _fromhex(text):
    if type(text) is not str or len(text) > 64:
        raise ProtocolError("a malformed float")
    return float.fromhex(text)


def decode(tagged, resolve=None, deadline=None):
    """Rebuilds a plain value from its tagged form with this process's own types. Raises
    ProtocolError for anything malformed, for keys crafted to collide, and once `deadline`
    (time.monotonic()) passes. `resolve(name)` turns ["r", name] into a function."""
    return _Decoder(resolve, deadline).value(tagged, 0)


def holds_set(tagged):
    """True when a tagged value holds a set or frozenset anywhere."""
    stack = [tagged]
    while stack:
        node = stack.pop()
        if type(node) is not list or not node:
            continue
        if type(node[0]) is str:
            # A tagged value: [tag, payload...].
            if node[0] in ("S", "F"):
                return True
            stack.extend(node[1:])
        else:
            # A payload: a list of values or of [key, value] pairs.
            stack.extend(node)
    return False
