"""vitest-seqk judge (Python 3.8+, standard library only). Runs a task's hidden tests; never runs
candidate code.

Node starts this as a long-lived process, outside the sandbox, with Node's own user:

    python -S -B -X utf8 [-P] -c "<codec.py + this source>" judge '<config JSON>'

and speaks to it on stdin/stdout in frames (codec.py; the `type` key is Node's):

    judge -> node  {"type": "ready", "pid", "version", "cgroup"}                         once
    node -> judge  {"code", "setup", "tests", "timeoutMs", "maxOutputBytes", "memoryBytes",
                    "cpuSeconds", "fileSizeBytes", "openFiles", "processes"}     per attempt
    judge -> node  {"type": "started", "pid", "workdir"}
    judge -> node  {"type": "result", "result": {...}, "stdout", "stderr", "timedOut",
                    "exitCode", "exitSignal", "durationMs", "healthy"}

The judge starts the candidate's worker (worker.py, the config's `worker` command line: setpriv,
bubblewrap, the interpreter) and, per attempt, hands it a fresh socket pair. The candidate's code
runs there; the tests run here. Every name a test uses that the candidate defined becomes a stub
in the judge's namespace that sends the call (name and arguments as plain values) to the
candidate's process and rebuilds the result from plain values with the judge's own types (see
codec.py). Equality, `math.isclose` and every other check run here, on values the candidate
cannot have shaped beyond their plain contents: an always-equal object, a patched builtin, a
frame walk or the garbage collector cannot reach the tests or the expected values, which never
leave this process.

Result (the `result` of a result frame):

    {"outcome": "passed" | "failed" | "load-error" | "timeout" | "tests-error" | "harness-error",
     "statements": N, "tests": [{"index", "source", "pass", "call"?, "expected"?, "actual"?,
     "error"?}], "error"?, "timeoutIn"?, "memoryLimited"?}

`tests-error`: the task's tests do not parse or its setup raised (the task is broken).
`harness-error`: the judge or the worker failed on its own, as a self-check with a known-good
answer confirmed; anything the candidate provokes is the candidate's failure instead.
"""

import ast
import builtins
import collections
import errno
import json
import os
import re
import resource
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

TESTS_FILE = "<tests>"
# Requests from Node: code and tests (Node refuses code over its own, smaller limit first).
MAX_REQUEST_BYTES = 64 * 1024 * 1024
STARTUP_TIMEOUT = 30.0
# Calls sent ahead at once (see _Attempt._prefetch), and their encoded size: far below a socket
# buffer, so sending them never waits on a candidate that is busy writing a reply.
PREFETCH_CALLS = 64
PREFETCH_BYTES = 32 * 1024
# After "end", an honest candidate exits at once; one that keeps running is killed after this.
END_GRACE = 0.5
# How long the zygote may take to kill and clean up after an attempt (its own bound is 2 s).
KILL_WAIT = 3.0
# What the zygote's mkdtemp makes: the only paths the judge ever removes.
WORKDIR = re.compile(r"^/(?:[^/\0]+/)*seqk-py-[A-Za-z0-9_]+$")
# The zygote and the memory it keeps warm, on top of the attempt's own limit, in its cgroup.
ZYGOTE_ALLOWANCE = 64 * 1024 * 1024
# Where no memory cgroup can be made (not root), the processes an attempt may run inside
# bubblewrap: its tree then holds at most this many times the per-process address-space limit.
FALLBACK_PROCESSES = 16

# Modules the judge imports itself when the candidate's namespace holds them under a name the
# tests use (`math.isclose`, `Counter(...)`): pure standard-library modules only, so that nothing
# the candidate names can steer the judge, which runs outside the sandbox, to files or processes.
ALLOWED_MODULES = frozenset(
    "math cmath collections collections.abc itertools functools operator heapq bisect string re "
    "statistics fractions decimal typing numbers datetime calendar json textwrap unicodedata copy "
    "array enum struct binascii base64 hashlib zlib difflib random".split()
)

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
# Sandbox uids: this base plus the judge's pid (unique among live processes), far above any
# account's uid; needs no passwd entry.
SANDBOX_UID_BASE = 0x3F000000
# The judge's own address-space limit: a frame crafted to explode when parsed ends as a
# MemoryError (the candidate's failure), not as a machine out of memory. Reset for the zygote.
JUDGE_ADDRESS_SPACE = 4 * 1024 * 1024 * 1024


_cut = cut


def _safe_repr(value):
    try:
        return _cut(repr(value))
    except BaseException as exc:  # noqa: BLE001 - a deep value's repr may exhaust the stack
        return _cut("<unrepresentable %s: %s>" % (type(value).__name__, type(exc).__name__))


def _describe(exc):
    if type(exc) is Boundary:
        return _cut(str(exc))
    seqk = getattr(exc, "_seqk_text", None)
    if isinstance(seqk, str):
        return seqk
    return describe_exception(exc)


class Boundary(BaseException):
    """A test stopped at the boundary between the processes: the candidate's side sent something
    the judge does not accept, ended, or ran out of time. BaseException, so a test's own
    `except Exception` cannot swallow it."""


class JudgeBug(Exception):
    """The judge contradicted itself: an infrastructure error, whatever the candidate did."""


class ChannelClosed(Exception):
    """The candidate's process is gone or broke the protocol; `reason` says which."""


class _Remote:
    """One of the candidate's functions (or classes), as the tests see it."""

    __slots__ = ("_judge", "_name")

    def __init__(self, judge, name):
        self._judge = judge
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._judge.call(self._name, args, kwargs)

    def __repr__(self):
        return "<candidate function %s>" % self._name

    def __getattr__(self, attr):
        raise Boundary("the tests read %s.%s, but the candidate's functions can only be called from the judge" % (self._name, attr))


