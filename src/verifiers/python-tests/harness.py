"""vitest-seqk Python test harness and worker (Python 3.8+, standard library only).

Node starts this file as a long-lived *worker* (a "zygote"):

    python -S -B -X utf8 [-P] -c "<this source>" worker <bwrap|none> [once]

The source is passed with `-c`, not as a path, because the worker usually runs as another user
(uid 65534) that cannot read the project's directory (for example a checkout under /root).

Protocol, on the worker's stdin and stdout: frames of a 4-byte big-endian length and UTF-8 JSON.

    worker -> node  {"type": "ready", "pid", "version", "uid"}                   once, at start
    node -> worker  {"setup", "code", "tests", "timeoutMs", "maxOutputBytes",
                     "memoryBytes", "cpuSeconds", "fileSizeBytes", "openFiles",
                     "processes"}                                                 one per attempt
    worker -> node  {"type": "started", "pid", "workdir"}                         the attempt's pid
    worker -> node  {"type": "result", "result": "<the harness's JSON line>" | null,
                     "timedOut", "exitCode", "exitSignal", "stdout", "stderr",
                     "durationMs", "pid", "healthy"}

For every attempt the worker forks a child (about 1 ms; a whole verify through a warm worker takes
~4-5 ms against ~46-52 ms with a freshly started sandboxed interpreter, measured on a 2-core
development machine, see pool.test.ts) that takes a new session, gets a fresh temporary
working directory and an empty environment, applies resource limits (CPU, address space, file
size, open files, processes) and only then runs the candidate. The worker enforces the wall-clock
timeout, kills the child's whole process tree afterwards (inside bubblewrap: every process of the
sandbox's pid namespace but itself), reaps it, wipes the temporary files and answers. When
anything about that cleanup fails, the worker reports `healthy: false` and exits: Node starts a
fresh one. The worker itself never runs candidate code.

The child runs `run(request)`, which matches the official HumanEval Pro harness (candidate + tests
as one script, every statement passes) but runs each top-level test statement on its own, so that
one failure does not hide the others, and `assert CALL == EXPECTED` reports the call, the expected
and the actual value: the raw material of the paper's "Failed test details" feedback. The child
writes exactly one JSON line to a private pipe:

    {"outcome": "passed" | "failed" | "load-error" | "tests-error",
     "tests": [{"index", "source", "pass", "call"?, "expected"?, "actual"?, "error"?}],
     "error"?: "<text>"}

Why a private pipe and not stdout: candidate code prints freely (debug output, demos under
`if __name__ == "__main__"`), so stdout/stderr are left to the candidate and the result travels on
a channel it does not write to by accident. A candidate that sets out to forge that line can do
so (it runs in the same process as the tests); the verifier contains hostile code, it does not
make cheating impossible.
"""

import ast
import errno
import fcntl
import gc
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback

# Every repr and error text is cut to this many characters, so an enormous value (a list of a
# million items, a 10 MB string) cannot blow up the result line or the feedback prompt.
MAX_TEXT = 500

# Filenames given to compile(): they appear in tracebacks and let us find the candidate's frames.
CANDIDATE_FILE = "<candidate>"
SETUP_FILE = "<setup>"
TESTS_FILE = "<tests>"

# The limits of the running attempt, for the hints added to error messages (set in the child).
_LIMITS = {}


def _sigkill(kill, target):
    """SIGKILLs a process or group with `kill` (os.kill or os.killpg); one already gone is fine."""
    try:
        kill(target, signal.SIGKILL)
    except OSError:
        pass


