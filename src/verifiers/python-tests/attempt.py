"""One answer against one task's tests, in the judge (judge.py): the tests' namespace, the calls
into the candidate's process, and each test statement's record.

The tests run here, never in a process that runs candidate code. A name is bound in their
namespace only when the tests use it and the candidate defined it, and never a dunder name or a
builtin's: the candidate's functions and classes become stubs whose calls cross the attempt's
call socket (arguments and results as plain values, codec.py), its exception classes local
classes for `except`, its plain values their decoded copies, and a standard module it imported
under its own name (`import math`) the judge's own, unpatched one. Nothing the candidate names is
ever a live class or function of the judge that it could make run here.

The tests' own evaluation is bounded like the candidate (EvaluationBounds): the attempt's
deadline, its memory limit, and a CPU limit that ends the judge itself when a loop in C code
never returns to Python (Node then tells the candidate's failure from ours by a self-check).
"""

import ast
import builtins
import collections
import io
import json
import resource
import signal
import sys
import time

from channel import ChannelClosed, frame_bytes
from codec import NotPlain, ProtocolError, cut, decode, describe_exception, encode, holds_set

TESTS_FILE = "<tests>"
# Calls sent ahead at once (see Attempt.prefetch), and their encoded size: far below a socket
# buffer, so sending them never waits on a candidate that is busy writing a reply.
PREFETCH_CALLS = 64
PREFETCH_BYTES = 32 * 1024
# Modules the judge uses itself when the candidate imported them under their own name and the
# tests use them (`math.isclose`): pure standard-library modules only, so that nothing the
# candidate names can steer the judge, which runs outside the sandbox, to files or processes.
ALLOWED_MODULES = frozenset(
    "math cmath collections itertools functools operator heapq bisect string re statistics "
    "fractions decimal typing numbers datetime calendar json textwrap unicodedata copy array enum "
    "struct binascii base64 hashlib zlib difflib random".split()
)
# The judge's address space outside an evaluation (judge.py sets it): a frame crafted to explode
# when parsed ends as a MemoryError, not as a machine out of memory.
JUDGE_ADDRESS_SPACE = 4 * 1024 * 1024 * 1024
# The evaluation's wall clock fires this long after the channel's deadline, so that a wait for the
# candidate ends first, as its own timeout; the CPU limit leaves a C loop this much more.
DEADLINE_SLACK = 0.05
CPU_SLACK = 2.0
# A builtin function or type passed by the tests goes by this prefix and its name (see Attempt.ref).
BUILTIN_PREFIX = "builtins."
# An exception's message kept for the tests (`str(e)`); feedback text is cut to MAX_TEXT.
MAX_MESSAGE = 64 * 1024
# Modules whose state the official run (one process) shares between the tests and the answer:
# the tests' use of them is the candidate's process's (`random.seed(1)` in a test seeds the
# answer's draws). Their classes (`random.Random`) stay the judge's: an instance has its own state.
SHARED_MODULES = frozenset(["random"])
# A time limit run out after this many calls says so: each call crosses to the candidate's process,
# a cost the official single-process run does not pay.
MANY_CALLS = 2000
# What the candidate's process is started as, here and there: `python3 solution.py` officially.
ARGV = ["solution.py"]


class Boundary(BaseException):
    """A test stopped at the boundary between the processes: the candidate's side sent something
    the judge does not accept, ended, or ran out of time. BaseException, so a test's own
    `except Exception` cannot swallow it."""


class EvaluationOverrun(BaseException):
    """The tests' own evaluation (of what the candidate returned) ran past the attempt's deadline."""


class JudgeBug(Exception):
    """The judge contradicted itself: an infrastructure error, whatever the candidate did."""


def safe_repr(value):
    try:
        return cut(repr(value))
    except BaseException as exc:  # a deep value's repr may exhaust the stack
        return cut("<unrepresentable %s: %s>" % (type(value).__name__, type(exc).__name__))


def describe(exc):
    if type(exc) in (Boundary, EvaluationOverrun):
        return cut(str(exc))
    seqk = getattr(exc, "_seqk_text", None)
    return seqk if isinstance(seqk, str) else describe_exception(exc)