class _Opaque:
    """A name the candidate bound to something that is neither a function nor a plain value."""

    __slots__ = ("_text",)

    def __init__(self, name, reason):
        self._text = "the tests use %s, which the candidate bound to %s (only functions and plain values cross to the judge)" % (name, reason)

    def __repr__(self):
        return "<candidate object>"

    def _refuse(self, *_args, **_kwargs):
        raise Boundary(self._text)

    __getattr__ = __call__ = __iter__ = __len__ = __bool__ = __getitem__ = __eq__ = __lt__ = __gt__ = __add__ = __contains__ = _refuse
    __hash__ = None


def _loaded_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
    return sorted(names)


def _segment(tests_source, node):
    text = None
    try:
        text = ast.get_source_segment(tests_source, node)
    except Exception:  # noqa: BLE001
        text = None
    if text is None and hasattr(ast, "unparse"):
        try:
            text = ast.unparse(node)
        except Exception:  # noqa: BLE001
            text = None
    return _cut(text if text is not None else "<statement at line %s>" % getattr(node, "lineno", "?"))


def _compiled(node, mode):
    """The node's code, compiled once and kept on the node (parsed trees are reused per task)."""
    code = getattr(node, "_seqk_code", None)
    if code is None:
        if mode == "eval":
            tree = ast.Expression(body=node)
        else:
            tree = ast.Module(body=[node], type_ignores=[])
        ast.fix_missing_locations(tree)
        code = compile(tree, TESTS_FILE, mode, dont_inherit=True)
        node._seqk_code = code
    return code


def _eval_node(node, namespace):
    return eval(_compiled(node, "eval"), namespace)  # noqa: S307


def _is_equality_assert(node):
    return isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq) and len(node.test.comparators) == 1


class _Channel:
    """The judge's end of one attempt's call socket, and the zygote's control socket beside it:
    non-blocking, bounded, with the attempt's deadline."""

    def __init__(self, sock, control_fd, deadline):
        self.sock = sock
        self.fd = sock.fileno()
        self.control_fd = control_fd
        self.deadline = deadline
        self.buffer = bytearray()
        self.eof = False
        self.worker_result = None
        os.set_blocking(self.fd, False)

    def _read_control(self):
        message = _read_frame_blocking(self.control_fd, 5.0)
        if message is not None and message.get("t") == "result":
            self.worker_result = message
        return message

    def send(self, message):
        data = memoryview(frame_bytes(message))
        while data:
            try:
                data = data[os.write(self.fd, data) :]
                continue
            except BlockingIOError:
                pass
            except OSError as exc:
                raise ChannelClosed("ended" if exc.errno in (errno.EPIPE, errno.ECONNRESET) else "broke the channel (%s)" % exc)
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError()
            poller = select.poll()
            poller.register(self.fd, select.POLLOUT)
            poller.register(self.control_fd, select.POLLIN)
            for fd, _event in poller.poll(max(1, int(remaining * 1000))):
                if fd == self.control_fd:
                    self._read_control()
                    raise ChannelClosed("ended")

    def receive(self):
        """The next frame; raises TimeoutError at the deadline, ChannelClosed when the process ended."""
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack(">I", bytes(self.buffer[:4]))
                if length > MAX_REPLY_BYTES:
                    raise ChannelClosed("sent a frame of %d bytes, over the limit of %d" % (length, MAX_REPLY_BYTES))
                if len(self.buffer) >= 4 + length:
                    body = bytes(self.buffer[4 : 4 + length])
                    del self.buffer[: 4 + length]
                    try:
                        return parse_body(body)
                    except ProtocolError as exc:
                        raise ChannelClosed("sent %s" % exc)
            if self.eof:
                raise ChannelClosed("ended")
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError()
            poller = select.poll()
            poller.register(self.fd, select.POLLIN)
            if self.worker_result is None:
                poller.register(self.control_fd, select.POLLIN)
            for fd, _event in poller.poll(max(1, int(remaining * 1000))):
                if fd == self.fd:
                    self._read_available()
                elif fd == self.control_fd:
                    # The attempt is over (everything it started is dead): what it wrote before
                    # is still in the socket.
                    self._read_control()
                    self._read_available()
                    self.eof = True

    def _read_available(self):
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.eof = True
                return
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY_BYTES + 4:
                return


