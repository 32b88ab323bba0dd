"""vitest-seqk candidate worker (Python 3.8+, standard library only): the *zygote* that forks a
process per attempt (candidate.py) and supervises it. It never sees a test, nor the code.

The judge (judge.py) starts it as a long-lived process, inside bubblewrap when sandboxed
(run-harness.ts loads codec, channel, seccomp, sitedirs, candidate and this module, then calls
`main`):

    python -S -B -X utf8 [-P] -c "<loader>" 6 codec "<source>" ... worker "<source>" <bwrap|none> <sites> [once]

fd 0 is a Unix socket to the judge (the control channel); frames as in channel.py.

    worker -> judge  {"t": "ready", "pid", "uid", "version", "seccomp"}                 once
    judge -> worker  {"t": "attempt", "timeoutMs", "maxOutputBytes"}, the attempt's call
                     socket attached to its first bytes (SCM_RIGHTS)
    worker -> judge  {"t": "started", "pid", "workdir"}
    judge -> worker  {"t": "finish", "status"}   the judge has its verdict: report once the output is in
                     {"t": "kill"}               the judge's deadline passed
    worker -> judge  {"t": "result", "timedOut", "killed", "exitCode", "exitSignal", "durationMs",
                      "healthy", "stdout": [head, tail, total], "stderr": [...], "payload": n},
                     then the n raw bytes of stdout's head and tail and stderr's

For every attempt the zygote has forked a child ahead of time, from its serving loop (a frame
that holds nothing of any attempt: the code goes from the judge to the child directly): it took a
new session, a working directory, an empty environment and its seccomp filter, and waits for its
call socket. The zygote enforces the wall-clock limit, kills the child's whole process tree
afterwards (inside bubblewrap, where the zygote is the namespace's pid 1: every other process),
reaps it, wipes the temporary files and answers. The output it captured lives in buffers it wipes
after each attempt, so the next child, a copy of its memory, finds none of it. When cleanup fails
it reports `healthy: false` and exits, and the judge starts a fresh one.

Why the zygote cannot be reached by the candidate: with `--as-pid-1` it is the namespace's init
(no bubblewrap init holding descriptors), it is not dumpable (no /proc/<pid>/fd, no ptrace), and
the candidate's seccomp filter refuses ptrace, pidfd_getfd, process_vm_* and kcmp outright.
"""

import fcntl
import gc
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import seccomp
from candidate import set_base_modules, standby
from channel import frame_bytes, read_frame, recv_frame_with_fd, write_frame
from codec import ProtocolError
from sitedirs import add_site_dirs

# After the judge's "finish", how long the attempt's process may take to flush and exit.
FINISH_GRACE = 0.5
# Cleanup of an attempt (killing, reaping, removing files) fails the zygote after this long.
CLEANUP_BOUND = 2.0
# Uids of the judges' own (judge.py SANDBOX_UID_BASE): only such a uid's files are swept.
SANDBOX_UID_BASE = 0x3F000000
# Outside bubblewrap, the shared places an attempt of a uid of its own can write to.
SHARED_TMP = ("/dev/shm", "/tmp", "/var/tmp")
READ_CHUNK = 65536


def _sigkill(kill, target):
    try:
        kill(target, signal.SIGKILL)
    except OSError:
        pass