class Remote:
    """One of the candidate's functions (or classes), as the tests see it."""

    __slots__ = ("_attempt", "_name")

    def __init__(self, attempt, name):
        self._attempt = attempt
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._attempt.call(self._name, args, kwargs)

    def __repr__(self):
        return "<candidate function %s>" % self._name

    def __getattr__(self, attr):
        raise Boundary(
            "the tests read %s.%s, but the candidate's functions can only be called from the judge" % (self._name, attr)
        )


class SharedModule:
    """A module of SHARED_MODULES as the tests see it: its functions are the candidate's process's
    (calls crossing like the candidate's own), its classes and constants the judge's."""

    __slots__ = ("_attempt", "_name", "_module")

    def __init__(self, attempt, name, module):
        self._attempt = attempt
        self._name = name
        self._module = module

    def __getattr__(self, attr):
        value = getattr(self._module, attr)
        if attr.startswith("_") or isinstance(value, type) or not callable(value):
            return value
        attempt, qualified = self._attempt, "%s.%s" % (self._name, attr)

        def shared(*args, **kwargs):
            return attempt.call(qualified, args, kwargs)

        shared.__name__ = attr
        return shared

    def __repr__(self):
        return "<module %r, shared with the candidate>" % self._name


class Opaque:
    """A name the candidate bound to something that is neither a function nor a plain value."""

    __slots__ = ("_text",)

    def __init__(self, name, reason):
        self._text = (
            "the tests use %s, which the candidate bound to %s (only functions and plain values cross to the judge)"
            % (name, reason)
        )

    def __repr__(self):
        return "<candidate object>"

    def _refuse(self, *_args, **_kwargs):
        raise Boundary(self._text)

    __getattr__ = __call__ = __iter__ = __len__ = __bool__ = __getitem__ = __eq__ = _refuse
    __lt__ = __gt__ = __add__ = __contains__ = _refuse
    __hash__ = None


def loaded_names(tree):
    """Every name the tests mention: the only names the candidate is asked about."""
    return list(tree_names(tree)[0])


def bindable(name):
    """A name the candidate may bind for the tests: no dunder (`__builtins__`, `__import__`), no
    builtin's (the tests' `len`, `all`, `ValueError` stay Python's)."""
    return name.isidentifier() and not (name.startswith("__") and name.endswith("__")) and not hasattr(builtins, name)


def tree_names(tree):
    """(every name the tests mention, sorted; the names they bind; whether they import a module of
    SHARED_MODULES), from one walk of the tree, kept on it (a tree is parsed once per task and
    reused by its attempts: four walks an attempt cost the judge 0.26-0.38 ms at load 20)."""
    known = getattr(tree, "seqk_names", None)
    if known is not None:
        return known
    mentioned = set()
    bound = set()
    shared = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            mentioned.add(node.id)
            if isinstance(node.ctx, ast.Store):
                bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and not shared:
            shared = any(
                (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0] in SHARED_MODULES
                for alias in node.names
            )
    tree.seqk_names = (tuple(sorted(mentioned)), frozenset(bound), shared)
    return tree.seqk_names


def selected(tree, only):
    """The tests' statements at the indices `only` (ascending, within the tree) as a tree of
    their own, each keeping its index in the whole (`seqk_indices`): what the run of the visible
    statements of a split runs, and the only statements its candidate process hears of."""
    indices = sorted({i for i in only if type(i) is int and 0 <= i < len(tree.body)})
    part = ast.Module(body=[tree.body[i] for i in indices], type_ignores=[])
    part.seqk_indices = indices
    return part


# A held-out argument shorter than this (after `quoted`) is no quote of it: `2` or `'a'` occurs in
# any text. A held-out call's whole text (`f(2)`) is one at any length.
MIN_QUOTE = 6
WITHHELD = "[not shown: this text quotes a held-out test]"


def quoted(text):
    """Text as a quote of it is compared: without whitespace, one kind of quote mark."""
    return "".join(text.split()).replace('"', "'")


