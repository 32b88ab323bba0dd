"""vitest-seqk candidate worker (Python 3.8+, standard library only). Runs candidate code; never
sees a test.

The judge (judge.py) starts this as a long-lived *zygote*, inside bubblewrap when sandboxed:

    python -S -B -X utf8 [-P] -c "<codec.py + this source>" worker <bwrap|none> [once]

fd 0 is a Unix socket to the judge (the control channel); frames as in codec.py.

    worker -> judge  {"t": "ready", "pid", "uid", "version", "seccomp"}                 once
    judge -> worker  {"t": "attempt", "code", "setup", "names", "timeoutMs", "maxOutputBytes",
                      "memoryBytes", "cpuSeconds", "fileSizeBytes", "openFiles", "processes"},
                     the attempt's call socket attached to its first bytes (SCM_RIGHTS)
    worker -> judge  {"t": "started", "pid", "workdir"}
    judge -> worker  {"t": "finish"}   the judge has its verdict: report once the output is in
                     {"t": "kill"}     the judge's deadline passed
    worker -> judge  {"t": "result", "timedOut", "killed", "exitCode", "exitSignal", "stdout",
                      "stderr", "durationMs", "healthy"}

For every attempt the zygote has forked a child ahead of time (the fork and the isolation are off
the attempt's clock): it took a new session, a fresh working directory and an empty environment,
and once the request arrives it takes resource limits and a seccomp filter and only then runs the
candidate. The zygote enforces the wall-clock limit, kills the child's whole process tree
afterwards (inside bubblewrap, where the zygote is the namespace's pid 1: every other process),
reaps it, wipes the temporary files and answers. When cleanup fails it reports `healthy: false`
and exits, and the judge starts a fresh one.

The child speaks to the judge on its own call socket (made for this attempt alone):

    child -> judge   {"t": "armed"} | {"t": "setup-error", "error"}  before any candidate code runs
    child -> judge   {"t": "loaded", "names": {name: descriptor}} | {"t": "loaded", "error": text}
    judge -> child   {"t": "call", "id", "name", "args", "kwargs"}   arguments as plain values
    child -> judge   {"t": "return", "id", "value", "args", "kwargs"}  (arguments after the call)
                     | {"t": "raise", "id", "exception": {...}} | {"t": "notplain", "id", "reason"}
    judge -> child   {"t": "end"}

Everything the child sends is the candidate's word: the judge checks each frame and decodes
every value with its own types, so a lie can only fail the candidate's own tests.

Why the zygote cannot be reached by the candidate: with `--as-pid-1` it is the namespace's init
(no bubblewrap init holding descriptors), it is not dumpable (no /proc/<pid>/fd, no ptrace), and
the candidate's seccomp filter refuses ptrace, pidfd_getfd, process_vm_* and kcmp outright.
"""

import builtins
import ctypes
import errno
import fcntl
import gc
import os
import platform
import resource
import select
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
import traceback

CANDIDATE_FILE = "<candidate>"
SETUP_FILE = "<setup>"
# The call socket sits at a high fd number, away from fds a candidate opens or closes by accident.
CALL_FD_MIN = 200
# After the judge's "finish", how long the attempt's process may take to flush and exit.
FINISH_GRACE = 0.5

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# Syscalls refused with EPERM: every way to reach another process's descriptors or memory
# (ptrace, pidfd_getfd, pidfd_open, process_vm_*, kcmp, process_madvise), System V IPC (a shared
# memory segment outlives the attempt and stays charged to the worker), and kernel surfaces no test
# needs (io_uring, bpf, perf, userfaultfd, namespaces, mounts, keys, modules, file handles).
_DENIED = {
    "x86_64": (
        0xC000003E,
        [101, 310, 311, 312, 438, 434, 440, 425, 426, 427, 321, 298, 323, 308, 272, 165, 166, 155, 161, 250, 248, 249, 304, 303, 246, 320, 175, 313, 176]
        + [29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220],
    ),
    "aarch64": (
        0xC00000B7,
        [117, 270, 271, 272, 438, 434, 440, 425, 426, 427, 280, 241, 282, 268, 97, 40, 39, 41, 51, 219, 217, 218, 265, 264, 104, 294, 105, 273, 106]
        + [186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197],
    ),
}