def _read_frame_blocking(fd, timeout):
    """One frame from a trusted peer (the zygote's control socket) within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    chunks = bytearray()
    need = 4
    length = None
    while True:
        while len(chunks) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready = select.select([fd], [], [], remaining)[0]
            if not ready:
                return None
            try:
                chunk = os.read(fd, need - len(chunks))
            except BlockingIOError:
                continue
            except OSError:
                return None
            if not chunk:
                return None
            chunks += chunk
        if length is None:
            (length,) = struct.unpack(">I", bytes(chunks[:4]))
            need = 4 + length
            continue
        try:
            return parse_body(bytes(chunks[4:]))
        except ProtocolError:
            return None


class _Attempt:
    """One answer against one task's tests."""

    def __init__(self, judge, request, tree, tests_source):
        self.judge = judge
        self.request = request
        self.tree = tree
        self.tests_source = tests_source
        self.channel = None
        self.call_id = 0
        self.closed = None  # why no further call can be made
        self.timed_out_in = None
        self.ended_in = None
        self.exceptions = {}
        self.pending = collections.deque()
        self.bug = None

    # -- calls ------------------------------------------------------------------------------

    def _ref(self, value):
        if type(value) is _Remote and value._judge is self:
            return value._name
        return None

    def call(self, name, args, kwargs):
        shown = "%s(%s)" % (name, ", ".join([_safe_repr(a) for a in args] + ["%s=%s" % (k, _safe_repr(v)) for k, v in kwargs.items()]))
        shown = _cut(shown)
        if self.closed is not None:
            raise Boundary(self.closed)
        try:
            encoded_args = encode(list(args), self._ref)
            encoded_kwargs = encode(dict(kwargs), self._ref)
        except NotPlain as exc:
            raise Boundary("the tests passed %s to %s, which cannot cross to the candidate's process" % (exc, name))
        try:
            if self.pending:
                # Sent ahead with its neighbours (see _prefetch): only its reply is awaited.
                expected_name, expected_args, call_id = self.pending.popleft()
                if expected_name != name or expected_args != encoded_args or encoded_kwargs != ["d", []]:
                    # Raised after the tests (run_tests): a test's `except` must not swallow it.
                    self.bug = "a call sent ahead (%s) does not match the call the tests made (%s)" % (expected_name, name)
                    self.closed = "not run: the judge contradicted itself"
                    raise Boundary(self.bug)
            else:
                self.call_id += 1
                call_id = self.call_id
                self.channel.send({"t": "call", "id": call_id, "name": name, "args": encoded_args, "kwargs": encoded_kwargs})
            reply = self.channel.receive()
        except TimeoutError:
            self.timed_out_in = shown
            self.closed = "not run: the attempt had timed out"
            raise Boundary("timed out after %d ms in the call %s" % (self.judge.timeout_ms(self.request), shown))
        except ChannelClosed as exc:
            self.ended_in = shown
            self.closed = "not run: the candidate's process had %s" % ("ended" if str(exc) == "ended" else "broken the protocol")
            raise Boundary("the candidate's process %s during the call %s" % (exc, shown))
        kind = reply.get("t")
        if reply.get("id") != call_id or kind not in ("return", "raise", "notplain"):
            self.closed = "not run: the candidate's process had broken the protocol"
            raise Boundary("the candidate's process sent a reply that does not match the call %s" % shown)
        if kind == "notplain":
            reason = reply.get("reason")
            raise Boundary("%s %s" % (shown, _cut(reason if isinstance(reason, str) else "sent something that is not a plain value")))
        if kind == "raise":
            raise self._exception(reply.get("exception"), shown)
        try:
            value = decode(reply.get("value"), None, self.channel.deadline)
            after = reply.get("args")
            if after is not None:
                if type(after) is not list or len(after) != len(args):
                    raise ProtocolError("arguments after the call that do not match the call")
                for original, state in zip(args, after):
                    if state is not None:
                        _write_back(original, decode(state, None, self.channel.deadline))
        except ProtocolError as exc:
            self.closed = "not run: the candidate's process had broken the protocol"
            raise Boundary("%s returned %s" % (shown, exc))
        return value

    def _exception(self, record, shown):
        """The candidate's exception, rebuilt with the judge's classes."""
        if type(record) is not dict:
            return Boundary("%s raised something the judge cannot read" % shown)
        builtin_name = record.get("builtin")
        cls = getattr(builtins, builtin_name, None) if isinstance(builtin_name, str) else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = Exception
        named = record.get("named")
        if isinstance(named, list):
            for name in named:
                local = self.exceptions.get(name) if isinstance(name, str) else None
                if local is not None:
                    cls = local
                    break
        message = record.get("message")
        message = message if isinstance(message, str) else ""
        try:
            exc = cls(message) if message else cls()
        except BaseException:  # noqa: BLE001 - e.g. UnicodeDecodeError needs five arguments
            exc = Exception(message)
        text = record.get("text")
        line = record.get("line")
        described = _cut(text if isinstance(text, str) else "%s: %s" % (cls.__name__, message))
        if type(line) is int and "(candidate line" not in described:
            described = _cut("%s (candidate line %d)" % (described, line))
        exc._seqk_text = described
        return exc

    # -- the attempt ------------------------------------------------------------------------

    def namespace(self, names):
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        for name, descriptor in names.items():
            if not isinstance(name, str) or type(descriptor) is not dict:
                continue
            if hasattr(builtins, name):
                # The tests' `len`, `set`, `ValueError` stay Python's: a candidate that defines its
                # own `set` or `ValueError` would otherwise choose what the tests compare with and
                # what their `except` clauses catch.
                continue
            kind = descriptor.get("kind")
            if kind == "callable":
                namespace[name] = _Remote(self, name)
            elif kind == "exception":
                base = getattr(builtins, str(descriptor.get("base")), None)
                if not (isinstance(base, type) and issubclass(base, BaseException)):
                    base = Exception
                local = type(name, (base,), {"__module__": "__main__"})
                self.exceptions[name] = local
                namespace[name] = local
            elif kind == "class":
                resolved = _allowed_attribute(descriptor.get("module"), descriptor.get("qualname"))
                namespace[name] = resolved if isinstance(resolved, type) else _Remote(self, name)
            elif kind == "module":
                module = _allowed_module(descriptor.get("module"))
                namespace[name] = module if module is not None else _Opaque(name, "the module %s, which the judge does not load" % _cut(str(descriptor.get("module")))[:200])
            elif kind == "value":
                try:
                    namespace[name] = decode(descriptor.get("value"), None, self.channel.deadline)
                except ProtocolError as exc:
                    namespace[name] = _Opaque(name, "a value the judge cannot read (%s)" % exc)
            else:
                reason = descriptor.get("reason")
                namespace[name] = _Opaque(name, _cut(reason) if isinstance(reason, str) else "an object")
        return namespace

    def _literal_call(self, node, namespace):
        """(name, encoded arguments) when `node` is `assert NAME(LITERALS...) == LITERAL` and NAME
        is one of the candidate's functions: evaluating it makes exactly that one call."""
        if not _is_equality_assert(node):
            return None
        call = node.test.left
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.keywords or type(namespace.get(call.func.id)) is not _Remote:
            return None
        try:
            ast.literal_eval(node.test.comparators[0])
            # A message is evaluated after a failure: it must not make calls of its own.
            if node.msg is not None:
                ast.literal_eval(node.msg)
            args = [ast.literal_eval(arg) for arg in call.args]
            encoded = encode(args)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, NotPlain):
            return None
        # A set's encoding follows its iteration order, which differs between a set built by
        # literal_eval and the constant the compiled test builds: never sent ahead.
        if _holds_set(encoded):
            return None
        return call.func.id, encoded

    def _prefetch(self, body, start, namespace):
        """Sends the calls of the run of literal equality asserts from `start` at once, so the
        candidate answers them back to back instead of one round trip each (~0.18 ms a call). They
        are made in the tests' order; each test still awaits its own reply, and a timeout names
        the first call not answered. Bounded so that neither side's socket buffer can fill."""
        batch = []
        size = 0
        for node in body[start : start + PREFETCH_CALLS]:
            literal = self._literal_call(node, namespace)
            if literal is None:
                break
            size += len(json.dumps(literal[1]))
            if size > PREFETCH_BYTES:
                break
            batch.append(literal)
        if len(batch) < 2:
            return
        for name, encoded_args in batch:
            self.call_id += 1
            try:
                self.channel.send({"t": "call", "id": self.call_id, "name": name, "args": encoded_args, "kwargs": ["d", []]})
            except (ChannelClosed, TimeoutError):
                return  # the call itself meets the same end, in order
            self.pending.append((name, encoded_args, self.call_id))

    def run_tests(self, namespace):
        results = []
        body = self.tree.body
        for index, node in enumerate(body):
            if not self.pending and self.closed is None:
                self._prefetch(body, index, namespace)
            record = {"index": index, "source": _segment(self.tests_source, node), "pass": False}
            if _is_equality_assert(node):
                self._equality(node, namespace, record)
            else:
                self._statement(node, namespace, record)
            results.append(record)
        if self.bug is not None:
            raise JudgeBug(self.bug)
        return results

    def _equality(self, node, namespace, record):
        """`assert LEFT == RIGHT`: both sides evaluated once, in Python's order, so the verdict is
        the plain assert's; call, expected and actual are the paper's "Failed test details"."""
        left = node.test.left
        right = node.test.comparators[0]
        record["call"] = _segment(self.tests_source, left)
        try:
            actual = _eval_node(left, namespace)
        except BaseException as exc:  # noqa: BLE001
            record["actual"] = _describe(exc)
            record["error"] = record["actual"]
            if type(exc) is not Boundary:
                try:
                    record["expected"] = _safe_repr(_eval_node(right, namespace))
                except BaseException:  # noqa: BLE001
                    record["expected"] = _segment(self.tests_source, right)
            else:
                record["expected"] = _segment(self.tests_source, right)
            return
        record["actual"] = _safe_repr(actual)
        try:
            expected = _eval_node(right, namespace)
        except BaseException as exc:  # noqa: BLE001
            record["expected"] = _segment(self.tests_source, right)
            record["error"] = "could not evaluate the expected value: " + _describe(exc)
            return
        record["expected"] = _safe_repr(expected)
        try:
            equal = bool(actual == expected)
        except BaseException as exc:  # noqa: BLE001 - judge-side values; a deep one may recurse
            record["error"] = _describe(exc) if type(exc) is Boundary else "comparing the values raised " + _describe(exc)
            return
        if equal:
            record["pass"] = True
            return
        message = "AssertionError"
        if node.msg is not None:
            try:
                message += ": " + str(_eval_node(node.msg, namespace))
            except BaseException:  # noqa: BLE001
                pass
        record["error"] = _cut(message)

    def _statement(self, node, namespace, record):
        try:
            exec(_compiled(node, "exec"), namespace)  # noqa: S102
        except BaseException as exc:  # noqa: BLE001
            record["error"] = _describe(exc)
            return
        record["pass"] = True