def held_out_quotes(tests_source, tree, kept):
    """What a text that quotes a held-out statement holds: each call's text in the statements not
    `kept`, and its arguments as written and as Python prints their values (`1e3`: `1000.0`),
    each as `quoted`; less any that a kept statement's own text holds (no secret there)."""
    kept = set(kept)
    shown = quoted("\n".join(segment(tests_source, n) for i, n in enumerate(tree.body) if i in kept))
    quotes = set()
    for index, statement in enumerate(tree.body):
        if index in kept:
            continue
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            quotes.add(quoted(segment(tests_source, node)))
            arguments = list(node.args) + [k.value for k in node.keywords]
            texts = [quoted(segment(tests_source, a)) for a in arguments]
            values = []
            for argument in arguments:
                try:
                    values.append(quoted(repr(ast.literal_eval(argument))))
                except Exception:  # not a literal: its text is what there is
                    values.append(None)
            for group in (texts, values):
                parts = [t for t in group if t]
                quotes.update(t for t in parts if len(t) >= MIN_QUOTE)
                if len(parts) == len(group) and len(",".join(parts)) >= MIN_QUOTE:
                    quotes.add(",".join(parts))
    return sorted(q for q in quotes if q and q not in shown)


def withhold_quotes(result, quotes):
    """Replaces every text of `result` the candidate's side wrote (an `actual`, an `error`, an
    `expected` computed by a call, the load error) that quotes a held-out statement."""
    if not quotes:
        return result

    def clean(holder, key):
        text = holder.get(key)
        if isinstance(text, str):
            flat = quoted(text)
            if any(q in flat for q in quotes):
                holder[key] = WITHHELD

    clean(result, "error")
    for record in result.get("tests", []):
        for key in ("actual", "error", "expected"):
            clean(record, key)
    return result


def segment(tests_source, node):
    text = None
    try:
        text = ast.get_source_segment(tests_source, node)
    except Exception:  # a malformed position
        text = None
    if text is None and hasattr(ast, "unparse"):
        try:
            text = ast.unparse(node)
        except Exception:  # an unusual node
            text = None
    return cut(text if text is not None else "<statement at line %s>" % getattr(node, "lineno", "?"))


def compiled(node, mode):
    """The node's code, compiled once and kept on the node (parsed trees are reused per task)."""
    code = getattr(node, "_seqk_code", None)
    if code is None:
        tree = ast.Expression(body=node) if mode == "eval" else ast.Module(body=[node], type_ignores=[])
        ast.fix_missing_locations(tree)
        code = compile(tree, TESTS_FILE, mode, dont_inherit=True)
        node._seqk_code = code
    return code


def is_equality_assert(node):
    return (
        isinstance(node, ast.Assert)
        and isinstance(node.test, ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Eq)
        and len(node.test.comparators) == 1
    )


def allowed_module(name):
    if not isinstance(name, str) or name not in ALLOWED_MODULES:
        return None
    try:
        __import__(name)
        return sys.modules[name]
    except Exception:  # absent from this interpreter
        return None


def write_back(original, state):
    """Applies a mutable argument's state after the call to the judge's own object."""
    t = type(original)
    if t is not type(state):
        return
    if t is list or t is bytearray:
        original[:] = state
    elif t is dict or t is set:
        original.clear()
        original.update(state)


def _address_space():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * resource.getpagesize()