_libc = None
_LIMITS = {}


def _load_libc():
    global _libc
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
    except Exception:  # noqa: BLE001
        _libc = None


def _prctl(option, value, arg3=0):
    if _libc is None:
        return -1
    try:
        # Every argument as an unsigned long: a pointer passed as a plain int would be cut to 32 bits.
        return _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0))
    except Exception:  # noqa: BLE001
        return -1


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _seccomp_program():
    """A classic-BPF filter: kill a foreign architecture (no i386/x32 detours), refuse the denied
    syscalls with EPERM, allow the rest. None where the architecture is unknown."""
    arch = _DENIED.get(platform.machine())
    if arch is None:
        return None
    audit_arch, denied = arch
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    eperm = 0x00050000 | errno.EPERM
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit_arch), (ret, 0, 0, 0x80000000), (ld, 0, 0, 0)]
    if platform.machine() == "x86_64":
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # the x32 ABI
    for number in denied:
        prog += [(jeq, 0, 1, number), (ret, 0, 0, eperm)]
    prog.append((ret, 0, 0, 0x7FFF0000))
    return prog


_FILTER = None


def build_seccomp():
    """The filter as a ctypes program, built once in the zygote before it forks (building it per
    attempt cost ~0.2 ms); None where it cannot be built."""
    global _FILTER
    prog = _seccomp_program()
    if prog is None or _libc is None:
        return None
    filters = (_SockFilter * len(prog))(*[_SockFilter(*ins) for ins in prog])
    _FILTER = (filters, _SockFprog(len(prog), filters))
    return _FILTER


def install_seccomp():
    """Loads the filter into this process (and so every process it starts). True on success."""
    built = _FILTER or build_seccomp()
    if built is None:
        return False
    if _prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        return False
    return _prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(built[1])) == 0


def _sigkill(kill, target):
    try:
        kill(target, signal.SIGKILL)
    except OSError:
        pass


_cut = cut
_describe = describe_exception


def _limit_hint(exc):
    """Why an error happened, when a sandbox limit caused it: the model reading the feedback
    should learn that the environment refused, not guess at a bug."""
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


def _candidate_line(exc):
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CANDIDATE_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe_with_line(exc):
    text = _describe(exc)
    if isinstance(exc, SyntaxError):
        return text
    line = _candidate_line(exc)
    if line is not None:
        text = _cut("%s (candidate line %d)" % (text, line))
    return text + _limit_hint(exc)


# ---------------------------------------------------------------------------------------------
# The attempt: the candidate's process.

# Modules whose objects the judge loads itself, by name, when the candidate's namespace holds them
# (pure standard-library modules: nothing the candidate names can make the judge touch files).
_MUTABLE = (list, dict, set, bytearray)


def _describe_name(value):
    """What the judge needs to know about one of the candidate's names."""
    if isinstance(value, type(os)):
        return {"kind": "module", "module": str(getattr(value, "__name__", ""))[:200]}
    if isinstance(value, type):
        if issubclass(value, BaseException):
            base = next((c.__name__ for c in value.__mro__ if getattr(builtins, c.__name__, None) is c), "Exception")
            return {"kind": "exception", "base": base}
        module = getattr(value, "__module__", "")
        if module != "__main__":
            return {"kind": "class", "module": str(module)[:200], "qualname": str(getattr(value, "__qualname__", ""))[:200]}
        return {"kind": "callable"}
    if callable(value):
        return {"kind": "callable"}
    try:
        return {"kind": "value", "value": encode(value)}
    except NotPlain as exc:
        return {"kind": "opaque", "reason": str(exc)}


def _exception_record(exc, namespace):
    """A raised exception as the judge rebuilds it: the nearest built-in class in its MRO, the
    candidate's own exception classes the tests can name, the message and the candidate's line."""
    mro = type(exc).__mro__
    builtin = next((c.__name__ for c in mro if getattr(builtins, c.__name__, None) is c), "Exception")
    named = []
    for cls in mro:
        name = getattr(cls, "__name__", None)
        if isinstance(name, str) and namespace.get(name) is cls and getattr(builtins, name, None) is not cls:
            named.append(name)
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001
        message = ""
    line = _candidate_line(exc)
    return {"class": type(exc).__name__[:200], "builtin": builtin, "named": named[:20], "message": _cut(message), "text": _describe(exc) + _limit_hint(exc), "line": line}