def _cut(text):
    """Truncates to MAX_TEXT characters, saying how much was cut."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + "... [%d chars total]" % len(text)


def _safe_repr(value):
    """repr() that never raises: a broken __repr__ or a too-long int is reported, not fatal."""
    try:
        return _cut(repr(value))
    except BaseException as exc:  # noqa: BLE001 - a candidate's __repr__ may raise anything
        return _cut("<unrepresentable %s: %s>" % (type(value).__name__, _describe(exc)))


def _describe(exc):
    """`Type: message` on one logical line (what the feedback shows)."""
    try:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except BaseException:  # noqa: BLE001 - a candidate's exception may have a broken __str__
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
    return _cut(text)


def _limit_hint(exc):
    """Why an error happened, when a sandbox limit caused it: the candidate (and the model reading
    the feedback) should learn that the environment refused, not guess at a bug."""
    limits = _LIMITS
    if not limits:
        return ""
    if isinstance(exc, MemoryError):
        return " [sandbox: memory limit of %d MiB]" % (limits.get("memoryBytes", 0) // (1024 * 1024))
    if not isinstance(exc, OSError):
        return ""
    code = getattr(exc, "errno", None)
    if code == errno.EAGAIN and limits.get("processes"):
        return " [sandbox: at most %d processes]" % limits["processes"]
    if code == errno.EFBIG:
        return " [sandbox: file size limit of %d MiB]" % (limits.get("fileSizeBytes", 0) // (1024 * 1024))
    if code == errno.EMFILE:
        return " [sandbox: at most %d open files]" % limits.get("openFiles", 0)
    if code == errno.EROFS:
        return " [sandbox: the file system is read-only outside the working directory]"
    if code in (errno.EACCES, errno.EPERM):
        return " [sandbox: runs as an unprivileged user]"
    if limits.get("mode") == "bwrap":
        network = (errno.ENETUNREACH, errno.ENETDOWN, errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)
        if code in network or type(exc).__name__ == "gaierror":
            return " [sandbox: no network]"
        if code == errno.ENOENT and isinstance(getattr(exc, "filename", None), str) and exc.filename.startswith("/"):
            return " [sandbox: only the system directories and the working directory exist]"
    return ""


def _describe_with_line(exc, filename):
    """Like _describe, plus the deepest line of `filename` in the traceback: tells the model where
    its own code broke without dumping harness frames."""
    text = _describe(exc)
    if isinstance(exc, SyntaxError):
        return text
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is not None:
        text = _cut("%s (%s line %d)" % (text, filename.strip("<>"), line))
    return text + _limit_hint(exc)


def _exec_source(source, filename, namespace):
    code = compile(source, filename, "exec", dont_inherit=True)
    exec(code, namespace)  # noqa: S102 - executing the candidate is the point


def _segment(tests_source, node):
    """Source text of an AST node (3.8+: get_source_segment; 3.9+: unparse as a fallback)."""
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


def _eval_node(node, namespace):
    expression = ast.Expression(body=node)
    ast.fix_missing_locations(expression)
    return eval(compile(expression, TESTS_FILE, "eval", dont_inherit=True), namespace)  # noqa: S307


def _is_equality_assert(node):
    """`assert LEFT == RIGHT[, msg]`: the HumanEval Pro test shape we can explain in detail."""
    return (
        isinstance(node, ast.Assert)
        and isinstance(node.test, ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Eq)
        and len(node.test.comparators) == 1
    )


def _run_equality_assert(node, tests_source, namespace, record):
    """Evaluates the two sides separately, in Python's order (left, then right), each exactly once,
    so the verdict is the same as running the plain assert."""
    left = node.test.left
    right = node.test.comparators[0]
    record["call"] = _segment(tests_source, left)
    try:
        actual = _eval_node(left, namespace)
    except BaseException as exc:  # noqa: BLE001 - includes SystemExit/KeyboardInterrupt
        record["actual"] = _describe_with_line(exc, CANDIDATE_FILE)
        record["error"] = record["actual"]
        try:
            record["expected"] = _safe_repr(_eval_node(right, namespace))
        except BaseException:  # noqa: BLE001
            record["expected"] = _segment(tests_source, right)
        return
    record["actual"] = _safe_repr(actual)
    try:
        expected = _eval_node(right, namespace)
    except BaseException as exc:  # noqa: BLE001
        record["expected"] = _segment(tests_source, right)
        record["error"] = "could not evaluate the expected value: " + _describe(exc)
        return
    record["expected"] = _safe_repr(expected)
    try:
        # bool(...) because `assert` does the same: an __eq__ returning a truthy object passes.
        equal = bool(actual == expected)
    except BaseException as exc:  # noqa: BLE001 - a candidate's __eq__/__bool__ may raise
        record["error"] = "comparing the values raised " + _describe_with_line(exc, CANDIDATE_FILE)
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


def _run_statement(node, tests_source, namespace, record):
    """Any other top-level statement (imports, assignments, other asserts, try blocks)."""
    module = ast.Module(body=[node], type_ignores=[])
    try:
        exec(compile(module, TESTS_FILE, "exec", dont_inherit=True), namespace)  # noqa: S102
    except BaseException as exc:  # noqa: BLE001
        record["error"] = _describe_with_line(exc, CANDIDATE_FILE)
        return
    record["pass"] = True


def run(request):
    """Runs setup, candidate and each test statement in one fresh namespace; returns the result."""
    setup = request.get("setup") or ""
    code = request.get("code") or ""
    tests_source = request.get("tests") or ""

    # The tests are the task's, not the candidate's: if they do not parse, the task is broken.
    try:
        tests_tree = ast.parse(tests_source, TESTS_FILE)
    except SyntaxError as exc:
        return {"outcome": "tests-error", "tests": [], "error": _describe(exc)}

    # One fresh namespace for setup, candidate and tests, as if they were one script run as
    # __main__ (so a candidate's `if __name__ == "__main__":` demo runs, as in the official harness).
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}

    try:
        _exec_source(setup, SETUP_FILE, namespace)
    except BaseException as exc:  # noqa: BLE001
        return {"outcome": "tests-error", "tests": [], "error": "setup failed: " + _describe(exc)}

    try:
        _exec_source(code, CANDIDATE_FILE, namespace)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        return {"outcome": "load-error", "tests": [], "error": _describe_with_line(exc, CANDIDATE_FILE)}

    results = []
    for index, node in enumerate(tests_tree.body):
        record = {"index": index, "source": _segment(tests_source, node), "pass": False}
        if _is_equality_assert(node):
            _run_equality_assert(node, tests_source, namespace, record)
        else:
            _run_statement(node, tests_source, namespace, record)
        results.append(record)

    passed = all(r["pass"] for r in results)
    return {"outcome": "passed" if passed else "failed", "tests": results}


# ---------------------------------------------------------------------------------------------
# The worker.

# The result line is ours, but bounded anyway: tens of thousands of tests fit in 16 MiB.
MAX_RESULT_BYTES = 16 * 1024 * 1024
# Requests are small (code and tests); anything bigger is a protocol error.
MAX_REQUEST_BYTES = 64 * 1024 * 1024
# The result pipe sits at a high fd number, away from fds a candidate opens or closes by accident.
RESULT_FD_MIN = 200

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36

_prctl = None


def _load_prctl():
    """prctl(2) through ctypes, or None where ctypes or libc is unavailable (then best effort)."""
    global _prctl
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _prctl = libc.prctl
    except Exception:  # noqa: BLE001
        _prctl = None


def _call_prctl(option, value):
    if _prctl is not None:
        try:
            _prctl(option, value, 0, 0, 0)
        except Exception:  # noqa: BLE001
            pass


def _read_exact(fd, count):
    chunks = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def _write_frame(fd, message):
    body = json.dumps(message, ensure_ascii=True).encode("ascii")
    data = struct.pack(">I", len(body)) + body
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class _Capture:
    """Keeps the first and last halves of a stream up to `cap` bytes (a traceback sits at the end
    of stderr) and counts the rest."""

    def __init__(self, cap):
        self.cap = max(0, int(cap))
        self.head_cap = self.cap // 2
        self.tail_cap = self.cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def push(self, chunk):
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_cap > 0:
            self.tail += chunk
            if len(self.tail) > self.tail_cap:
                del self.tail[: len(self.tail) - self.tail_cap]

    def text(self):
        omitted = self.total - len(self.head) - len(self.tail)
        head = bytes(self.head).decode("utf-8", "replace")
        tail = bytes(self.tail).decode("utf-8", "replace")
        if omitted <= 0:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace")
        return "%s\n[... %d bytes omitted ...]\n%s" % (head, omitted, tail)


class _Worker:
    def __init__(self, mode):
        self.mode = mode  # 'bwrap': alone in a pid namespace; 'none': shares the host's
        self.pid = os.getpid()
        # Protocol fds are moved away from 0/1 so that nothing (a stray print, a child) can reach them.
        self.proto_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 10)
        self.proto_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 10)
        self.devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        os.dup2(self.devnull, 0)
        os.dup2(self.devnull, 1)
        # Inside bubblewrap /tmp is a private tmpfs that only attempts use: wiped whole after each.
        self.base_tmp = "/tmp" if mode == "bwrap" else tempfile.gettempdir()

    def serve(self):
        _write_frame(self.proto_out, {"type": "ready", "pid": self.pid, "uid": os.getuid(), "version": "%d.%d.%d" % sys.version_info[:3]})
        while True:
            header = _read_exact(self.proto_in, 4)
            if header is None:
                return 0  # Node closed the pipe: the pool is shutting down
            (length,) = struct.unpack(">I", header)
            if length > MAX_REQUEST_BYTES:
                return 2
            body = _read_exact(self.proto_in, length)
            if body is None:
                return 0
            request = json.loads(body.decode("utf-8"))
            response = self.attempt(request)
            _write_frame(self.proto_out, response)
            if not response.get("healthy", True):
                return 3  # Node replaces a worker that could not clean up after an attempt

    def _fork(self, deadline):
        """fork(), retried while the process table is full (a fork bomb elsewhere on the host)."""
        while True:
            try:
                return os.fork()
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def attempt(self, request):
        timeout = max(0.001, float(request.get("timeoutMs", 3000)) / 1000.0)
        cap = int(request.get("maxOutputBytes", 65536))
        workdir = tempfile.mkdtemp(prefix="seqk-py-", dir=self.base_tmp)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        started = time.monotonic()
        try:
            pid = self._fork(started + timeout)
        except OSError as exc:
            for fd in (out_r, out_w, err_r, err_w, res_r, res_w):
                os.close(fd)
            self._clean_workdir(workdir)
            return {"type": "result", "result": None, "error": "could not fork the attempt: %s" % exc, "healthy": False}
        if pid == 0:
            code = 70
            try:
                _child(request, workdir, out_w, err_w, res_w, self)
            except BaseException:  # noqa: BLE001
                try:
                    traceback.print_exc()
                except BaseException:  # noqa: BLE001
                    pass
            finally:
                os._exit(code)

        for fd in (out_w, err_w, res_w):
            os.close(fd)
        # The workdir too: if the worker dies mid-attempt (a candidate can kill it), Node removes it.
        _write_frame(self.proto_out, {"type": "started", "pid": pid, "workdir": workdir})
        stdout, stderr, result = _Capture(cap), _Capture(cap), bytearray()
        result_overflow = False
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pidfd = None
        poller = select.poll()
        streams = {out_r: stdout, err_r: stderr, res_r: None}
        for fd in streams:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        deadline = started + timeout
        open_fds = set(streams)
        timed_out = False

        def drain(fd, once):
            """Reads what `fd` holds; False at end of file. `once`: one chunk (the poll loop)."""
            nonlocal result_overflow
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    return True
                except OSError:
                    chunk = b""
                if not chunk:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    return False
                sink = streams[fd]
                if sink is not None:
                    sink.push(chunk)
                elif len(result) + len(chunk) <= MAX_RESULT_BYTES:
                    result.extend(chunk)
                else:
                    result_overflow = True
                if once:
                    return True

        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            # Without a pidfd (Python 3.8, old kernels) the child's exit is noticed by polling.
            wait_ms = remaining * 1000 if pidfd is not None else min(remaining * 1000, 5)
            for fd, _event in poller.poll(max(1, int(wait_ms))):
                if fd in open_fds:
                    drain(fd, True)
            # WNOWAIT: noticed but not reaped yet, so its pid (and group id) cannot be reused
            # before the group is killed below.
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break
        duration = (time.monotonic() - started) * 1000
        self._kill_tree(pid)
        status = self._reap(pid)
        healthy = self._reap_orphans()
        # Everything that could write is dead: what it wrote before is still in the pipes.
        for fd in list(open_fds):
            drain(fd, False)
        for fd in (out_r, err_r, res_r):
            os.close(fd)
        if pidfd is not None:
            os.close(pidfd)
        healthy = self._clean_workdir(workdir) and healthy
        exit_code = exit_signal = None
        if status is not None:
            if os.WIFEXITED(status):
                exit_code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                exit_signal = os.WTERMSIG(status)
        return {
            "type": "result",
            "result": None if result_overflow else bytes(result).decode("utf-8", "replace"),
            "timedOut": timed_out,
            "exitCode": exit_code,
            "exitSignal": exit_signal,
            "stdout": stdout.text(),
            "stderr": stderr.text(),
            "durationMs": duration,
            "pid": pid,
            "healthy": healthy,
        }

    def _kill_tree(self, pid):
        """Kills the attempt and everything it started, whatever session or group it moved to."""
        _sigkill(os.killpg, pid)
        _sigkill(os.kill, pid)
        if self.mode == "bwrap":
            # Alone in the pid namespace with bubblewrap's init: kill(-1) reaches every other
            # process here, atomically with respect to fork(), so nothing escapes by double-forking.
            for _ in range(2):
                _sigkill(os.kill, -1)

    def _reap(self, pid):
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None

    def _reap_orphans(self):
        """Reaps and kills what is left. The worker is a child subreaper, so every process the
        attempt left behind (double-forked daemons too) is re-parented here and can be found."""
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                while True:
                    waited, _ = os.waitpid(-1, os.WNOHANG)
                    if waited == 0:
                        break
            except ChildProcessError:
                return True  # no children left at all: the common, fast case
            for child in _children_of(self.pid):
                try:
                    _sigkill(os.killpg, os.getpgid(child))
                except OSError:
                    pass  # already gone
                _sigkill(os.kill, child)
            if self.mode == "bwrap":
                _sigkill(os.kill, -1)
            time.sleep(0.002)
        return False

    def _clean_workdir(self, workdir):
        """Removes the attempt's files (inside bubblewrap: everything in the private /tmp)."""
        targets = [workdir]
        if self.mode == "bwrap":
            try:
                targets = [os.path.join(self.base_tmp, name) for name in os.listdir(self.base_tmp)]
            except OSError:
                return False
        for path in targets:
            _remove(path)
        if self.mode == "bwrap":
            try:
                return not os.listdir(self.base_tmp)
            except OSError:
                return False
        return not os.path.lexists(workdir)


