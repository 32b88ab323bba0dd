"""The candidate's process: a child the worker (worker.py) forked ahead of its attempt. It isolates
itself, waits for its call socket, reads the code from the judge on it, takes the attempt's
limits, runs the code and answers the judge's calls until told to end. It never sees a test.

    judge -> child   {"t": "request", "code", "setup", "names", "maxOutputBytes", "memoryBytes",
                      "cpuSeconds", "fileSizeBytes", "openFiles", "processes"}
    child -> judge   {"t": "armed"} | {"t": "setup-error", "error"}  before any candidate code runs
    child -> judge   {"t": "loaded", "names": {name: descriptor}, "reads": [global names its
                      functions read]} | {"t": "loaded", "error": text}
    judge -> child   {"t": "call", "id", "name", "args", "kwargs",      arguments as plain values
                      "globals"?, "out"?, "err"?, "in"?}   the tests' globals it reads, their
                                                           redirected streams, the stdin they set
    child -> judge   {"t": "return", "id", "value", "args"}  (mutable arguments after the call)
                     | {"t": "raise", "id", "exception": {...}} | {"t": "notplain", "id", "reason"}
                     | {"t": "coroutine", "id", "handle"}  (run by a later call named "await:<handle>")
                     each with "out"?, "err"? (what it wrote to a redirected stream), "read"? (of stdin)
    A name `random.<function>` is the answer's own module's (the tests share its state).
    judge -> child   {"t": "end"}
    child -> judge   {"t": "ended", "entropy": [why a fresh run might differ, or nothing]}

Everything the child sends is the candidate's word: the judge checks each frame and decodes
every value with its own types, so a lie can only fail the candidate's own tests.
"""

import builtins
import errno
import fcntl
import io
import json
import os
import resource
import signal
import socket
import sys
import tempfile
import types

import seccomp
from channel import read_frame, recv_fd, write_frame
from codec import NotPlain, ProtocolError, cut, decode, describe_exception, encode

CANDIDATE_FILE = "<candidate>"
SETUP_FILE = "<setup>"
# The call socket sits at a high fd number, away from fds a candidate opens or closes by accident.
CALL_FD_MIN = 200
# The harness's own modules: gone from sys.modules before candidate code runs, so that
# `import codec` is the candidate's own business, as in a fresh interpreter.
HARNESS_MODULES = ("codec", "channel", "seccomp", "sitedirs", "candidate", "worker")
# The official run (`python file.py`) calls a test's function from the module's frame, with
# Python's default limit: this many frames of the candidate's fit under it.
OFFICIAL_RECURSION_LIMIT = 1000
# An exception's arguments are sent when their encoding is at most this large.
MAX_ARGS_BYTES = 64 * 1024
# How the judge names a builtin it passes (attempt.py BUILTIN_PREFIX).
BUILTIN_PREFIX = "builtins."
# Mutable arguments whose state after a call is sent back.
MUTABLE = (list, dict, set, bytearray)
# Every thread pool of a numerical library starts with one thread, as code_eval sets it: the
# address-space limit counts every thread's stack and arena.
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# Names whose use makes a run's verdict something a fresh run may not repeat (randomness, clocks,
# threads, the process's identity) or hides what the code uses (dynamic imports, eval). Code that
# names none of them, imports none of ENTROPY_MODULES and leaves `random`'s state as it was is
# reported deterministic (see EntropyProbe): the verdict cache reuses a verdict only for such code,
# and only once a second run has agreed (python-tests.ts). A name seen is no proof of chance, only
# a reason not to reuse: a false alarm costs a run, never a verdict.
ENTROPY_NAMES = frozenset(
    "random randint randrange choice choices shuffle sample uniform gauss getrandbits seed urandom getrandom "
    "SystemRandom secrets token_hex token_bytes uuid uuid1 uuid4 time time_ns perf_counter perf_counter_ns "
    "monotonic monotonic_ns process_time thread_time clock_gettime now utcnow today Thread threading "
    "multiprocessing concurrent subprocess asyncio getpid getppid id hash __import__ import_module importlib "
    "eval exec compile getattr globals vars locals __dict__ __builtins__ open stdin argv environ".split()
)
ENTROPY_MODULES = frozenset(
    "secrets uuid numpy threading multiprocessing concurrent asyncio subprocess socket ssl _thread".split()
)

