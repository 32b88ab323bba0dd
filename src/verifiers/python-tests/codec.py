"""Plain values and frames shared by the judge (judge.py) and the candidate's worker (worker.py).

Node passes this file's source to both interpreters, followed by theirs (`-c codec + judge` and
`-c codec + worker`), so both sides speak exactly the same format.

A *frame* is a 4-byte big-endian length and an ASCII JSON body. A *plain value* is one of None,
bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset, and the
standard library's collections.Counter, OrderedDict, defaultdict (with a built-in factory) and
deque, nested at most MAX_DEPTH deep with at most MAX_NODES parts. It travels as tagged JSON:

    ["n"]  ["b", 0|1]  ["i", hex]  ["f", float.hex]  ["c", re.hex, im.hex]  ["s", text]
    ["y", base64]  ["Y", base64]  ["l", [...]]  ["t", [...]]  ["d", [[k, v], ...]]
    ["S", [...]]  ["F", [...]]  ["C", [[k, v], ...]]  ["O", [[k, v], ...]]
    ["D", factory, [[k, v], ...]]  ["Q", maxlen | null, [...]]  ["r", name]

Why tagged and by exact type: the judge rebuilds every value from these tags with its own types,
so nothing the candidate defined (an `__eq__` that always says yes, a `str` subclass, a lying
`__hash__`) ever reaches the side that compares. `["r", name]` is a reference to one of the
candidate's functions passed as an argument (only the judge sends it). Floats go as `float.hex`
(exact, nan and -0.0 too) and ints as hex (exempt from Python's int/str digit limit).
"""

import base64
import collections
import json
import os
import struct
import time
import traceback