def _remove(path):
    """rm -rf that also undoes a candidate's chmod (its files are the worker's uid)."""
    if os.path.islink(path) or not os.path.isdir(path):
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    try:
        os.chmod(path, 0o700)
        for root, dirs, _files in os.walk(path):
            for name in dirs:
                child = os.path.join(root, name)
                if not os.path.islink(child):
                    os.chmod(child, 0o700)
    except OSError:
        pass
    shutil.rmtree(path, ignore_errors=True)


def _children_of(parent):
    """Live children of `parent` from /proc (zombies are left to waitpid)."""
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 2 and fields[0] != b"Z" and int(fields[1]) == parent:
            found.append(int(name))
    return found


def _child(request, workdir, out_w, err_w, res_w, worker):
    """The attempt, in the forked child: isolate, limit, run, write the result line, exit."""
    global _LIMITS
    own_pid = os.getpid()
    os.setsid()  # its own session and process group: the worker kills the whole group afterwards
    # If the worker dies (killed by a candidate, or Node went away), the attempt dies with it.
    _call_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.dup2(worker.devnull, 0)  # stdin is empty: input() raises EOFError instead of waiting
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    result_fd = fcntl.fcntl(res_w, fcntl.F_DUPFD_CLOEXEC, RESULT_FD_MIN)
    keep = {0, 1, 2, result_fd}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    # Past the file size limit, writes fail with EFBIG (an exception with a hint), not a signal.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    os.chdir(workdir)
    os.environ.clear()
    # PYTHONHASHSEED=0 as for the worker itself: Python subprocesses of the attempt hash alike.
    os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})
    tempfile.tempdir = workdir


    cpu = max(1, int(request.get("cpuSeconds", 4)))
    limits = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),  # SIGXCPU first, SIGKILL a second later
        (resource.RLIMIT_CORE, (0, 0)),  # no core files in the working directory
        (resource.RLIMIT_FSIZE, (int(request.get("fileSizeBytes", 16 << 20)),) * 2),
        (resource.RLIMIT_NOFILE, (int(request.get("openFiles", 256)),) * 2),
    ]
    if request.get("memoryBytes"):
        limits.append((resource.RLIMIT_AS, (int(request["memoryBytes"]),) * 2))
    if request.get("processes"):
        limits.append((resource.RLIMIT_NPROC, (int(request["processes"]),) * 2))
    for which, value in limits:
        try:
            # soft = hard: the candidate cannot raise them back (it has no CAP_SYS_RESOURCE).
            resource.setrlimit(which, value)
        except (ValueError, OSError):
            pass
    _LIMITS = {
        "mode": worker.mode,
        "memoryBytes": int(request.get("memoryBytes") or 0),
        "processes": int(request.get("processes") or 0),
        "fileSizeBytes": int(request.get("fileSizeBytes", 16 << 20)),
        "openFiles": int(request.get("openFiles", 256)),
    }
    try:
        result = run(request)
    except BaseException as exc:  # noqa: BLE001 - a harness bug must still produce a result line
        result = {"outcome": "tests-error", "tests": [], "error": "harness error: " + _describe(exc)}
    if os.getpid() != own_pid:
        # A copy made by the candidate's os.fork() ran the tests too: only the original reports.
        os._exit(0)
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the candidate may have replaced or closed them
            pass
    # ensure_ascii: the line is plain ASCII whatever the candidate returned (lone surrogates too).
    line = (json.dumps(result, ensure_ascii=True) + "\n").encode("ascii")
    view = memoryview(line)
    try:
        while view:
            view = view[os.write(result_fd, view) :]
    except OSError:
        pass
    # Exit now: skip the candidate's atexit handlers and non-daemon threads, which could hang or
    # print after the verdict.
    os._exit(0)