def _serve_calls(sock_fd, namespace, own_pid):
    """Answers the judge's calls until it says "end"."""
    lookup = namespace.get
    names_of = {}

    def ref(value):
        """A function of the candidate's inside a mutated argument goes back by name."""
        if not names_of:
            for key, item in namespace.items():
                if callable(item) and not isinstance(item, type):
                    names_of.setdefault(id(item), key)
        return names_of.get(id(value))

    def resolve(name):
        target = lookup(name)
        if target is None:
            raise ProtocolError("no function %r" % name)
        return target

    while True:
        message = read_frame(sock_fd)
        if message is None or message.get("t") != "call" or os.getpid() != own_pid:
            return
        call_id = message.get("id")
        name = message.get("name")
        try:
            args = decode(message.get("args", ["l", []]), resolve)
            kwargs = decode(message.get("kwargs", ["d", []]), resolve)
        except ProtocolError as exc:
            write_frame(sock_fd, {"t": "notplain", "id": call_id, "reason": "could not read the arguments: %s" % exc})
            continue
        target = lookup(name) if isinstance(name, str) else None
        if target is None:
            reply = {"t": "raise", "id": call_id, "exception": {"class": "NameError", "builtin": "NameError", "named": [], "message": "name %r is not defined" % name, "text": "NameError: name %r is not defined" % name, "line": None}}
        else:
            try:
                value = target(*args, **{str(k): v for k, v in kwargs.items()})
            except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
                if os.getpid() != own_pid:
                    os._exit(0)  # a copy made by the candidate's os.fork() never answers
                reply = {"t": "raise", "id": call_id, "exception": _exception_record(exc, namespace)}
            else:
                if os.getpid() != own_pid:
                    os._exit(0)
                try:
                    after = [encode(a, ref) if type(a) in _MUTABLE else None for a in args]
                    reply = {"t": "return", "id": call_id, "value": encode(value), "args": after}
                except NotPlain as exc:
                    reply = {"t": "notplain", "id": call_id, "reason": "returned %s" % exc}
                except RecursionError:
                    reply = {"t": "notplain", "id": call_id, "reason": "returned a value nested too deeply to send"}
        write_frame(sock_fd, reply)


def _run_attempt(request, sock_fd, own_pid):
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    setup = request.get("setup") or ""
    if setup:
        # The task's own lines (prependSetup): a failure here is the task's, said before "armed",
        # so no candidate code can have written it.
        try:
            exec(compile(setup, SETUP_FILE, "exec", dont_inherit=True), namespace)  # noqa: S102
        except BaseException as exc:  # noqa: BLE001
            write_frame(sock_fd, {"t": "setup-error", "error": _describe(exc)})
            return
    write_frame(sock_fd, {"t": "armed"})
    # From here on, candidate code runs in this process: nothing it does reaches the judge except
    # through the frames below, which the judge treats as the candidate's word.
    try:
        exec(compile(request.get("code") or "", CANDIDATE_FILE, "exec", dont_inherit=True), namespace)  # noqa: S102
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt included
        if os.getpid() != own_pid:
            os._exit(0)
        if isinstance(exc, SystemExit):
            text = "the code called exit(%s) while loading, so no test ran" % _cut(repr(exc.code))
        else:
            text = _describe_with_line(exc)
        write_frame(sock_fd, {"t": "loaded", "error": text})
        return
    if os.getpid() != own_pid:
        os._exit(0)
    names = {}
    for name in request.get("names") or []:
        if isinstance(name, str) and name in namespace:
            try:
                names[name] = _describe_name(namespace[name])
            except BaseException as exc:  # noqa: BLE001 - a candidate's metaclass may raise
                names[name] = {"kind": "opaque", "reason": "could not be inspected: %s" % _describe(exc)}
    write_frame(sock_fd, {"t": "loaded", "names": names})
    _serve_calls(sock_fd, namespace, own_pid)