class Capture:
    """The first and last halves of a stream up to `cap` bytes (a traceback sits at the end of
    stderr), in fixed buffers that are wiped afterwards, and the count of the rest."""

    def __init__(self, cap):
        cap = max(0, int(cap))
        self.head = bytearray(cap // 2)
        self.tail = bytearray(cap - cap // 2)
        self.head_size = 0
        self.tail_size = 0
        self.tail_end = 0  # where the ring's next byte goes
        self.total = 0

    def push(self, view):
        self.total += len(view)
        room = len(self.head) - self.head_size
        if room > 0:
            take = min(room, len(view))
            self.head[self.head_size : self.head_size + take] = view[:take]
            self.head_size += take
            view = view[take:]
        size = len(self.tail)
        if not view or size == 0:
            return
        if len(view) >= size:
            self.tail[:] = view[len(view) - size :]
            self.tail_end, self.tail_size = 0, size
            return
        first = min(size - self.tail_end, len(view))
        self.tail[self.tail_end : self.tail_end + first] = view[:first]
        self.tail[: len(view) - first] = view[first:]
        self.tail_end = (self.tail_end + len(view)) % size
        self.tail_size = min(size, self.tail_size + len(view))

    def parts(self):
        """The head and the tail in order, as views of the buffers."""
        head, tail = memoryview(self.head)[: self.head_size], memoryview(self.tail)
        if self.tail_size < len(self.tail):
            return [head, tail[: self.tail_size]]
        return [head, tail[self.tail_end :], tail[: self.tail_end]]

    def sizes(self):
        return [self.head_size, self.tail_size, self.total]

    def wipe(self):
        self.head[:] = bytes(len(self.head))
        self.tail[:] = bytes(len(self.tail))


class Standby:
    """A child forked ahead of its attempt (candidate.standby), and its end of things."""

    def __init__(self, pid, link, out_r, err_r, workdir):
        self.pid, self.link, self.out_r, self.err_r, self.workdir = pid, link, out_r, err_r, workdir

    def close(self):
        self.link.close()
        for fd in (self.out_r, self.err_r):
            try:
                os.close(fd)
            except OSError:
                pass


class Supervision:
    """One attempt's life in the zygote, from its hand-over to its end: running, then finishing
    once the judge has its verdict (the output is awaited), then over; how it ended (timed out,
    killed, exited) and the output it wrote."""

    def __init__(self, child, message, control_fd, scratch):
        self.child = child
        self.control_fd = control_fd
        self.scratch = scratch
        self.started = time.monotonic()
        self.deadline = self.started + max(0.001, float(message.get("timeoutMs", 3000)) / 1000.0)
        cap = int(message.get("maxOutputBytes") or 65536)
        self.streams = {child.out_r: Capture(cap), child.err_r: Capture(cap)}
        self.open = set(self.streams)
        self.finishing = self.need_status = self.timed_out = self.killed = self.exited = False
        self.pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                self.pidfd = os.pidfd_open(child.pid)
            except OSError:
                self.pidfd = None
        self.poller = select.poll()
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.poller.register(fd, select.POLLIN)
        self.poller.register(control_fd, select.POLLIN)
        if self.pidfd is not None:
            self.poller.register(self.pidfd, select.POLLIN)
        self.duration = 0.0
        self.marks = {}

    def watch(self):
        """Until the attempt is over: its process exited, its output is complete after "finish",
        its time ran out, or the judge said "kill" (or went away)."""
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self.timed_out, self.killed = not self.finishing, self.finishing
                break
            wait_ms = remaining * 1000 if self.pidfd is not None else min(remaining * 1000, 5)
            if any(self._event(fd) for fd, _event in self.poller.poll(max(1, int(wait_ms)))):
                break
            if os.waitid(os.P_PID, self.child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                self.exited = True
                break
            if self.finishing and not self.open and not self.need_status:
                break
        self.duration = (time.monotonic() - self.started) * 1000

    def _event(self, fd):
        """Handles one ready descriptor; True when the judge ended the attempt."""
        if fd in self.open:
            self.drain(fd, True)
        elif fd == self.control_fd:
            try:
                message = read_frame(self.control_fd)
            except ProtocolError:
                message = None
            if message is not None and message.get("t") == "finish" and not self.finishing:
                # The judge has its verdict: done once the output is complete (both streams
                # closed, as the process flushed and exited) or it exits. A verdict that the
                # process ended (a load error) needs how it ended: the streams close a moment
                # before the exit can be reaped.
                self.finishing = True
                self.need_status = bool(message.get("status"))
                self.deadline = min(self.deadline, time.monotonic() + FINISH_GRACE)
                return False
            # The judge's deadline passed (it names the call), or it went away.
            self.killed = True
            if message is None:
                self.poller.unregister(self.control_fd)
            return True
        return False

    def drain(self, fd, once):
        view = memoryview(self.scratch)
        while True:
            try:
                count = os.readv(fd, [self.scratch])
            except BlockingIOError:
                return
            except OSError:
                count = 0
            if count == 0:
                self.poller.unregister(fd)
                self.open.discard(fd)
                return
            self.streams[fd].push(view[:count])
            if once:
                return

    @property
    def complete(self):
        """The verdict is in and the output complete, the process still exiting: answer first."""
        return self.finishing and not self.exited and not self.open and not self.killed and not self.need_status

    def report(self, status, healthy):
        """The result frame and its payload (the captured output, raw)."""
        exit_code = exit_signal = None
        if status is not None:
            if os.WIFEXITED(status):
                exit_code = os.WEXITSTATUS(status)
            elif os.WIFSIGNALED(status):
                exit_signal = os.WTERMSIG(status)
        out, err = self.streams[self.child.out_r], self.streams[self.child.err_r]
        parts = out.parts() + err.parts()
        message = {
            "t": "result",
            "timedOut": self.timed_out,
            "killed": self.killed,
            "exitCode": exit_code,
            "exitSignal": exit_signal,
            "durationMs": self.duration,
            "healthy": healthy,
            "stdout": out.sizes(),
            "stderr": err.sizes(),
            "payload": sum(len(part) for part in parts),
            "marks": dict(self.marks, zygote_answered=time.monotonic()),
        }
        return message, parts

    def wipe(self):
        for capture in self.streams.values():
            capture.wipe()

    def close(self):
        self.wipe()
        self.child.close()
        if self.pidfd is not None:
            os.close(self.pidfd)


class Zygote:
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
        # Everything in base_tmp is the attempts': bubblewrap's private /tmp, or the private
        # directory the judge made for this zygote (never a shared /tmp).
        self.private_tmp = mode == "bwrap" or _private(self.base_tmp)
        self.once = once
        # Files of the uid's own outside its private directory are swept (a uid of its judge's own).
        self.sweeps = mode == "none" and os.getuid() >= SANDBOX_UID_BASE
        self.standby = None
        # The last attempt still to be reaped (answered early, see teardown_fast).
        self.reap_pending = False
        self.scratch = bytearray(READ_CHUNK)

    def serve(self):
        if self.sweeps:
            # A zygote before this one may have died before it swept.
            self._sweep_shared()
        write_frame(
            self.control_fd,
            {
                "t": "ready",
                "pid": self.pid,
                "uid": os.getuid(),
                "version": "%d.%d.%d" % sys.version_info[:3],
                "seccomp": seccomp.available(),
            },
        )
        while True:
            if not self.once and self.standby is None:
                self.prefork()
            received = recv_frame_with_fd(self.control)
            if received is None:
                return 0
            message, fd = received
            if message.get("t") != "attempt" or fd is None:
                # A "finish" or "kill" that crossed an attempt's end: nothing left to act on.
                if fd is not None:
                    os.close(fd)
                continue
            healthy = self.attempt(message, fd)
            del message, fd, received
            if not healthy:
                return 3

    # -- standbys -------------------------------------------------------------------------------

    def _fork(self, deadline):
        while True:
            try:
                return os.fork()
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def prefork(self, deadline=None):
        """Forks the next attempt's process ahead of its request. None on success, else why not."""
        workdir = os.path.join(self.base_tmp, "seqk-py-" + os.urandom(8).hex())
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = self._fork(deadline if deadline is not None else time.monotonic() + 1.0)
        except OSError as exc:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            ours.close()
            theirs.close()
            return "could not fork the attempt: %s" % exc
        if pid == 0:
            try:
                ours.close()
                standby(theirs.fileno(), workdir, out_w, err_w, self.mode, self.devnull)
            except BaseException:  # our own set-up failed: say why on stderr, then exit
                try:
                    traceback.print_exc()
                except BaseException:  # stderr itself may be gone
                    pass
            finally:
                os._exit(70)
        for fd in (out_w, err_w):
            os.close(fd)
        theirs.close()
        self.standby = Standby(pid, ours, out_r, err_r, workdir)
        return None

    def _hand_over(self, call_sock, deadline):
        """Gives the call socket to a standby (a fresh one when the first died waiting); the child
        or why not."""
        for _ in range(2):
            if self.standby is None:
                problem = self.prefork(deadline)
                if problem is not None:
                    return None, problem
            child, self.standby = self.standby, None
            try:
                child.link.sendmsg(
                    [b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, call_sock.to_bytes(4, sys.byteorder, signed=True))]
                )
                return child, None
            except OSError:
                # The standby died waiting (it cannot be signalled from inside; a host OOM): anew.
                _sigkill(os.kill, child.pid)
                self._reap(child.pid)
                child.close()
                remove(child.workdir)
        return None, "could not hand the attempt to its process"

    # -- one attempt ----------------------------------------------------------------------------

    def attempt(self, message, call_sock):
        """Runs one attempt and answers the judge; False when the zygote must be replaced."""
        marks = {"zygote_received": time.monotonic()}
        if not self._previous_gone():
            os.close(call_sock)
            write_frame(
                self.control_fd,
                {"t": "result", "error": "the previous attempt's processes did not die", "healthy": False},
            )
            return False
        marks["zygote_ready"] = time.monotonic()
        timeout = max(0.001, float(message.get("timeoutMs", 3000)) / 1000.0)
        child, problem = self._hand_over(call_sock, time.monotonic() + timeout)
        marks["zygote_handed"] = time.monotonic()
        os.close(call_sock)
        if child is None:
            write_frame(self.control_fd, {"t": "result", "error": problem, "healthy": False})
            return False
        write_frame(self.control_fd, {"t": "started", "pid": child.pid, "workdir": child.workdir})
        run = Supervision(child, message, self.control_fd, self.scratch)
        run.marks = marks
        try:
            run.watch()
            marks["zygote_watched"] = time.monotonic()
            if run.complete:
                # The verdict is complete: answer first, clean up while the judge reports it.
                self._answer(run, None, True)
                self._release(run)
                return self.teardown_fast(run) if self.mode == "bwrap" else self.teardown(run, answered=True)
            return self.teardown(run, answered=False)
        finally:
            run.close()
            self.wipe()

    def _answer(self, run, status, healthy):
        message, parts = run.report(status, healthy)
        write_parts(self.control_fd, [frame_bytes(message)] + parts)

    def wipe(self):
        self.scratch[:] = bytes(len(self.scratch))

    def _release(self, run):
        """Once answered: the output wiped, the attempt's processes doomed, and the next standby
        forked at once (from memory with nothing of this attempt), before the slower cleanup."""
        run.wipe()
        self.wipe()
        self._kill_tree(run.child.pid)
        if not self.once and self.standby is None:
            self.prefork()

    def teardown(self, run, answered):
        """Kills and reaps the attempt's processes (answering, when not yet done, once they are
        gone), then removes its files."""
        self._kill_tree(run.child.pid)
        status = self._reap(run.child.pid)
        healthy = self._reap_orphans()
        for fd in list(run.open):
            run.drain(fd, False)
        if not answered:
            # The files go after the answer: however many the candidate made, they delay only the
            # next attempt on this zygote, never this verdict (a zygote that cannot remove them
            # exits, and its judge replaces it before the next attempt).
            self._answer(run, status, healthy)
            self._release(run)
        return self.clean(run.child.workdir) and healthy

    def teardown_fast(self, run):
        """After an early answer inside bubblewrap: kill(-1) has doomed every process of the
        attempt at once (SIGKILL, atomically with respect to fork), so the files can go without
        waiting for the kernel to tear this process down; its zombie is reaped before the next
        attempt runs (see _previous_gone)."""
        healthy = self.clean(run.child.workdir)
        self.reap_pending = True
        self._reap_ready()
        return healthy

    def _previous_gone(self):
        """True once nothing of the previous attempt may still hold memory in the cgroup or count
        against the process limit."""
        if not self.reap_pending:
            self._reap_ready()
            return True
        self.reap_pending = False
        return self._reap_orphans()

    # -- processes ------------------------------------------------------------------------------

    def _reap_ready(self):
        """Reaps the zombies there are now, without waiting (a dead standby is dropped). False
        when this process has no child left at all."""
        spare = self.standby.pid if self.standby is not None else None
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
        nothing of the attempt is left within CLEANUP_BOUND."""
        deadline = time.monotonic() + CLEANUP_BOUND
        while time.monotonic() < deadline:
            if not self._reap_ready():
                return True
            spare = self.standby.pid if self.standby is not None else None
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
            return children_of(self.pid)

    def _drop_standby(self):
        """Forgets a standby that died (it is re-forked before the next attempt)."""
        if self.standby is not None:
            child, self.standby = self.standby, None
            child.close()
            remove(child.workdir)

    # -- files ----------------------------------------------------------------------------------

    def clean(self, workdir):
        """Removes the attempt's files: everything in this zygote's temporary directory (inside
        bubblewrap its private /tmp, outside it the judge's private one) but the standby's fresh
        directory, and outside bubblewrap what this uid left in the shared temporary places."""
        keep = self.standby.workdir if self.standby is not None else None
        try:
            targets = (
                [os.path.join(self.base_tmp, name) for name in os.listdir(self.base_tmp)]
                if self.private_tmp
                else [workdir]
            )
        except OSError:
            return False
        for path in targets:
            if path != keep:
                remove(path)
        swept = self._sweep_shared() if self.sweeps else True
        if not self.private_tmp:
            return swept and not os.path.lexists(workdir)
        try:
            return swept and [os.path.join(self.base_tmp, name) for name in os.listdir(self.base_tmp)] in ([], [keep])
        except OSError:
            return False

    def _sweep_shared(self):
        """What this uid (the judge's own) wrote to /dev/shm, /tmp or /var/tmp: removed, so that it
        reaches no later attempt and stays charged to no cgroup. As long as it takes: the entries
        are the candidate's own, each as costly to make as to remove. False if some remain."""
        uid = os.getuid()
        left = False
        for place in SHARED_TMP:
            try:
                entries = list(os.scandir(place))
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.stat(follow_symlinks=False).st_uid == uid and entry.path != self.base_tmp:
                        remove(entry.path)
                        left = left or os.path.lexists(entry.path)
                except OSError:
                    pass
        return not left


def _private(path):
    """A directory the judge made for this zygote alone (judge.py `Zygote._private_tmp`)."""
    try:
        return os.path.basename(path).startswith("seqk-judge-") and os.lstat(path).st_uid == os.getuid()
    except OSError:
        return False


def write_parts(fd, parts):
    """Writes the parts (bytes, memoryviews) in order with as few system calls as they need."""
    views = [memoryview(part) for part in parts if len(part)]
    while views:
        written = os.writev(fd, views)
        while views and written >= len(views[0]):
            written -= len(views[0])
            views.pop(0)
        if views and written:
            views[0] = views[0][written:]


def remove(path):
    """rm -rf that also undoes a candidate's chmod (its files are the worker's uid): one rmdir for
    an empty directory; `rm` itself where Python's walk would recurse too deep (a candidate's
    directory 3000 levels down)."""
    try:
        os.rmdir(path)
        return
    except OSError:
        pass
    try:
        _remove_tree(path)
    except RecursionError:
        try:
            for command in (["chmod", "-R", "u+rwx", "--", path], ["rm", "-rf", "--", path]):
                subprocess.run(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=10,
                    check=False,
                )
        except (OSError, subprocess.SubprocessError):
            pass  # the caller checks that the path is gone


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


def children_of(parent):
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
    for name in (
        "typing",
        "collections",
        "math",
        "re",
        "itertools",
        "functools",
        "heapq",
        "bisect",
        "string",
        "copy",
        "operator",
        "random",
    ):
        try:
            __import__(name)
        except ImportError:
            pass


def main(argv):
    mode = argv[1] if len(argv) > 1 else "none"
    once = len(argv) > 3 and argv[3] == "once"
    add_site_dirs(json.loads(argv[2]) if len(argv) > 2 else [])
    seccomp.load_libc()
    seccomp.build()
    # As the namespace's init only signals with a handler arrive from inside; Python's SIGINT
    # handler would let a candidate's kill(1, SIGINT) end the zygote.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    seccomp.prctl(seccomp.PR_SET_DUMPABLE, 0)
    seccomp.prctl(seccomp.PR_SET_CHILD_SUBREAPER, 1)
    seccomp.prctl(seccomp.PR_SET_PDEATHSIG, signal.SIGKILL)
    if not once:
        _preload()
    zygote = Zygote(mode, once)
    set_base_modules()
    if not once and hasattr(gc, "freeze"):
        gc.collect()
        gc.freeze()
    return zygote.serve()