def _preload():
    """Modules candidates and tests commonly import, loaded once per worker so that each forked
    attempt finds them in sys.modules (typing alone costs ~20 ms to import)."""
    for name in ("typing", "collections", "math", "re", "itertools", "functools", "heapq", "bisect", "string", "copy", "operator", "random"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001
            pass


def main(argv):
    mode = argv[2] if len(argv) > 2 else "none"
    # "once": a worker that serves a single attempt (spawn per verify) skips the preloading that
    # only pays off over many forks.
    once = len(argv) > 3 and argv[3] == "once"
    _load_prctl()
    # Not dumpable: a candidate (same uid) cannot read the worker's memory or open its
    # /proc/<pid>/fd entries to reach the protocol pipes.
    _call_prctl(PR_SET_DUMPABLE, 0)
    # Child subreaper: orphans of an attempt are re-parented to the worker, which kills them.
    _call_prctl(PR_SET_CHILD_SUBREAPER, 1)
    # When Node dies, the worker dies (outside bubblewrap nothing else would kill it).
    _call_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if not once:
        _preload()
    worker = _Worker(mode)
    if not once and hasattr(gc, "freeze"):
        # Nothing the worker allocated so far will be freed: keep it out of the collector, so
        # forked attempts do not touch (and copy) those pages.
        gc.collect()
        gc.freeze()
    return worker.serve()


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "worker":
    sys.exit(main(sys.argv))