class EvaluationBounds:
    """The tests' evaluation bounded like the candidate: a wall clock at the attempt's deadline
    (ITIMER_REAL: EvaluationOverrun, raised only inside the tests' own code, never in the judge's
    bookkeeping), an address space of the judge's current size plus the attempt's memory limit,
    and a CPU limit (ITIMER_PROF, whose default action ends the process) for a loop in C code
    that never returns to Python."""

    def __init__(self, deadline, memory_bytes):
        self.deadline = deadline
        self.memory_bytes = memory_bytes
        self.in_tests = False
        self.overdue = False
        self.previous = None

    def _alarm(self, _signum, _frame):
        self.overdue = True
        if self.in_tests:
            self.in_tests = False
            raise EvaluationOverrun()

    def __enter__(self):
        remaining = max(0.001, self.deadline - time.monotonic())
        self.previous = signal.signal(signal.SIGALRM, self._alarm)
        signal.setitimer(signal.ITIMER_REAL, remaining + DEADLINE_SLACK)
        signal.setitimer(signal.ITIMER_PROF, remaining + CPU_SLACK)
        if self.memory_bytes:
            try:
                resource.setrlimit(
                    resource.RLIMIT_AS,
                    (_address_space() + self.memory_bytes, resource.getrlimit(resource.RLIMIT_AS)[1]),
                )
            except (OSError, ValueError):
                pass
        return self

    def __exit__(self, *_exc):
        self.in_tests = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, self.previous or signal.SIG_DFL)
        if self.memory_bytes:
            try:
                resource.setrlimit(resource.RLIMIT_AS, (JUDGE_ADDRESS_SPACE, resource.getrlimit(resource.RLIMIT_AS)[1]))
            except (OSError, ValueError):
                pass
        return False

    def run(self, code, namespace, mode):
        """Evaluates one compiled test node inside the bounds."""
        if self.overdue:
            raise EvaluationOverrun()
        self.in_tests = True
        try:
            if mode == "eval":
                return eval(code, namespace)  # noqa: S307 - the task's own tests
            exec(code, namespace)  # noqa: S102 - the task's own tests
            return None
        finally:
            self.in_tests = False