def _holds_set(tagged):
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


def _write_back(original, state):
    """Applies a mutable argument's state after the call to the judge's own object."""
    t = type(original)
    if t is not type(state):
        return
    if t is list or t is bytearray:
        original[:] = state
    elif t is dict:
        original.clear()
        original.update(state)
    elif t is set:
        original.clear()
        original.update(state)


def _allowed_module(name):
    if not isinstance(name, str) or name not in ALLOWED_MODULES:
        return None
    try:
        __import__(name)
        return sys.modules[name]
    except Exception:  # noqa: BLE001
        return None


def _allowed_attribute(module_name, qualname):
    """A class defined in an allowed module, by its public name there, or None. Defined there, not
    re-exported (`enum.bltns.BaseException` is builtins' class): a candidate must not be able to
    hand the tests a class of its choosing, such as one that catches every exception."""
    module = _allowed_module(module_name)
    if module is None or not isinstance(qualname, str) or not qualname or qualname.startswith("_") or "." in qualname:
        return None
    value = module.__dict__.get(qualname)
    if not isinstance(value, type) or getattr(value, "__module__", None) != module_name or issubclass(value, BaseException):
        return None
    return value


# ---------------------------------------------------------------------------------------------
# Memory of the attempt's whole process tree: a cgroup per worker where this process may make one.