# The zygote's modules when it started forking (set_base_modules): what a module not among them
# may be new against, when sys.modules changed other than by an import (EntropyProbe).
BASE_MODULES = None

# Modules whose state the tests share with the answer (attempt.py SHARED_MODULES): the tests'
# calls of their functions are made here, on the answer's own module.
SHARED_MODULES = frozenset(["random"])
# What the official run is started as (`python3 solution.py`): the answer reads it in sys.argv.
ARGV = ["solution.py"]

_limits = {}


def limit_hint(exc):
    """Why an error happened, when a sandbox limit caused it: the model reading the feedback
    should learn that the environment refused, not guess at a bug."""
    limits = _limits
    if not limits:
        return ""
    if isinstance(exc, MemoryError):
        return " [sandbox: memory limit of %d MiB]" % (limits.get("memoryBytes", 0) // (1024 * 1024))
    if not isinstance(exc, OSError):
        return ""
    code = getattr(exc, "errno", None)
    hints = {
        errno.EFBIG: " [sandbox: file size limit of %d MiB]" % (limits.get("fileSizeBytes", 0) // (1024 * 1024)),
        errno.EMFILE: " [sandbox: at most %d open files]" % limits.get("openFiles", 0),
        errno.EROFS: " [sandbox: the file system is read-only outside the working directory]",
        errno.EACCES: " [sandbox: runs as an unprivileged user]",
        errno.EPERM: " [sandbox: runs as an unprivileged user]",
    }
    if code == errno.EAGAIN and limits.get("processes"):
        return " [sandbox: at most %d processes]" % limits["processes"]
    if code in hints:
        return hints[code]
    if limits.get("mode") == "bwrap":
        network = (errno.ENETUNREACH, errno.ENETDOWN, errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)
        if code in network or type(exc).__name__ == "gaierror":
            return " [sandbox: no network]"
        if code == errno.ENOENT and isinstance(getattr(exc, "filename", None), str) and exc.filename.startswith("/"):
            return " [sandbox: only the system directories and the working directory exist]"
    return ""


def candidate_line(exc):
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CANDIDATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def describe_with_line(exc):
    text = describe_exception(exc)
    if isinstance(exc, SyntaxError):
        return text
    line = candidate_line(exc)
    if line is not None:
        text = cut("%s (candidate line %d)" % (text, line))
    return text + limit_hint(exc)


def _builtin_base(cls):
    return next((c.__name__ for c in cls.__mro__ if getattr(builtins, c.__name__, None) is c), "Exception")


def describe_name(value):
    """What the judge needs to know about one of the candidate's names."""
    if isinstance(value, type(os)):
        return {"kind": "module", "module": str(getattr(value, "__name__", ""))[:200]}
    if isinstance(value, type) and issubclass(value, BaseException):
        return {"kind": "exception", "base": _builtin_base(value)}
    if callable(value):
        return {"kind": "callable"}
    try:
        return {"kind": "value", "value": encode(value, coerce=True)}
    except NotPlain as exc:
        return {"kind": "opaque", "reason": str(exc)}


def _plain_args(exc):
    """The exception's arguments as plain values, or None (not plain, or too large to send)."""
    try:
        args = exc.args
        encoded = encode(tuple(args), coerce=True) if type(args) is tuple else None
    except BaseException:  # the candidate's args: anything may raise
        return None
    return encoded if encoded is not None and len(json.dumps(encoded)) <= MAX_ARGS_BYTES else None


def exception_record(exc, namespace):
    """A raised exception as the judge rebuilds it: the nearest built-in class in its MRO, the
    candidate's own exception classes the tests can name, its arguments and message, its line."""
    mro = type(exc).__mro__
    named = []
    for cls in mro:
        name = getattr(cls, "__name__", None)
        if isinstance(name, str) and namespace.get(name) is cls and getattr(builtins, name, None) is not cls:
            named.append(name)
    try:
        message = str(exc)
    except BaseException:  # a broken __str__
        message = ""
    return {
        "class": type(exc).__name__[:200],
        "builtin": _builtin_base(type(exc)),
        "named": named[:20],
        "message": message[:MAX_ARGS_BYTES],
        "args": _plain_args(exc),
        "text": describe_exception(exc) + limit_hint(exc),
        "line": candidate_line(exc),
    }


def _depth():
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


def _code_names(code, found, depth=0):
    """Every name a code object and those nested in it use (globals, attributes, imports)."""
    found.update(code.co_names)
    if depth < 200:
        for const in code.co_consts:
            if isinstance(const, type(code)):
                _code_names(const, found, depth + 1)
    return found


def set_base_modules():
    """Notes the zygote's modules, once, before it forks its first attempt (see BASE_MODULES)."""
    global BASE_MODULES
    BASE_MODULES = frozenset(sys.modules)


class ImportLog:
    """A finder first in `sys.meta_path` that only notes the module names the import system looks
    for (a name it looks for is one not in sys.modules yet) and lets the next finder find them: the
    modules an attempt loads, without a copy of sys.modules (copying it in a freshly forked process
    touches every module name, a page fault each: 0.28 ms an attempt at load 18)."""

    __slots__ = ("names", "overflow")

    # More distinct names than this and the log stops, saying so (the probe then reports it).
    MAX_NAMES = 4096

    def __init__(self):
        self.names = set()
        self.overflow = False

    def find_spec(self, name, path=None, target=None):
        if len(self.names) < self.MAX_NAMES:
            self.names.add(name)
        else:
            self.overflow = True
        return None


class EntropyProbe:
    """Whether what the candidate's code did may come out otherwise in a fresh run: the names its
    code uses (ENTROPY_NAMES), the modules it loaded (ENTROPY_MODULES), `random`'s global state.
    Its report is the candidate's word like everything else it sends: it can only cost the answer
    its own cached verdict, which a second run must confirm anyway.

    The modules loaded are those the import system was asked for (ImportLog) and is holding at the
    end; sys.modules growing or shrinking by any other count (a module put there or removed by
    hand) is reported too. Nothing of sys.modules is copied: each step is cheap in a freshly
    forked process, where touching the zygote's objects costs a page fault each."""

    def __init__(self):
        module = sys.modules.get("random")
        self.random = module
        self.state = module.getstate() if module is not None else None
        self.modules = len(sys.modules)
        self.imports = ImportLog()
        sys.meta_path.insert(0, self.imports)
        # Every name the code uses, set once it has loaded (see loaded).
        self.names = None

    def loaded(self, code):
        """The global names the candidate's functions read (its module's own statements ran
        already): those the tests may assign for it, as one module's code would share them
        officially. Notes every name the code uses, for sources()."""
        found = set()
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                _code_names(const, found)
        own = builtins.__dict__
        reads = {name for name in found if name.isidentifier() and name not in own}
        found.update(code.co_names)
        self.names = found
        return reads

    def sources(self):
        try:
            found = set(ENTROPY_NAMES.intersection(self.names or ()))
            new = {name for name in self.imports.names if name in sys.modules}
            found.update({name.partition(".")[0] for name in new} & ENTROPY_MODULES)
            if self.imports.overflow or len(sys.modules) != self.modules + len(new):
                # A module put there (or taken out) other than by an import, as pyexpat puts
                # `pyexpat.errors`: this rare run pays for a look at every name it holds.
                if BASE_MODULES is None:
                    found.add("sys.modules changed by hand")
                else:
                    added = {name.partition(".")[0] for name in list(sys.modules) if name not in BASE_MODULES}
                    found.update(added & ENTROPY_MODULES)
            module = sys.modules.get("random")
            if module is not self.random or (module is not None and module.getstate() != self.state):
                found.add("random's state")
            return sorted(found)[:20]
        except BaseException:  # the candidate's own modules may be anything by now
            return ["unknown"]


class Calls:
    """Answers the judge's calls on the attempt's call socket until it says "end"."""

    def __init__(self, sock_fd, namespace, own_pid, probe=None):
        self.sock_fd = sock_fd
        self.namespace = namespace
        self.own_pid = own_pid
        self.names_of = {}
        self.probe = probe
        self.coroutines = []

    def ref(self, value):
        """A function of the candidate's inside a mutated argument goes back by name."""
        if not self.names_of:
            for key, item in self.namespace.items():
                if callable(item) and not isinstance(item, type):
                    self.names_of.setdefault(id(item), key)
        return self.names_of.get(id(value))

    def resolve(self, name):
        """A function the judge passed: one of the candidate's, or a builtin (`builtins.len`)."""
        if name.startswith(BUILTIN_PREFIX):
            target = getattr(builtins, name[len(BUILTIN_PREFIX):], None)
        else:
            target = self.namespace.get(name)
        if target is None or not callable(target):
            raise ProtocolError("no function %r" % name)
        return target

    def serve(self, load_depth):
        # As deep as the official run lets a test's call go (our own frames are not the
        # candidate's), from the limit the candidate set while loading, if it set one.
        limit = sys.getrecursionlimit()
        if limit == OFFICIAL_RECURSION_LIMIT + load_depth:
            limit = OFFICIAL_RECURSION_LIMIT
        sys.setrecursionlimit(limit + _depth())
        while True:
            message = read_frame(self.sock_fd)
            if message is None or message.get("t") != "call" or os.getpid() != self.own_pid:
                if message is not None and message.get("t") == "end" and os.getpid() == self.own_pid:
                    # Whether a fresh run might say otherwise (the verdict cache's question).
                    sources = self.probe.sources() if self.probe is not None else ["unknown"]
                    write_frame(self.sock_fd, {"t": "ended", "entropy": sources})
                return
            write_frame(self.sock_fd, self.answer(message))

    def answer(self, message):
        """The reply to one call, made as the official run would make it: the globals the tests
        changed set first, and the tests' redirected streams and stdin in place during it."""
        streams = [key for key in ("out", "err") if message.get(key) == 1]
        feed = message.get("in")
        if not streams and not isinstance(feed, str):
            return self._answer(message)
        saved = (sys.stdout, sys.stderr, sys.stdin)
        captured = {key: io.StringIO() for key in streams}
        if "out" in captured:
            sys.stdout = captured["out"]
        if "err" in captured:
            sys.stderr = captured["err"]
        stdin = io.StringIO(feed) if isinstance(feed, str) else None
        if stdin is not None:
            sys.stdin = stdin
        try:
            reply = self._answer(message)
        finally:
            sys.stdout, sys.stderr, sys.stdin = saved
        for key, stream in captured.items():
            reply[key] = stream.getvalue()
        if stdin is not None:
            reply["read"] = stdin.tell()
        return reply

    def _target(self, name):
        """What a call names: one of the candidate's functions, a function of a module the tests
        share with it (`random.seed`), or a coroutine it returned (`await:<n>`)."""
        if not isinstance(name, str):
            return None
        if name.startswith("await:"):
            index = name[len("await:") :]
            if not index.isdigit() or int(index) >= len(self.coroutines):
                return None
            coroutine = self.coroutines[int(index)]

            def run():
                import asyncio

                return asyncio.run(coroutine)

            return run
        module, _, attr = name.partition(".")
        if attr and module in SHARED_MODULES and not attr.startswith("_"):
            target = getattr(sys.modules.get(module) or __import__(module), attr, None)
            return target if callable(target) else None
        return self.namespace.get(name)

    def _answer(self, message):
        call_id, name = message.get("id"), message.get("name")
        try:
            args = decode(message.get("args", ["l", []]), self.resolve)
            kwargs = decode(message.get("kwargs", ["d", []]), self.resolve)
            shared = message.get("globals")
            if type(shared) is dict:
                for key, tagged in shared.items():
                    if isinstance(key, str) and key.isidentifier():
                        self.namespace[key] = decode(tagged, self.resolve)
        except ProtocolError as exc:
            return {"t": "notplain", "id": call_id, "reason": "could not read the arguments: %s" % exc}
        target = self._target(name)
        if target is None:
            text = "name %r is not defined" % name
            return {
                "t": "raise",
                "id": call_id,
                "exception": {
                    "class": "NameError",
                    "builtin": "NameError",
                    "named": [],
                    "message": text,
                    "args": encode((text,)),
                    "text": "NameError: " + text,
                    "line": None,
                },
            }
        try:
            value = target(*args, **{str(k): v for k, v in kwargs.items()})
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too
            self.only_ours()
            return {"t": "raise", "id": call_id, "exception": exception_record(exc, self.namespace)}
        self.only_ours()
        if type(value) is types.CoroutineType:
            # An async answer: kept here, run when the tests await it (asyncio.run) by `await:<n>`.
            self.coroutines.append(value)
            return {"t": "coroutine", "id": call_id, "handle": len(self.coroutines) - 1}
        try:
            after = [encode(a, self.ref, coerce=True) if type(a) in MUTABLE else None for a in args]
            return {"t": "return", "id": call_id, "value": encode(value, coerce=True), "args": after}
        except NotPlain as exc:
            return {"t": "notplain", "id": call_id, "reason": "returned %s" % exc}
        except RecursionError:
            return {"t": "notplain", "id": call_id, "reason": "returned a value nested too deeply to send"}
        except BaseException as exc:  # the candidate's own methods, called to read its value
            return {
                "t": "notplain",
                "id": call_id,
                "reason": "returned a value that could not be read: %s" % describe_exception(exc),
            }

    def only_ours(self):
        if os.getpid() != self.own_pid:
            os._exit(0)  # a copy made by the candidate's os.fork() never answers


def run_code(request, sock_fd, own_pid):
    """The task's setup, "armed", the candidate's code, "loaded", then the calls."""
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    setup = request.get("setup") or ""
    if setup:
        # The task's own lines (prependSetup): a failure here is the task's, said before "armed",
        # so no candidate code can have written it.
        try:
            exec(compile(setup, SETUP_FILE, "exec", dont_inherit=True), namespace)  # noqa: S102
        except BaseException as exc:  # whatever the task's setup raised
            write_frame(sock_fd, {"t": "setup-error", "error": describe_exception(exc)})
            return
    write_frame(sock_fd, {"t": "armed"})
    for name in HARNESS_MODULES:
        sys.modules.pop(name, None)
    # From here on, candidate code runs in this process: nothing it does reaches the judge except
    # through the frames below, which the judge treats as the candidate's word.
    load_depth = _depth()
    sys.setrecursionlimit(OFFICIAL_RECURSION_LIMIT + load_depth)
    sys.argv = list(ARGV)
    probe = EntropyProbe()
    try:
        code = compile(request.get("code") or "", CANDIDATE_FILE, "exec", dont_inherit=True)
        exec(code, namespace)  # noqa: S102
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included
        if os.getpid() != own_pid:
            os._exit(0)
        if isinstance(exc, SystemExit):
            text = "the code called exit(%s) while loading, so no test ran" % cut(repr(exc.code))
        else:
            text = describe_with_line(exc)
        write_frame(sock_fd, {"t": "loaded", "error": text})
        return
    if os.getpid() != own_pid:
        os._exit(0)
    reads = sorted(probe.loaded(code))[:1000]
    write_frame(
        sock_fd, {"t": "loaded", "names": _describe_names(request.get("names") or [], namespace), "reads": reads}
    )
    Calls(sock_fd, namespace, own_pid, probe).serve(load_depth)


def _describe_names(wanted, namespace):
    names = {}
    for name in wanted:
        if isinstance(name, str) and name in namespace and not (name.startswith("__") and name.endswith("__")):
            try:
                names[name] = describe_name(namespace[name])
            except BaseException as exc:  # a candidate's metaclass may raise
                names[name] = {"kind": "opaque", "reason": "could not be inspected: %s" % describe_exception(exc)}
    return names


def _isolate(link_fd, workdir, out_w, err_w, devnull):
    """Before the attempt: a session, stdio, no other descriptor, default signals, an empty
    environment, its working directory, not dumpable. Returns the link to the zygote."""
    os.setsid()
    seccomp.prctl(seccomp.PR_SET_PDEATHSIG, signal.SIGKILL)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    link = fcntl.fcntl(link_fd, fcntl.F_DUPFD_CLOEXEC, CALL_FD_MIN)
    # Every other descriptor closed (close_range where the kernel has it: no /proc listing).
    os.closerange(3, link)
    os.closerange(link + 1, 1 << 20)
    os.set_blocking(link, True)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the zygote ignores it; Python's default here
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(
        {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": workdir,
            "TMPDIR": workdir,
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
        }
    )
    os.environ.update(THREAD_ENV)
    tempfile.tempdir = workdir
    os.mkdir(workdir, 0o700)
    os.chdir(workdir)
    # The candidate first in line for the OOM killer of its memory cgroup, never the zygote.
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass
    # Not dumpable: another attempt (outside bubblewrap, same uid) cannot open this one's
    # descriptors or memory through /proc.
    seccomp.prctl(seccomp.PR_SET_DUMPABLE, 0)
    return socket.socket(fileno=link)


def _apply_limits(request, mode):
    global _limits
    cpu = max(1, int(request.get("cpuSeconds", 4)))
    limits = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_FSIZE, (int(request.get("fileSizeBytes", 16 << 20)),) * 2),
        (resource.RLIMIT_NOFILE, (int(request.get("openFiles", 256)),) * 2),
    ]
    if request.get("memoryBytes"):
        limits.append((resource.RLIMIT_AS, (int(request["memoryBytes"]),) * 2))
    if request.get("processes"):
        limits.append((resource.RLIMIT_NPROC, (int(request["processes"]),) * 2))
    for which, value in limits:
        try:
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass
    _limits = {
        "mode": mode,
        "memoryBytes": int(request.get("memoryBytes") or 0),
        "processes": int(request.get("processes") or 0),
        "fileSizeBytes": int(request.get("fileSizeBytes", 16 << 20)),
        "openFiles": int(request.get("openFiles", 256)),
    }