class Attempt:
    """One answer against one task's tests, over the attempt's call channel."""

    def __init__(self, request, tree, tests_source, timeout_ms):
        self.request = request
        self.tree = tree
        self.tests_source = tests_source
        self.timeout_ms = timeout_ms
        self.channel = None
        self.bounds = None
        self.call_id = 0
        self.closed = None  # why no further call can be made
        self.timed_out_in = None
        self.ended_in = None
        self.exceptions = {}
        self.pending = collections.deque()
        self.bug = None
        mentioned, assigned, shared = tree_names(tree)
        self.used = frozenset(mentioned)
        # The judge's own stdio: a test that replaces one (redirect_stdout, sys.stdin = StringIO)
        # has the candidate's process do the same during each call.
        self.stdio = (sys.stdout, sys.stderr, sys.stdin)
        # Names the tests assign at the top level, which the answer may read as its globals (one
        # module officially): sent with each call when the candidate's code reads them.
        self.assigned = assigned
        self.shared_globals = frozenset()
        self.sent_globals = {}
        self.test_namespace = None
        self.shared_modules = {}
        self.imports_shared = shared

    # -- calls ------------------------------------------------------------------------------

    def ref(self, value):
        """How a function the tests pass to the candidate crosses: one of its own by its name, a
        builtin (`len`, `sorted`, `str`) as `builtins.<name>`, which the candidate's process
        resolves in its own builtins (whatever it does there is its own computation)."""
        if type(value) is Remote and value._attempt is self:
            return value._name
        name = getattr(value, "__name__", None)
        if isinstance(name, str) and callable(value) and builtins.__dict__.get(name) is value:
            return BUILTIN_PREFIX + name
        return None

    def call(self, name, args, kwargs):
        """A stub's call, from the tests' code: our own bookkeeping runs outside the bounds'
        evaluation clock (it has the channel's deadline)."""
        bounds = self.bounds
        inside = bounds is not None and bounds.in_tests
        if inside:
            bounds.in_tests = False
        try:
            return self._call(name, args, kwargs)
        finally:
            if inside:
                bounds.in_tests = True
                if bounds.overdue:
                    bounds.in_tests = False
                    raise EvaluationOverrun()

    def _call(self, name, args, kwargs):
        shown = cut(
            "%s(%s)"
            % (name, ", ".join([safe_repr(a) for a in args] + ["%s=%s" % (k, safe_repr(v)) for k, v in kwargs.items()]))
        )
        if self.closed is not None:
            raise Boundary(self.closed)
        try:
            encoded_args = encode(list(args), self.ref, drain=True)
            encoded_kwargs = encode(dict(kwargs), self.ref, drain=True)
        except NotPlain as exc:
            raise Boundary("the tests passed %s to %s, which cannot cross to the candidate's process" % (exc, name))
        extra = self._context()
        try:
            reply, call_id = self._exchange(name, encoded_args, encoded_kwargs, extra)
        except TimeoutError:
            self.timed_out_in = shown + self.many_calls_note()
            self.closed = "not run: the attempt had timed out"
            raise Boundary("timed out after %d ms in the call %s" % (self.timeout_ms, self.timed_out_in))
        except ChannelClosed as exc:
            self.ended_in = shown
            self.closed = "not run: the candidate's process had %s" % (
                "ended" if str(exc) == "ended" else "broken the protocol"
            )
            raise Boundary("the candidate's process %s during the call %s" % (exc, shown))
        return self._reply(reply, call_id, args, shown)

    def many_calls_note(self):
        """What a timeout after many calls adds: why it may be ours, and the fix."""
        if self.call_id <= MANY_CALLS:
            return ""
        return (
            " (after %d calls to the answer: each crosses to the candidate's process, a cost the official "
            "single-process run does not pay; tests that call the answer this often need a larger timeoutMs)"
            % self.call_id
        )

    def redirected(self):
        return (sys.stdout, sys.stderr, sys.stdin) != self.stdio

    def _context(self):
        """What a call carries besides its arguments, as the official run (one process) would have
        it: the tests' redirected stdout or stderr (captured there, written here), the rest of a
        stdin they set, and the current values of the globals the answer reads that they assigned."""
        extra = {}
        if self.shared_globals:
            changed = {}
            for name in self.shared_globals:
                value = self.test_namespace.get(name, self) if self.test_namespace is not None else self
                if value is self or isinstance(value, (Remote, Opaque, SharedModule, type(sys))):
                    continue
                try:
                    encoded = encode(value, self.ref)
                except NotPlain:
                    continue
                if self.sent_globals.get(name) != encoded:
                    changed[name] = self.sent_globals[name] = encoded
            if changed:
                extra["globals"] = changed
        if sys.stdout is not self.stdio[0]:
            extra["out"] = 1
        if sys.stderr is not self.stdio[1]:
            extra["err"] = 1
        if sys.stdin is not self.stdio[2]:
            stdin = sys.stdin
            if type(stdin) is not io.StringIO:
                raise Boundary(
                    "the tests set sys.stdin to %s; only an io.StringIO crosses to the candidate's process"
                    % type(stdin).__name__
                )
            extra["in"] = stdin.getvalue()[stdin.tell() :]
        return extra

    def _exchange(self, name, encoded_args, encoded_kwargs, extra=None):
        if self.pending:
            # Sent ahead with its neighbours (see prefetch): only its reply is awaited.
            expected_name, expected_args, call_id = self.pending.popleft()
            if expected_name != name or expected_args != encoded_args or encoded_kwargs != ["d", []]:
                # Raised after the tests (run_tests): a test's `except` must not swallow it.
                self.bug = "a call sent ahead (%s) does not match the call the tests made (%s)" % (expected_name, name)
                self.closed = "not run: the judge contradicted itself"
                raise Boundary(self.bug)
        else:
            self.call_id += 1
            call_id = self.call_id
            frame = {"t": "call", "id": call_id, "name": name, "args": encoded_args, "kwargs": encoded_kwargs}
            if extra:
                frame.update(extra)
            self.channel.send(frame_bytes(frame))
        return self.channel.receive(), call_id

    def _reply(self, reply, call_id, args, shown):
        kind = reply.get("t")
        if reply.get("id") != call_id or kind not in ("return", "raise", "notplain", "coroutine"):
            self.closed = "not run: the candidate's process had broken the protocol"
            raise Boundary("the candidate's process sent a reply that does not match the call %s" % shown)
        self._take_output(reply)
        if kind == "coroutine":
            handle = reply.get("handle")
            if type(handle) is not int:
                raise Boundary("%s returned a coroutine the judge cannot name" % shown)
            return self._coroutine(handle)
        if kind == "notplain":
            reason = reply.get("reason")
            raise Boundary(
                "%s %s"
                % (shown, cut(reason if isinstance(reason, str) else "sent something that is not a plain value"))
            )
        if kind == "raise":
            raise self.exception(reply.get("exception"), shown)
        try:
            value = decode(reply.get("value"), None, self.channel.deadline)
            after = reply.get("args")
            if after is not None:
                if type(after) is not list or len(after) != len(args):
                    raise ProtocolError("arguments after the call that do not match the call")
                for original, state in zip(args, after):
                    if state is not None:
                        write_back(original, decode(state, None, self.channel.deadline))
        except ProtocolError as exc:
            self.closed = "not run: the candidate's process had broken the protocol"
            raise Boundary("%s returned %s" % (shown, exc))
        return value

    def _take_output(self, reply):
        """What the call printed while the tests had redirected a stream, into their stream; how much of
        the stdin they set it read, off that stdin."""
        for key, stream in (("out", sys.stdout), ("err", sys.stderr)):
            text = reply.get(key)
            if isinstance(text, str) and text and stream is not self.stdio[0 if key == "out" else 1]:
                stream.write(text)
        read = reply.get("read")
        stdin = sys.stdin
        if type(read) is int and read > 0 and type(stdin) is io.StringIO and stdin is not self.stdio[2]:
            stdin.seek(min(len(stdin.getvalue()), stdin.tell() + read))

    def _coroutine(self, handle):
        """A coroutine the answer returned, as a coroutine of the judge's: awaited (or run by the
        tests' `asyncio.run`), it has the candidate's process run the candidate's one to its end."""
        attempt = self

        async def awaited():
            return attempt.call("await:%d" % handle, (), {})

        return awaited()

    def exception(self, record, shown):
        """The candidate's exception, rebuilt with the judge's classes and its arguments as plain
        values, so that `str(e)` and `e.args` read as they did in the candidate's process."""
        if type(record) is not dict:
            return Boundary("%s raised something the judge cannot read" % shown)
        cls = self._exception_class(record)
        message = record.get("message")
        message = message[:MAX_MESSAGE] if isinstance(message, str) else ""
        name = record.get("class")
        exc = _rebuilt(
            cls,
            self._exception_args(record),
            message,
            name if isinstance(name, str) and name.isidentifier() else cls.__name__,
        )
        text = record.get("text")
        line = record.get("line")
        described = cut(text if isinstance(text, str) else "%s: %s" % (cls.__name__, message))
        if type(line) is int and "(candidate line" not in described:
            described = cut("%s (candidate line %d)" % (described, line))
        exc._seqk_text = described
        return exc

    def _exception_class(self, record):
        name = record.get("builtin")
        cls = getattr(builtins, name, None) if isinstance(name, str) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = Exception
        named = record.get("named")
        for name in named if isinstance(named, list) else []:
            local = self.exceptions.get(name) if isinstance(name, str) else None
            if local is not None:
                return local
        return cls

    def _exception_args(self, record):
        if record.get("args") is None:
            return None
        try:
            args = decode(record.get("args"), None, self.channel.deadline)
        except ProtocolError:
            return None
        return args if type(args) is tuple else None

    # -- the namespace ------------------------------------------------------------------------

    def namespace(self, names, reads=()):
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        if self.imports_shared:
            # `import random` in the tests: the module shared with the candidate's process.
            namespace["__builtins__"] = dict(builtins.__dict__, __import__=self._import)
        for name, descriptor in names.items():
            if isinstance(name, str) and name in self.used and bindable(name) and type(descriptor) is dict:
                namespace[name] = self._bind(name, descriptor)
        if type(reads) is list:
            self.shared_globals = frozenset(n for n in reads if isinstance(n, str) and n in self.assigned)
        self.test_namespace = namespace
        return namespace

    def shared(self, name):
        module = self.shared_modules.get(name)
        if module is None:
            __import__(name)
            module = self.shared_modules[name] = SharedModule(self, name, sys.modules[name])
        return module

    def _import(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in SHARED_MODULES:
            return self.shared(name)
        return builtins.__import__(name, globals, locals, fromlist, level)

    def _bind(self, name, descriptor):
        kind = descriptor.get("kind")
        if kind == "callable":
            return Remote(self, name)
        if kind == "exception":
            base = getattr(builtins, str(descriptor.get("base")), None)
            if not (isinstance(base, type) and issubclass(base, BaseException)):
                base = Exception
            local = type(name, (base,), {"__module__": "__main__"})
            self.exceptions[name] = local
            return local
        if kind == "module":
            module = allowed_module(descriptor.get("module")) if descriptor.get("module") == name else None
            if module is not None:
                return self.shared(name) if name in SHARED_MODULES else module
            return Opaque(
                name, "the module %s, which the judge does not load" % cut(str(descriptor.get("module")))[:200]
            )
        if kind == "value":
            try:
                return decode(descriptor.get("value"), None, self.channel.deadline)
            except ProtocolError as exc:
                return Opaque(name, "a value the judge cannot read (%s)" % exc)
        reason = descriptor.get("reason")
        return Opaque(name, cut(reason) if isinstance(reason, str) else "an object")

    # -- calls sent ahead ---------------------------------------------------------------------

    def literal_call(self, node, namespace):
        """(name, encoded arguments) when `node` is `assert NAME(LITERALS...) == LITERAL` and NAME
        is one of the candidate's functions: evaluating it makes exactly that one call."""
        if not is_equality_assert(node):
            return None
        call = node.test.left
        if (
            not isinstance(call, ast.Call)
            or not isinstance(call.func, ast.Name)
            or call.keywords
            or type(namespace.get(call.func.id)) is not Remote
        ):
            return None
        try:
            ast.literal_eval(node.test.comparators[0])
            # A message is evaluated after a failure: it must not make calls of its own.
            if node.msg is not None:
                ast.literal_eval(node.msg)
            encoded = encode([ast.literal_eval(arg) for arg in call.args])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, NotPlain):
            return None
        # A set's encoding follows its iteration order, which differs between a set built by
        # literal_eval and the constant the compiled test builds: never sent ahead.
        return None if holds_set(encoded) else (call.func.id, encoded)

    def prefetch(self, body, start, namespace):
        """Sends the calls of the run of literal equality asserts from `start` in one write, so the
        candidate answers them back to back instead of one round trip each (~0.18 ms a call). They
        are made in the tests' order; each test still awaits its own reply, and a timeout names
        the first call not answered. Bounded so that neither side's socket buffer can fill."""
        batch = []
        size = 0
        for node in body[start : start + PREFETCH_CALLS]:
            literal = self.literal_call(node, namespace)
            if literal is None:
                break
            size += len(json.dumps(literal[1]))
            if size > PREFETCH_BYTES:
                break
            batch.append(literal)
        if len(batch) < 2:
            return
        frames = []
        for name, encoded_args in batch:
            self.call_id += 1
            frames.append(
                frame_bytes({"t": "call", "id": self.call_id, "name": name, "args": encoded_args, "kwargs": ["d", []]})
            )
            self.pending.append((name, encoded_args, self.call_id))
        try:
            self.channel.send(b"".join(frames))
        except (ChannelClosed, TimeoutError):
            pass  # each call meets the same end, in order, when it awaits its reply

    # -- the tests ------------------------------------------------------------------------------

    def run_tests(self, namespace):
        """Every top-level test statement's record, in order, within the evaluation's bounds."""
        results = []
        body = self.tree.body
        self.bounds = EvaluationBounds(self.channel.deadline, int(self.request.get("memoryBytes") or 0))
        with self.bounds:
            indices = getattr(self.tree, "seqk_indices", None) or range(len(body))
            for position, (index, node) in enumerate(zip(indices, body)):
                # Not while a call carries more than its arguments (a redirected stream, shared globals).
                if not self.pending and self.closed is None and not self.shared_globals and not self.redirected():
                    self.prefetch(body, position, namespace)
                record = {"index": index, "source": segment(self.tests_source, node), "pass": False}
                if self.timed_out_in is not None:
                    # Out of time: nothing more is evaluated, here or in the candidate's process.
                    record["error"] = "not run: the attempt had timed out"
                    results.append(record)
                    continue
                try:
                    if is_equality_assert(node):
                        self._equality(node, namespace, record)
                    else:
                        self._statement(node, namespace, record)
                except EvaluationOverrun:
                    self._overrun(node, record)
                results.append(record)
        if self.bug is not None:
            raise JudgeBug(self.bug)
        return results

    def _overrun(self, node, record):
        where = "the evaluation of %s" % segment(self.tests_source, node)
        where += self.many_calls_note()
        record["error"] = "timed out after %d ms in %s" % (self.timeout_ms, where)
        self.timed_out_in = where
        self.closed = self.closed or "not run: the attempt had timed out"

    def _evaluate(self, node, namespace):
        return self.bounds.run(compiled(node, "eval"), namespace, "eval")

    def _failure_text(self, exc):
        if isinstance(exc, MemoryError) and self.bounds.memory_bytes:
            return "MemoryError: the tests' evaluation exceeded the memory limit of %d MiB" % (
                self.bounds.memory_bytes // (1024 * 1024)
            )
        return describe(exc)

    def _equality(self, node, namespace, record):
        """`assert LEFT == RIGHT`: both sides evaluated once, in Python's order, so the verdict is
        the plain assert's; call, expected and actual are the paper's "Failed test details"."""
        left, right = node.test.left, node.test.comparators[0]
        record["call"] = segment(self.tests_source, left)
        try:
            actual = self._evaluate(left, namespace)
        except EvaluationOverrun:
            raise
        except Boundary as exc:
            record["actual"] = record["error"] = describe(exc)
            record["expected"] = segment(self.tests_source, right)
            return
        except BaseException as exc:  # anything the call raised is the candidate's
            record["actual"] = record["error"] = self._failure_text(exc)
            try:
                record["expected"] = safe_repr(self._evaluate(right, namespace))
            except EvaluationOverrun:
                raise
            except BaseException:  # the expected value's own failure: shown as written
                record["expected"] = segment(self.tests_source, right)
            return
        record["actual"] = safe_repr(actual)
        try:
            expected = self._evaluate(right, namespace)
        except EvaluationOverrun:
            raise
        except BaseException as exc:  # a call on the right, or the task's own expression
            record["expected"] = segment(self.tests_source, right)
            record["error"] = "could not evaluate the expected value: " + self._failure_text(exc)
            return
        record["expected"] = safe_repr(expected)
        self._compare(node, namespace, record, actual, expected)

    def _compare(self, node, namespace, record, actual, expected):
        try:
            self.bounds.in_tests = True
            equal = bool(actual == expected)
        except EvaluationOverrun:
            raise
        except BaseException as exc:  # judge-side values; a deep one may recurse
            record["error"] = (
                describe(exc) if type(exc) is Boundary else "comparing the values raised " + self._failure_text(exc)
            )
            return
        finally:
            self.bounds.in_tests = False
        if equal:
            record["pass"] = True
            return
        message = "AssertionError"
        if node.msg is not None:
            try:
                message += ": " + str(self.bounds.run(compiled(node.msg, "eval"), namespace, "eval"))
            except EvaluationOverrun:
                raise
            except BaseException:  # a message that fails adds nothing
                pass
        record["error"] = cut(message)

    def _statement(self, node, namespace, record):
        try:
            self.bounds.run(compiled(node, "exec"), namespace, "exec")
        except EvaluationOverrun:
            raise
        except BaseException as exc:  # the statement's failure, whatever it raised
            record["error"] = self._failure_text(exc)
            return
        record["pass"] = True


def _rebuilt(cls, args, message, name):
    """`cls(*args)` (or `cls(message)`), whose `str()` is the candidate's message and whose class
    has the candidate's class's name, where its class is not the one rebuilt (the candidate's own
    subclass of `cls`, which may word its message its own way)."""
    exc = None
    for arguments in ([] if args is None else [args]) + [(message,) if message else ()]:
        try:
            exc = cls(*arguments)
            break
        except BaseException:  # e.g. UnicodeDecodeError needs five arguments
            continue
    if exc is None:
        exc = Exception(message)
    try:
        same = str(exc) == message
    except BaseException:  # a class whose __str__ fails on these arguments
        same = False
    if same and name == type(exc).__name__:
        return exc
    told = type(name, (type(exc),), {"__str__": lambda _self: message, "__module__": type(exc).__module__})
    try:
        return told(*exc.args)
    except BaseException:  # a constructor that refuses its own args
        return exc