def _standby(control_fd, workdir, out_w, err_w, worker):
    """A forked child ahead of its attempt (see _Worker._prefork): isolated already, waiting for
    the attempt's request and call socket, so the fork and most of the set-up are off the
    attempt's clock. Then: limits, seccomp, the candidate, its calls, exit."""
    global _LIMITS
    own_pid = os.getpid()
    os.setsid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.dup2(worker.devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    control = fcntl.fcntl(control_fd, fcntl.F_DUPFD_CLOEXEC, CALL_FD_MIN)
    # Every other descriptor closed (close_range where the kernel has it: no /proc listing).
    os.closerange(3, control)
    os.closerange(control + 1, 1 << 20)
    os.set_blocking(control, True)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # the zygote ignores it; Python's default here
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})
    tempfile.tempdir = workdir
    # The candidate first in line for the OOM killer of its memory cgroup, never the zygote.
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass
    # Not dumpable: another attempt (outside bubblewrap, same uid) cannot open this one's
    # descriptors or memory through /proc.
    _prctl(PR_SET_DUMPABLE, 0)

    # Wait for the attempt: its call socket, then its request (the zygote's own frames).
    link = socket.socket(fileno=control)
    call_sock = _recv_fd(link)
    request = read_frame(control) if call_sock is not None else None
    if request is None:
        os._exit(0)
    # The working directory exists only once there is an attempt: a standby that is never used
    # (its worker stopped) leaves nothing behind in a shared /tmp.
    os.mkdir(workdir, 0o700)
    os.chdir(workdir)
    sock_fd = fcntl.fcntl(call_sock, fcntl.F_DUPFD_CLOEXEC, CALL_FD_MIN)
    os.close(call_sock)
    link.close()
    os.set_blocking(sock_fd, True)
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
    _LIMITS = {"mode": worker.mode, "memoryBytes": int(request.get("memoryBytes") or 0), "processes": int(request.get("processes") or 0), "fileSizeBytes": int(request.get("fileSizeBytes", 16 << 20)), "openFiles": int(request.get("openFiles", 256))}
    if not install_seccomp():
        # No "armed" frame: the judge knows our own set-up failed before any candidate code ran.
        os._exit(71)
    _run_attempt(request, sock_fd, own_pid)
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001
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


# ---------------------------------------------------------------------------------------------
# The zygote.


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
        if omitted <= 0:
            return (bytes(self.head) + bytes(self.tail)).decode("utf-8", "replace")
        head = bytes(self.head).decode("utf-8", "replace")
        tail = bytes(self.tail).decode("utf-8", "replace")
        return "%s\n[... %d bytes omitted ...]\n%s" % (head, omitted, tail)


def _recv_fd(sock):
    """The one descriptor the judge sends ahead of an attempt, or None at end of file."""
    data, ancillary, _flags, _addr = sock.recvmsg(1, socket.CMSG_LEN(4))
    if not data:
        return None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS and len(payload) >= 4:
            return int.from_bytes(payload[:4], sys.byteorder)
    raise ProtocolError("an attempt without its call socket")


def _recv_frame_with_fd(sock):
    """The judge's next frame and the descriptor sent with its first bytes (an attempt's call
    socket), or None at end of file."""
    header = b""
    fd = None
    while len(header) < 4:
        data, ancillary, _flags, _addr = sock.recvmsg(4 - len(header), socket.CMSG_LEN(4))
        if not data:
            return None
        header += data
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS and len(payload) >= 4:
                fd = int.from_bytes(payload[:4], sys.byteorder)
    (length,) = struct.unpack(">I", header)
    if length > MAX_FRAME_BYTES:
        raise ProtocolError("a frame of %d bytes from the judge" % length)
    body = read_exact(sock.fileno(), length)
    if body is None:
        return None
    return parse_body(body), fd