class _Cgroup:
    """A memory cgroup holding one zygote and everything it forks (v2 `memory.max`, else v1
    `memory.limit_in_bytes`), or nothing where neither is writable."""

    def __init__(self):
        self.path = None
        self.kind = None
        self.limit = None
        try:
            self._create()
        except OSError:
            self.path = None

    def _create(self):
        if os.getuid() != 0:
            return
        own = {}
        with open("/proc/self/cgroup") as handle:
            for line in handle:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    for controller in parts[1].split(","):
                        own[controller] = parts[2]
        mounts = {}
        with open("/proc/self/mounts") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 4 and fields[2] == "cgroup2":
                    mounts.setdefault("v2", fields[1])
                elif len(fields) >= 4 and fields[2] == "cgroup" and "memory" in fields[3].split(","):
                    mounts.setdefault("v1", fields[1])
        name = "seqk-%d" % os.getpid()
        if "v2" in mounts and "" in own:
            parent = os.path.join(mounts["v2"], own[""].lstrip("/"))
            try:
                with open(os.path.join(parent, "cgroup.subtree_control")) as handle:
                    delegated = "memory" in handle.read().split()
            except OSError:
                delegated = False
            if delegated:
                self._sweep(parent)
                path = os.path.join(parent, name)
                os.mkdir(path)
                self.path, self.kind = path, "v2"
                _write(os.path.join(path, "memory.swap.max"), "0", quiet=True)
                return
        if "v1" in mounts and "memory" in own:
            parent = os.path.join(mounts["v1"], own["memory"].lstrip("/"))
            self._sweep(parent)
            path = os.path.join(parent, name)
            os.mkdir(path)
            self.path, self.kind = path, "v1"

    @staticmethod
    def _sweep(parent):
        """Removes empty cgroups of judges that died without cleaning up (rmdir fails on a busy one)."""
        try:
            for entry in os.listdir(parent):
                if entry.startswith("seqk-") and entry[5:].isdigit() and not os.path.exists("/proc/%s" % entry[5:]):
                    try:
                        os.rmdir(os.path.join(parent, entry))
                    except OSError:
                        pass
        except OSError:
            pass

    def set_limit(self, limit):
        if self.path is None or limit == self.limit:
            return
        if self.kind == "v2":
            ok = _write(os.path.join(self.path, "memory.max"), str(limit))
        else:
            # memsw (memory + swap) must stay >= the memory limit: raise it first, then lower both.
            memsw = os.path.join(self.path, "memory.memsw.limit_in_bytes")
            has_memsw = os.path.exists(memsw)
            if has_memsw:
                _write(memsw, "-1", quiet=True)
            ok = _write(os.path.join(self.path, "memory.limit_in_bytes"), str(limit))
            if has_memsw:
                _write(memsw, str(limit), quiet=True)
        self.limit = limit if ok else None

    def oom_kills(self):
        if self.path is None:
            return 0
        name = "memory.events" if self.kind == "v2" else "memory.oom_control"
        try:
            with open(os.path.join(self.path, name)) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        if self.kind == "v1":
            try:
                with open(os.path.join(self.path, "memory.failcnt")) as handle:
                    return int(handle.read().strip() or 0)
            except (OSError, ValueError):
                return 0
        return 0

    def enter(self):
        """Run in the zygote's process before it execs (Popen's preexec_fn)."""
        if self.path is not None:
            with open(os.path.join(self.path, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))

    def kill_all(self):
        """SIGKILLs every process in the cgroup, whatever session it moved to or whichever parent
        death signal it cleared, until none is left (at most 2 s). False if some survived."""
        if self.path is None:
            return True
        if self.kind == "v2" and _write(os.path.join(self.path, "cgroup.kill"), "1", quiet=True):
            pass
        deadline = time.monotonic() + 2.0
        while True:
            try:
                with open(os.path.join(self.path, "cgroup.procs")) as handle:
                    pids = [int(line) for line in handle if line.strip()]
            except (OSError, ValueError):
                return False
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.002)

    def remove(self):
        if self.path is None:
            return
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.01)


def _write(path, text, quiet=False):
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return True
    except OSError:
        if not quiet:
            raise
        return False


# ---------------------------------------------------------------------------------------------
# The judge process.

SELF_CHECK = {"code": "def seqk_self_check(x):\n    return [x, x * 2, {'k': (x, 1.5)}]\n", "tests": "assert seqk_self_check(2) == [2, 4, {'k': (2, 1.5)}]\nassert seqk_self_check(0)[0] == 0\n"}