MAX_DEPTH = 100
MAX_NODES = 1000000
# Frames between our own processes (the judge and the zygote) stay below this.
MAX_FRAME_BYTES = 32 * 1024 * 1024
# A frame from the candidate's process larger than this is a protocol violation, never read whole:
# JSON parsing can take some 30 bytes of memory per byte of input (`[{},{},...]`).
MAX_REPLY_BYTES = 8 * 1024 * 1024
# More keys of one set or dict sharing one hash than this is a crafted value: inserting n keys
# that all collide costs n^2 comparisons (45,000 such ints took the judge 5 s).
MAX_SAME_HASH = 32
# defaultdict factories the judge can rebuild (anything else is not a plain value).
DEFAULT_FACTORIES = {"int": int, "float": float, "complex": complex, "str": str, "bytes": bytes, "bool": bool, "list": list, "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset}


# Every repr and error text is cut to this many characters, so an enormous value (a list of a
# million items, a 10 MB string) cannot blow up a frame or the feedback prompt.
MAX_TEXT = 500


def cut(text):
    """Truncates to MAX_TEXT characters, saying how much was cut."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + "... [%d chars total]" % len(text)


def describe_exception(exc):
    """`Type: message` on one logical line (what the feedback shows); never raises."""
    try:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except BaseException:  # noqa: BLE001 - a candidate's exception may have a broken __str__
        text = type(exc).__name__
    # format_exception_only renders SyntaxError on several lines (text and caret): keep it compact.
    if isinstance(exc, SyntaxError):
        line = (exc.text or "").strip()
        where = (exc.filename or "").strip("<>")
        text = "%s: %s (%sline %s%s)" % (type(exc).__name__, exc.msg, where + " " if where else "", exc.lineno, ": " + line if line else "")
    return cut(text)


class NotPlain(Exception):
    """A value that cannot cross between the processes, with the reason in words."""


class ProtocolError(Exception):
    """A frame or value that does not follow the protocol (from the candidate's side: its fault)."""


def _type_name(value):
    try:
        return type(value).__qualname__
    except BaseException:  # noqa: BLE001 - a metaclass may raise anything
        return "?"


def encode(value, ref=None):
    """The tagged form of a plain value; raises NotPlain naming the first part that is not one.
    `ref(value)` may turn a value (a function stub on the judge's side) into a name."""
    state = {"nodes": 0}

    def enc(v, depth):
        state["nodes"] += 1
        if state["nodes"] > MAX_NODES:
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
        if t is complex:
            return ["c", float.hex(v.real), float.hex(v.imag)]
        if t is str:
            return ["s", v]
        if t is bytes:
            return ["y", base64.b64encode(v).decode("ascii")]
        if t is bytearray:
            return ["Y", base64.b64encode(bytes(v)).decode("ascii")]
        if t is list:
            return ["l", [enc(x, depth + 1) for x in list.__iter__(v)]]
        if t is tuple:
            return ["t", [enc(x, depth + 1) for x in tuple.__iter__(v)]]
        if t is set:
            return ["S", [enc(x, depth + 1) for x in set.__iter__(v)]]
        if t is frozenset:
            return ["F", [enc(x, depth + 1) for x in frozenset.__iter__(v)]]
        if t is dict:
            return ["d", [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in dict.items(v)]]
        if t is collections.Counter:
            return ["C", [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in dict.items(v)]]
        if t is collections.OrderedDict:
            return ["O", [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in collections.OrderedDict.items(v)]]
        if t is collections.defaultdict:
            factory = v.default_factory
            name = None if factory is None else next((n for n, f in DEFAULT_FACTORIES.items() if f is factory), False)
            if name is False:
                raise NotPlain("a defaultdict whose default factory is %s (only built-in types can cross)" % _type_name(factory))
            return ["D", name, [[enc(k, depth + 1), enc(x, depth + 1)] for k, x in dict.items(v)]]
        if t is collections.deque:
            return ["Q", v.maxlen, [enc(x, depth + 1) for x in collections.deque.__iter__(v)]]
        if ref is not None:
            name = ref(v)
            if name is not None:
                return ["r", name]
        raise NotPlain("an object of type %s, not a plain value" % _type_name(v))

    return enc(value, 0)


def decode(tagged, resolve=None, deadline=None):
    """Rebuilds a plain value from its tagged form with this process's own types. Raises
    ProtocolError for anything malformed, for keys crafted to collide, and once `deadline`
    (time.monotonic()) passes. `resolve(name)` turns ["r", name] into a function."""
    state = {"nodes": 0}

    def items(payload):
        if type(payload) is not list:
            raise ProtocolError("expected a list of parts")
        return payload

    def distinct_hashes(keys):
        """The keys, once no more than MAX_SAME_HASH of them share a hash (counted in O(n):
        the tally's own keys are distinct hash values)."""
        tally = {}
        for key in keys:
            h = hash(key)
            count = tally.get(h, 0) + 1
            if count > MAX_SAME_HASH:
                raise ProtocolError("a set or dict whose keys were crafted to share one hash")
            tally[h] = count
        return keys

    def pairs(payload, depth):
        out = []
        for pair in items(payload):
            if type(pair) is not list or len(pair) != 2:
                raise ProtocolError("expected [key, value] pairs")
            out.append((dec(pair[0], depth + 1), dec(pair[1], depth + 1)))
        distinct_hashes([k for k, _ in out])
        return out

    def fromhex(text):
        if type(text) is not str or len(text) > 64:
            raise ProtocolError("a malformed float")
        return float.fromhex(text)

    def dec(node, depth):
        state["nodes"] += 1
        if state["nodes"] > MAX_NODES or depth > MAX_DEPTH:
            raise ProtocolError("a value larger or deeper than the limits")
        if deadline is not None and state["nodes"] & 1023 == 0 and time.monotonic() > deadline:
            raise ProtocolError("a value that took longer than the time limit to read")
        if type(node) is not list or not node or type(node[0]) is not str:
            raise ProtocolError("a value without a tag")
        tag = node[0]
        n = len(node)
        try:
            if tag == "n" and n == 1:
                return None
            if tag == "b" and n == 2 and node[1] in (0, 1) and type(node[1]) is int:
                return node[1] == 1
            if tag == "i" and n == 2 and type(node[1]) is str and len(node[1]) <= 2 * 1024 * 1024:
                return int(node[1], 16)
            if tag == "f" and n == 2:
                return fromhex(node[1])
            if tag == "c" and n == 3:
                return complex(fromhex(node[1]), fromhex(node[2]))
            if tag == "s" and n == 2 and type(node[1]) is str:
                return str(node[1])
            if tag in ("y", "Y") and n == 2 and type(node[1]) is str:
                raw = base64.b64decode(node[1].encode("ascii"), validate=True)
                return raw if tag == "y" else bytearray(raw)
            if tag == "l" and n == 2:
                return [dec(x, depth + 1) for x in items(node[1])]
            if tag == "t" and n == 2:
                return tuple(dec(x, depth + 1) for x in items(node[1]))
            if tag == "S" and n == 2:
                return set(distinct_hashes([dec(x, depth + 1) for x in items(node[1])]))
            if tag == "F" and n == 2:
                return frozenset(distinct_hashes([dec(x, depth + 1) for x in items(node[1])]))
            if tag == "d" and n == 2:
                return dict(pairs(node[1], depth))
            if tag == "C" and n == 2:
                return collections.Counter(dict(pairs(node[1], depth)))
            if tag == "O" and n == 2:
                return collections.OrderedDict(pairs(node[1], depth))
            if tag == "D" and n == 3 and (node[1] is None or node[1] in DEFAULT_FACTORIES):
                return collections.defaultdict(None if node[1] is None else DEFAULT_FACTORIES[node[1]], pairs(node[2], depth))
            if tag == "Q" and n == 3 and (node[1] is None or (type(node[1]) is int and node[1] >= 0)):
                return collections.deque([dec(x, depth + 1) for x in items(node[2])], node[1])
            if tag == "r" and n == 2 and type(node[1]) is str and resolve is not None:
                return resolve(node[1])
        except ProtocolError:
            raise
        except (TypeError, ValueError, OverflowError, UnicodeError) as exc:
            # An unhashable set element or dict key, bad base64 or hex: malformed, whoever sent it.
            raise ProtocolError("a malformed %r value: %s" % (tag, exc))
        raise ProtocolError("an unknown or malformed value tag %r" % tag[:20])

    return dec(tagged, 0)


def frame_bytes(message):
    """A message as one frame (ASCII JSON, so lone surrogates survive)."""
    body = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return struct.pack(">I", len(body)) + body


def write_frame(fd, message):
    data = memoryview(frame_bytes(message))
    while data:
        data = data[os.write(fd, data) :]


def read_exact(fd, count):
    """`count` bytes from a blocking fd, or None at end of file."""
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, limit=MAX_FRAME_BYTES):
    """The next message from a blocking fd; None at end of file. Raises ProtocolError."""
    header = read_exact(fd, 4)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    if length > limit:
        raise ProtocolError("a frame of %d bytes (the limit is %d)" % (length, limit))
    body = read_exact(fd, length)
    if body is None:
        return None
    return parse_body(body)


def parse_body(body):
    # UTF-8: Node writes its frames with JSON.stringify (our own frames are ASCII, a subset).
    try:
        message = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeError, RecursionError, MemoryError) as exc:
        raise ProtocolError("a frame that is not JSON: %s" % (str(exc)[:200] or type(exc).__name__))
    if type(message) is not dict:
        raise ProtocolError("a frame that is not a JSON object")
    return message