class _Worker:
    def __init__(self, mode, once=False):
        self.mode = mode  # 'bwrap': pid 1 of its own pid namespace; 'none': shares the host's
        self.pid = os.getpid()
        self.control_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 10)
        self.control = socket.socket(fileno=os.dup(self.control_fd))
        os.set_inheritable(self.control.fileno(), False)
        self.devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        os.dup2(self.devnull, 0)
        os.dup2(self.devnull, 1)
        self.base_tmp = "/tmp" if mode == "bwrap" else tempfile.gettempdir()
        self.once = once
        # The next attempt's process, forked ahead (pid, link, stdout, stderr, workdir).
        self.standby = None
        # The last attempt still to be reaped (answered early, see _finish_fast).
        self.reap_pending = False

    def serve(self):
        write_frame(self.control_fd, {"t": "ready", "pid": self.pid, "uid": os.getuid(), "version": "%d.%d.%d" % sys.version_info[:3], "seccomp": _FILTER is not None})
        while True:
            if not self.once and self.standby is None:
                self._prefork()
            received = _recv_frame_with_fd(self.control)
            if received is None:
                return 0
            request, fd = received
            if request.get("t") != "attempt" or fd is None:
                # A "finish" or "kill" that crossed an attempt's end: nothing left to act on.
                if fd is not None:
                    os.close(fd)
                continue
            if not self.attempt(request, fd):
                return 3

    def _fork(self, deadline):
        while True:
            try:
                return os.fork()
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def _prefork(self, deadline=None):
        """Forks the next attempt's process ahead of its request (see _standby). None on success,
        else why not."""
        # Named now, made by the standby when its attempt arrives (O_EXCL semantics of mkdir: a
        # name taken meanwhile fails that attempt's set-up, before any candidate code).
        workdir = os.path.join(self.base_tmp, "seqk-py-" + os.urandom(8).hex())
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        try:
            pid = self._fork(deadline if deadline is not None else time.monotonic() + 1.0)
        except OSError as exc:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            ours.close()
            theirs.close()
            self._clean_workdir(workdir)
            return "could not fork the attempt: %s" % exc
        if pid == 0:
            try:
                ours.close()
                _standby(theirs.fileno(), workdir, out_w, err_w, self)
            except BaseException:  # noqa: BLE001
                try:
                    traceback.print_exc()
                except BaseException:  # noqa: BLE001
                    pass
            finally:
                os._exit(70)
        for fd in (out_w, err_w):
            os.close(fd)
        theirs.close()
        self.standby = (pid, ours, out_r, err_r, workdir)
        return None

    def attempt(self, request, call_sock):
        """Runs one attempt and writes its result frame; False when the zygote must be replaced."""
        timeout = max(0.001, float(request.get("timeoutMs", 3000)) / 1000.0)
        cap = int(request.get("maxOutputBytes", 65536))
        if self.reap_pending:
            # The previous attempt was doomed (kill(-1)) before its answer; its teardown ran while
            # the judge reported it. Gone now, before this attempt's code runs.
            self.reap_pending = False
            if not self._reap_orphans():
                os.close(call_sock)
                write_frame(self.control_fd, {"t": "result", "error": "the previous attempt's processes did not die", "healthy": False})
                return False
        else:
            self._reap_ready()
        started = time.monotonic()
        handed = False
        for _ in range(2):
            if self.standby is None:
                problem = self._prefork(started + timeout)
                if problem is not None:
                    os.close(call_sock)
                    write_frame(self.control_fd, {"t": "result", "error": problem, "healthy": False})
                    return False
            pid, link, out_r, err_r, workdir = self.standby
            self.standby = None
            try:
                link.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", call_sock))])
                write_frame(link.fileno(), request)
                handed = True
            except OSError:
                # The standby died waiting (it cannot be signalled from inside; a host OOM): anew.
                _sigkill(os.kill, pid)
                self._reap(pid)
                for fd in (out_r, err_r):
                    os.close(fd)
                self._clean_workdir(workdir)
            link.close()
            if handed:
                break
        os.close(call_sock)
        if not handed:
            write_frame(self.control_fd, {"t": "result", "error": "could not hand the attempt to its process", "healthy": False})
            return False
        started = time.monotonic()
        write_frame(self.control_fd, {"t": "started", "pid": pid, "workdir": workdir})
        stdout, stderr = _Capture(cap), _Capture(cap)
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pidfd = None
        poller = select.poll()
        streams = {out_r: stdout, err_r: stderr}
        for fd in streams:
            os.set_blocking(fd, False)
            poller.register(fd, select.POLLIN)
        poller.register(self.control_fd, select.POLLIN)
        if pidfd is not None:
            poller.register(pidfd, select.POLLIN)
        deadline = started + timeout
        open_fds = set(streams)
        timed_out = killed = finishing = need_status = False

        def drain(fd, once):
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                    return
                streams[fd].push(chunk)
                if once:
                    return

        exited = False
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = not finishing
                killed = finishing
                break
            wait_ms = remaining * 1000 if pidfd is not None else min(remaining * 1000, 5)
            stop = False
            for fd, _event in poller.poll(max(1, int(wait_ms))):
                if fd in open_fds:
                    drain(fd, True)
                elif fd == self.control_fd:
                    try:
                        message = read_frame(self.control_fd)
                    except ProtocolError:
                        message = None
                    if message is not None and message.get("t") == "finish" and not finishing:
                        # The judge has its verdict: done once the output is complete (both
                        # streams closed, as the process flushed and exited) or it exits. A
                        # verdict that the process ended (a load error) needs how it ended:
                        # the streams close a moment before the exit can be reaped.
                        finishing = True
                        need_status = bool(message.get("status"))
                        deadline = min(deadline, time.monotonic() + FINISH_GRACE)
                    else:
                        # The judge's deadline passed (it names the call), or it went away.
                        killed = True
                        stop = True
                        if message is None:
                            poller.unregister(self.control_fd)
            if stop:
                break
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                exited = True
                break
            if finishing and not open_fds and not need_status:
                break
        duration = (time.monotonic() - started) * 1000
        early = finishing and not exited and not open_fds and not killed and not need_status
        if early:
            # The verdict is complete: answer first, clean up while the judge reports it.
            write_frame(self.control_fd, {"t": "result", "timedOut": False, "killed": False, "exitCode": None, "exitSignal": None, "stdout": stdout.text(), "stderr": stderr.text(), "durationMs": duration, "healthy": True})
            if self.mode == "bwrap":
                return self._finish_fast(pid, (out_r, err_r), pidfd, workdir)
        self._kill_tree(pid)
        status = self._reap(pid)
        healthy = self._reap_orphans()
        for fd in list(open_fds):
            drain(fd, False)
        for fd in (out_r, err_r):
            os.close(fd)
        if pidfd is not None:
            os.close(pidfd)
        healthy = self._clean_workdir(workdir) and healthy
        if early:
            return healthy
        exit_code = exit_signal = None
        if status is not None:
            if os.WIFEXITED(status):
                exit_code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                exit_signal = os.WTERMSIG(status)
        write_frame(self.control_fd, {"t": "result", "timedOut": timed_out, "killed": killed, "exitCode": exit_code, "exitSignal": exit_signal, "stdout": stdout.text(), "stderr": stderr.text(), "durationMs": duration, "healthy": healthy})
        # The next attempt's process, forked while the judge reports this one.
        if healthy and not self.once:
            self._prefork()
        return healthy

    def _finish_fast(self, pid, fds, pidfd, workdir):
        """After an early answer inside bubblewrap: kill(-1) dooms every process of the attempt
        at once (SIGKILL, atomically with respect to fork), so the files can go and the next
        standby be forked without waiting for the kernel to tear this process down; its zombie
        is reaped at the next sweep."""
        self._kill_tree(pid)
        if not self.once:
            self._prefork()
        for fd in fds:
            os.close(fd)
        if pidfd is not None:
            os.close(pidfd)
        healthy = self._clean_workdir(workdir)
        # Reaped before the next attempt's code runs (see attempt()): nothing of this one may
        # still hold memory in the cgroup or count against the process limit then.
        self.reap_pending = True
        self._reap_ready()
        return healthy

    def _reap_ready(self):
        """Reaps the zombies there are now, without waiting (a dead standby is dropped). False
        when this process has no child left at all."""
        spare = self.standby[0] if self.standby is not None else None
        try:
            while True:
                waited, _ = os.waitpid(-1, os.WNOHANG)
                if waited == 0:
                    return True
                if waited == spare:
                    self._drop_standby()
                    spare = None
        except ChildProcessError:
            return False

    def _kill_tree(self, pid):
        _sigkill(os.killpg, pid)
        _sigkill(os.kill, pid)
        if self.mode == "bwrap":
            # The namespace's init: kill(-1) reaches every other process here, atomically with
            # respect to fork(), so nothing escapes by double-forking.
            for _ in range(2):
                _sigkill(os.kill, -1)

    def _reap(self, pid):
        try:
            return os.waitpid(pid, 0)[1]
        except ChildProcessError:
            return None

    def _reap_orphans(self):
        """Reaps and kills what is left of the attempt (the zygote is a subreaper, or the
        namespace's init, so every orphan comes back to it), sparing the standby. True when
        nothing of the attempt is left within 2 s."""
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            if not self._reap_ready():
                return True
            spare = self.standby[0] if self.standby is not None else None
            others = [child for child in self._children() if child != spare]
            if not others:
                return True
            for child in others:
                try:
                    _sigkill(os.killpg, os.getpgid(child))
                except OSError:
                    pass
                _sigkill(os.kill, child)
            time.sleep(0.002)
        return False

    def _children(self):
        """This process's children, from /proc/self/task/<pid>/children (one read), else a scan."""
        try:
            with open("/proc/self/task/%d/children" % self.pid) as handle:
                return [int(pid) for pid in handle.read().split()]
        except (OSError, ValueError):
            return _children_of(self.pid)

    def _drop_standby(self):
        """Forgets a standby that died (it is re-forked before the next attempt)."""
        if self.standby is None:
            return
        _pid, link, out_r, err_r, workdir = self.standby
        self.standby = None
        link.close()
        for fd in (out_r, err_r):
            try:
                os.close(fd)
            except OSError:
                pass
        _remove(workdir)

    def _clean_workdir(self, workdir):
        """Removes the attempt's files (inside bubblewrap: everything in the private /tmp but the
        standby's fresh directory)."""
        keep = self.standby[4] if self.standby is not None else None
        targets = [workdir]
        if self.mode == "bwrap":
            try:
                targets = [os.path.join(self.base_tmp, name) for name in os.listdir(self.base_tmp)]
            except OSError:
                return False
            targets = [path for path in targets if path != keep]
        for path in targets:
            _remove(path)
        if self.mode == "bwrap":
            try:
                return [os.path.join(self.base_tmp, name) for name in os.listdir(self.base_tmp)] in ([], [keep])
            except OSError:
                return False
        return not os.path.lexists(workdir)