class _Judge:
    def __init__(self, config):
        self.config = config
        self.node_in = os.dup(0)
        self.node_out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        # Tests may print; nothing but frames may reach Node's pipe.
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        self.cgroup = _Cgroup()
        self.parsed = {}
        # A uid of this judge's own for its worker (where we are root and drop privileges): no
        # other worker's candidate can signal this one's processes, read their memory or share
        # their process limit.
        self.uid = SANDBOX_UID_BASE + os.getpid()
        self.process = None
        self.control = None
        self.worker_ready = None

    def timeout_ms(self, request):
        return int(float(request.get("timeoutMs", 3000)))

    # -- the zygote -------------------------------------------------------------------------

    def start_worker(self):
        self.stop_worker()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = subprocess.Popen(
                self._cleanup_prefix() + list(self.config["worker"]),
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=None,  # the judge's stderr: Node keeps its tail for startup errors
                cwd="/",
                env=dict(self.config.get("env") or {}),
                close_fds=True,
                start_new_session=True,
                preexec_fn=self._enter_worker,
            )
        finally:
            theirs.close()
        self.control = ours
        ready = _read_frame_blocking(ours.fileno(), STARTUP_TIMEOUT)
        if ready is None or ready.get("t") != "ready":
            try:
                code = self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            self.stop_worker()
            raise RuntimeError("the candidate worker did not start (%s)" % ("exit code %s" % code if code is not None else "no answer within %d s" % STARTUP_TIMEOUT))
        if not ready.get("seccomp"):
            self.stop_worker()
            raise RuntimeError("the candidate worker cannot install its seccomp filter on this machine (ctypes or the architecture is missing)")
        self.worker_ready = ready

    def _enter_worker(self):
        """In the zygote's process before it execs: its cgroup, and none of the judge's own
        address-space limit."""
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        self.cgroup.enter()

    def _worker_died(self):
        """True when the zygote's process ended on its own (not killed by us)."""
        if self.process is None:
            return True
        try:
            self.process.wait(timeout=0.5)
            return True
        except subprocess.TimeoutExpired:
            return False

    def _cleanup_prefix(self):
        """How to run a command as the sandbox user (never as root: the candidate's symlinks could
        steer a recursive delete), or [] where no privilege is dropped."""
        drop = self.config.get("drop")
        if not drop:
            return []
        return [drop, "--reuid=%d" % self.uid, "--regid=%d" % self.uid, "--clear-groups", "--no-new-privs"]

    def _remove_workdir(self, workdir):
        """Outside bubblewrap, an attempt whose zygote died leaves its directory."""
        if self.config.get("mode") != "none" or not isinstance(workdir, str) or not WORKDIR.match(workdir) or "/../" in workdir:
            return
        try:
            subprocess.run(self._cleanup_prefix() + ["rm", "-rf", "--", workdir], env=dict(self.config.get("env") or {}), cwd="/", timeout=10, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        except Exception:  # noqa: BLE001
            pass

    def _sweep_workdirs(self):
        """Outside bubblewrap, with a uid of its own: every working directory that uid left in the
        temporary directory (a zygote killed between making one and reporting it)."""
        if self.config.get("mode") != "none" or not self.config.get("drop"):
            return
        base = tempfile.gettempdir()
        try:
            entries = [os.path.join(base, name) for name in os.listdir(base) if name.startswith("seqk-py-")]
        except OSError:
            return
        for path in entries:
            try:
                if os.lstat(path).st_uid == self.uid:
                    self._remove_workdir(path)
            except OSError:
                pass

    def stop_worker(self):
        if self.control is not None:
            try:
                self.control.close()
            except OSError:
                pass
            self.control = None
        if self.process is not None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                self.process.kill()
            except OSError:
                pass
            try:
                self.process.wait(timeout=5)
            except Exception:  # noqa: BLE001
                pass
            self.process = None
            # What the candidate left outside the zygote's reach (a new session, a cleared parent
            # death signal: outside a pid namespace these outlive the zygote) dies with its cgroup.
            self.cgroup.kill_all()
            self._sweep_workdirs()

    # -- attempts ---------------------------------------------------------------------------

    def attempt(self, request, relay):
        """Runs one request; returns the result frame for Node."""
        tests_source = request.get("tests") or ""
        tree = self.parsed.get(tests_source)
        if tree is None:
            try:
                tree = ast.parse(tests_source, TESTS_FILE)
            except SyntaxError as exc:
                return _frame({"outcome": "tests-error", "statements": 0, "tests": [], "error": "the tests do not parse: " + _describe(exc)})
            # A task's tests are judged again for every attempt and repeat: parsed once. The
            # tree is only read (statements are compiled from it, never changed).
            if len(self.parsed) >= 512:
                self.parsed.clear()
            self.parsed[tests_source] = tree
        for attempt_number in (1, 2):
            outcome = self._attempt_once(request, tree, tests_source, relay)
            if outcome != "worker-lost":
                return outcome
            # The zygote died under the attempt: a fresh one, a self-check, and one more try.
            try:
                self.start_worker()
            except Exception as exc:  # noqa: BLE001
                return _frame({"outcome": "harness-error", "statements": len(tree.body), "tests": [], "error": "the candidate worker could not be restarted: %s" % exc})
            check = self.self_check()
            if check is not None:
                return _frame({"outcome": "harness-error", "statements": len(tree.body), "tests": [], "error": check})
        return _frame({"outcome": "load-error", "statements": len(tree.body), "tests": [], "error": "the sandbox's worker process died twice while running this code (a self-check with a known-good answer passed in between)"})

    def _attempt_once(self, request, tree, tests_source, relay):
        if self.process is None or self.process.poll() is not None:
            self.start_worker()
        limit = int(request.get("memoryBytes") or 0)
        if limit:
            try:
                self.cgroup.set_limit(limit + ZYGOTE_ALLOWANCE)
            except OSError:
                pass
        oom_before = self.cgroup.oom_kills()
        attempt = _Attempt(self, request, tree, tests_source)
        timeout = max(0.001, self.timeout_ms(request) / 1000.0)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        forwarded = {k: request.get(k) for k in ("code", "setup", "maxOutputBytes", "memoryBytes", "cpuSeconds", "fileSizeBytes", "openFiles", "processes")}
        forwarded["t"] = "attempt"
        if self.cgroup.path is None and self.config.get("mode") == "bwrap":
            # No cgroup: the tree's memory is bounded by processes x the per-process limit alone.
            forwarded["processes"] = min(int(forwarded.get("processes") or FALLBACK_PROCESSES), FALLBACK_PROCESSES)
        forwarded["names"] = _loaded_names(tree)
        # The worker's own limit is a backstop: the judge's deadline comes first and names the call.
        forwarded["timeoutMs"] = self.timeout_ms(request) + 250
        try:
            # The call socket rides on the frame's first bytes (SCM_RIGHTS).
            data = frame_bytes(forwarded)
            sent = self.control.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", theirs.fileno()))])
            if sent < len(data):
                self.control.sendall(data[sent:])
        except OSError:
            theirs.close()
            ours.close()
            return "worker-lost"
        theirs.close()
        # The zygote forks at once (retrying a full process table until the attempt's deadline).
        started = _read_frame_blocking(self.control.fileno(), timeout + KILL_WAIT)
        if started is None or started.get("t") not in ("started", "result"):
            ours.close()
            self.stop_worker()
            return "worker-lost"
        if started.get("t") == "result":
            ours.close()
            self.stop_worker()
            return _frame({"outcome": "harness-error", "statements": len(tree.body), "tests": [], "error": "the worker could not start the attempt: %s" % started.get("error")})
        relay({"type": "started", "pid": started.get("pid"), "workdir": started.get("workdir")})
        channel = _Channel(ours, self.control.fileno(), time.monotonic() + timeout)
        attempt.channel = channel
        result = self._judge(attempt, channel)
        # Done with the candidate: ask it to end, and kill it if it does not.
        try:
            channel.deadline = min(channel.deadline, time.monotonic() + END_GRACE) if result.get("outcome") != "timeout" else time.monotonic()
            if attempt.closed is None and channel.worker_result is None:
                channel.send({"t": "end"})
        except (ChannelClosed, TimeoutError):
            pass
        if channel.worker_result is None and result.get("outcome") != "timeout":
            # The verdict is in: the worker may answer as soon as the output is complete.
            try:
                # A load error's message says how the process ended: wait for its exit status.
                write_frame(self.control.fileno(), {"t": "finish", "status": result.get("outcome") == "load-error"})
            except OSError:
                pass
        worker_result = channel.worker_result
        if worker_result is None:
            grace = max(0.0, channel.deadline - time.monotonic())
            worker_result = _read_frame_blocking(self.control.fileno(), grace)
            if worker_result is None:
                try:
                    write_frame(self.control.fileno(), {"t": "kill"})
                except OSError:
                    pass
                worker_result = _read_frame_blocking(self.control.fileno(), KILL_WAIT)
        ours.close()
        if worker_result is None or worker_result.get("t") != "result":
            # The zygote died (a candidate outside a pid namespace can signal it), or it froze.
            died = self._worker_died()
            self.stop_worker()
            self._remove_workdir(started.get("workdir"))
            if died or result.get("armed") is False:
                return "worker-lost"
            worker_result = {"t": "result", "healthy": False}
        if not worker_result.get("healthy", True):
            self.stop_worker()
        if result.pop("armed", True) is False:
            # Our own set-up in the child failed before any candidate code ran.
            code = worker_result.get("exitCode")
            check = self.self_check() if code != 71 else None
            why = "could not install the seccomp filter" if code == 71 else "ended before running the code (exit code %s, signal %s)" % (code, worker_result.get("exitSignal"))
            if check is None and code != 71:
                return "worker-lost"
            return _frame({"outcome": "harness-error", "statements": len(tree.body), "tests": [], "error": "the attempt's process %s" % why})
        if worker_result.get("timedOut") and result.get("outcome") != "timeout":
            # The worker's own clock (a backstop a little after the judge's) ended the attempt
            # while the judge was busy: it ran out of time, whatever the last call was.
            result["outcome"] = "timeout"
            result["timeoutIn"] = attempt.ended_in or "loading the code"
        memory_limited = self.cgroup.oom_kills() > oom_before
        _explain_ending(result, attempt, worker_result, memory_limited, self.cgroup.limit)
        frame = _frame(result)
        for key in ("stdout", "stderr", "exitCode", "exitSignal", "durationMs"):
            if key in worker_result:
                frame[key] = worker_result[key]
        frame["timedOut"] = result.get("outcome") == "timeout"
        return frame

    def _judge(self, attempt, channel):
        """The tests against the loaded candidate, as a result (the candidate's fault or merit only)."""
        statements = len(attempt.tree.body)
        try:
            armed = channel.receive()
            if armed.get("t") == "setup-error":
                error = armed.get("error")
                return {"outcome": "tests-error", "statements": statements, "tests": [], "error": "the task's setup failed: %s" % (_cut(error) if isinstance(error, str) else "?")}
            if armed.get("t") != "armed":
                return {"outcome": "load-error", "statements": statements, "tests": [], "error": "the candidate's process broke the protocol while loading"}
        except TimeoutError:
            return {"outcome": "timeout", "statements": statements, "tests": [], "error": "the attempt did not start in time", "armed": False}
        except ChannelClosed:
            return {"outcome": "load-error", "statements": statements, "tests": [], "error": "", "armed": False}
        try:
            loaded = channel.receive()
        except TimeoutError:
            attempt.timed_out_in = "loading the code"
            return {"outcome": "timeout", "statements": statements, "tests": [], "error": "timed out after %d ms while loading the code" % self.timeout_ms(attempt.request), "timeoutIn": "loading the code"}
        except ChannelClosed as exc:
            attempt.ended_in = "loading the code"
            return {"outcome": "load-error", "statements": statements, "tests": [], "error": "the candidate's process %s while loading the code" % exc}
        if loaded.get("t") != "loaded":
            return {"outcome": "load-error", "statements": statements, "tests": [], "error": "the candidate's process broke the protocol while loading"}
        if "error" in loaded:
            error = loaded.get("error")
            return {"outcome": "load-error", "statements": statements, "tests": [], "error": _cut(error) if isinstance(error, str) else "the code did not load"}
        names = loaded.get("names")
        if type(names) is not dict:
            return {"outcome": "load-error", "statements": statements, "tests": [], "error": "the candidate's process broke the protocol while loading"}
        namespace = attempt.namespace(names)
        tests = attempt.run_tests(namespace)
        passed = all(t["pass"] for t in tests) and len(tests) == statements
        result = {"outcome": "passed" if passed else "failed", "statements": statements, "tests": tests}
        if attempt.timed_out_in is not None:
            result["outcome"] = "timeout"
            result["timeoutIn"] = attempt.timed_out_in
        return result

    def self_check(self):
        """None when a known-good answer passes through this judge and a worker, else why not."""
        try:
            if self.process is None or self.process.poll() is not None:
                self.start_worker()
            request = dict(SELF_CHECK, timeoutMs=10000, maxOutputBytes=4096, memoryBytes=0, cpuSeconds=11, fileSizeBytes=1 << 20, openFiles=64, processes=0)
            frame = self.attempt_checked(request)
        except Exception as exc:  # noqa: BLE001
            return "the self-check with a known-good answer failed: %s" % _describe(exc)
        if frame.get("result", {}).get("outcome") != "passed":
            return "the self-check with a known-good answer did not pass: %s" % json.dumps(frame.get("result"))[:400]
        return None

    def attempt_checked(self, request):
        tree = ast.parse(request["tests"], TESTS_FILE)
        outcome = self._attempt_once(request, tree, request["tests"], lambda _message: None)
        if outcome == "worker-lost":
            return {"result": {"outcome": "harness-error"}}
        return outcome

    def serve(self):
        self.start_worker()
        check = self.self_check()
        if check is not None:
            sys.stderr.write(check + "\n")
            return 4
        write_frame(self.node_out, {"type": "ready", "pid": os.getpid(), "version": "%d.%d.%d" % sys.version_info[:3], "cgroup": self.cgroup.kind, "uid": self.uid if self.config.get("drop") else os.getuid(), "worker": self.worker_ready})
        while True:
            try:
                request = read_frame(self.node_in, MAX_REQUEST_BYTES)
            except ProtocolError:
                return 2
            if request is None:
                return 0
            try:
                frame = self.attempt(request, lambda message: write_frame(self.node_out, message))
            except JudgeBug as exc:
                self.stop_worker()
                frame = _frame({"outcome": "harness-error", "statements": 0, "tests": [], "error": "the judge contradicted itself: %s" % exc})
            except Exception as exc:  # noqa: BLE001 - a bug of ours: is the judge still sound?
                self.stop_worker()
                check = self.self_check()
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                if check is None:
                    frame = _frame({"outcome": "failed", "statements": 0, "tests": [], "error": "the answer made the judge fail (%s); a self-check with a known-good answer passed, so this counts against the answer" % _cut(detail)})
                else:
                    frame = _frame({"outcome": "harness-error", "statements": 0, "tests": [], "error": "the judge failed (%s) and %s" % (_cut(detail), check)})
            frame["healthy"] = True
            write_frame(self.node_out, frame)

    def close(self):
        self.stop_worker()
        self.cgroup.remove()


def _frame(result):
    return {"type": "result", "result": result}


_SIGNAL_HINTS = {
    "SIGXCPU": " (the CPU time limit)",
    "SIGSEGV": " (a crash: e.g. recursion too deep for the C stack)",
    "SIGKILL": " (e.g. the CPU time limit, or the system running out of memory)",
    "SIGXFSZ": " (the file size limit)",
    "SIGABRT": " (aborted)",
}


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except (ValueError, TypeError):
        return "signal %s" % number


def _explain_ending(result, attempt, worker_result, memory_limited, limit):
    """Replaces "the process ended" with how it ended, now that the worker has said."""
    code = worker_result.get("exitCode")
    sig = worker_result.get("exitSignal")
    if memory_limited:
        how = "was killed for using more than %d MiB together with every process it started" % ((limit or 0) // (1024 * 1024) - ZYGOTE_ALLOWANCE // (1024 * 1024))
        result["memoryLimited"] = True
    elif sig is not None:
        how = "was killed by %s%s" % (_signal_name(sig), _SIGNAL_HINTS.get(_signal_name(sig), ""))
    elif code is not None:
        how = "exited with code %s" % code
    else:
        how = "ended"
    stderr = worker_result.get("stderr") or ""
    last = stderr.strip().split("\n")[-1].strip() if stderr.strip() else ""
    suffix = (": " + _cut(last)) if last and not memory_limited else ""
    if result.get("outcome") == "load-error" and (result.get("error") in ("", None) or "process ended while loading" in result.get("error", "")):
        result["error"] = "the Python process %s while loading the code%s" % (how, suffix)
    for record in result.get("tests", []):
        for key in ("error", "actual"):
            text = record.get(key)
            if isinstance(text, str) and text.startswith("the candidate's process ended during the call"):
                record[key] = text.replace("the candidate's process ended", "the candidate's process %s" % how, 1) + suffix
    if memory_limited and result.get("outcome") == "passed":
        result["outcome"] = "failed"


def judge_main(argv):
    config = json.loads(argv[2]) if len(argv) > 2 else {}
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except Exception:  # noqa: BLE001
        pass
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (JUDGE_ADDRESS_SPACE, hard))
    except (ValueError, OSError):
        pass
    judge = _Judge(config)
    try:
        return judge.serve()
    finally:
        judge.close()


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "judge":
    sys.exit(judge_main(sys.argv))