def standby(link_fd, workdir, out_w, err_w, mode, devnull):
    """A forked child ahead of its attempt: isolated, its working directory made and its seccomp
    filter loaded before the attempt arrives, so that only the limits and the code are left for
    the attempt's clock. Never returns."""
    own_pid = os.getpid()
    link = _isolate(link_fd, workdir, out_w, err_w, devnull)
    if not seccomp.install():
        # The call socket never comes: the zygote hands the attempt to a fresh standby or fails it.
        os._exit(71)
    call_sock = recv_fd(link)
    if call_sock is None:
        os._exit(0)
    sock_fd = fcntl.fcntl(call_sock, fcntl.F_DUPFD_CLOEXEC, CALL_FD_MIN + 1)
    os.close(call_sock)
    link.close()
    os.set_blocking(sock_fd, True)
    request = read_frame(sock_fd)
    if request is None or request.get("t") != "request":
        os._exit(0)
    _apply_limits(request, mode)
    run_code(request, sock_fd, own_pid)
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # the candidate may have replaced or broken them
            pass
    # Output complete: closed now, the zygote sees it end before the kernel tears this process's
    # memory down (~0.6 ms), and answers meanwhile.
    for fd in (1, 2):
        try:
            os.close(fd)
        except OSError:
            pass
    # Exit now: skip the candidate's atexit handlers and non-daemon threads.
    os._exit(0)