def _remove(path):
    """rm -rf that also undoes a candidate's chmod (its files are the worker's uid); `rm` itself
    where Python's walk would recurse too deep (a candidate's directory 3000 levels down)."""
    try:
        _remove_tree(path)
    except RecursionError:
        try:
            import subprocess

            subprocess.run(["chmod", "-R", "u+rwx", "--", path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)
            subprocess.run(["rm", "-rf", "--", path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=False)
        except Exception:  # noqa: BLE001 - the caller checks that the path is gone
            pass


def _remove_tree(path):
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
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 2 and fields[0] != b"Z" and int(fields[1]) == parent:
            found.append(int(name))
    return found


def _preload():
    """Modules candidates commonly import, loaded once so each forked attempt finds them."""
    for name in ("typing", "collections", "math", "re", "itertools", "functools", "heapq", "bisect", "string", "copy", "operator", "random"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001
            pass


def worker_main(argv):
    mode = argv[2] if len(argv) > 2 else "none"
    once = len(argv) > 3 and argv[3] == "once"
    _load_libc()
    build_seccomp()
    # As the namespace's init only signals with a handler arrive from inside; Python's SIGINT
    # handler would let a candidate's kill(1, SIGINT) end the zygote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if not once:
        _preload()
    worker = _Worker(mode, once)
    if not once and hasattr(gc, "freeze"):
        gc.collect()
        gc.freeze()
    return worker.serve()


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "worker":
    sys.exit(worker_main(sys.argv))
