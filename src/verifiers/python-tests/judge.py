"""vitest-seqk judge (Python 3.8+, standard library only). Runs a task's hidden tests; never runs
candidate code.

Node starts this as a long-lived process, outside the sandbox, with Node's own user (run-harness.ts
loads codec, channel, cgroup, attempt, sitedirs and this module, then calls `main`):

    python -S -B -X utf8 [-P] -c "<loader>" 6 codec "<source>" ... judge "<source>" '<config JSON>' 6 codec ...

and speaks to it on stdin/stdout in frames (channel.py; the `type` key is Node's):

    judge -> node  {"type": "ready", "pid", "version", "cgroup", "uid", "worker"}            once
    node -> judge  {"code", "setup", "tests", "only"?, "timeoutMs", "maxOutputBytes", "memoryBytes",
                    "cpuSeconds", "fileSizeBytes", "openFiles", "processes"}     per attempt
    judge -> node  {"type": "waiting"}   the worker is still cleaning up after the previous attempt
    judge -> node  {"type": "started", "pid", "workdir"}
    judge -> node  {"type": "result", "result": {...}, "output"?: [stdout bytes, stderr bytes],
                    "timedOut", "exitCode", "exitSignal", "durationMs", "healthy"}
                   then, with "output", that many raw UTF-8 bytes of stdout and of stderr

The judge starts the candidate's worker (worker.py, the config's `worker` command line: setpriv,
bubblewrap, the interpreter) and, per attempt, makes a socket pair: one end goes to the worker,
whose forked child runs the candidate there; the judge sends the child the code on its own end and
runs the tests here (attempt.py). The worker itself never sees the code: it only supervises.

Result (the `result` of a result frame):

    {"outcome": "passed" | "failed" | "load-error" | "timeout" | "tests-error" | "harness-error",
     "statements": N, "tests": [{"index", "source", "pass", "call"?, "expected"?, "actual"?,
     "error"?}], "error"?, "timeoutIn"?, "memoryLimited"?, "deterministic"?}

`deterministic`: the candidate's process ended its calls reporting nothing a fresh run might do
otherwise (candidate.py EntropyProbe); absent when it did not say so.

`tests-error`: the task's tests do not parse or its setup raised (the task is broken).
`harness-error`: the judge or the worker failed on its own, as a self-check with a known-good
answer confirmed; anything the candidate provokes is the candidate's failure instead.
"""

import ast
import json
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

from attempt import (
    ARGV,
    JUDGE_ADDRESS_SPACE,
    TESTS_FILE,
    Attempt,
    JudgeBug,
    describe,
    held_out_quotes,
    loaded_names,
    selected,
    withhold_quotes,
)
from cgroup import MemoryCgroup
from channel import (
    CallChannel,
    ChannelClosed,
    frame_bytes,
    read_frame,
    read_frame_blocking,
    send_with_fd,
    write_all,
    write_frame,
)
from codec import ProtocolError, cut
from sitedirs import add_site_dirs

# Requests from Node: code and tests (Node refuses code over its own, smaller limit first).
MAX_REQUEST_BYTES = 64 * 1024 * 1024
STARTUP_TIMEOUT = 30.0
# After "end", an honest candidate exits at once; one that keeps running is killed after this.
END_GRACE = 0.5
# How long the zygote may take to kill and clean up after an attempt (its own bound is 2 s).
KILL_WAIT = 3.0
# How long a hand-over may wait for the zygote to finish cleaning up after the previous attempt.
HANDOVER_WAIT = 60.0
# The worker's own wall clock, a backstop this long after the judge's deadline (which names the call).
WORKER_BACKSTOP_MS = 250
# What a judge names its private temporary directory (outside bubblewrap): seqk-judge-<its pid>-...
PRIVATE_DIR = re.compile(r"^seqk-judge-(\d+)-[A-Za-z0-9_]+$")
# The zygote and the memory it keeps warm, on top of the attempt's own limit, in its cgroup.
ZYGOTE_ALLOWANCE = 64 * 1024 * 1024
# Where no memory cgroup can be made (not root), the processes an attempt may run inside
# bubblewrap: its tree then holds at most this many times the per-process address-space limit.
FALLBACK_PROCESSES = 16
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
# Sandbox uids: this base plus the judge's pid (unique among live processes), far above any
# account's uid; needs no passwd entry.
SANDBOX_UID_BASE = 0x3F000000
# Tests parsed once per task, kept for this many distinct tests.
PARSED_TESTS = 512
# Limits forwarded to the candidate's process with its code.
CHILD_LIMITS = ("maxOutputBytes", "memoryBytes", "cpuSeconds", "fileSizeBytes", "openFiles", "processes")

SELF_CHECK = {
    "code": "def seqk_self_check(x):\n    return [x, x * 2, {'k': (x, 1.5)}]\n",
    "tests": "assert seqk_self_check(2) == [2, 4, {'k': (2, 1.5)}]\nassert seqk_self_check(0)[0] == 0\n",
    "timeoutMs": 10000,
    "maxOutputBytes": 4096,
    "memoryBytes": 0,
    "cpuSeconds": 11,
    "fileSizeBytes": 1 << 20,
    "openFiles": 64,
    "processes": 0,
}

_SIGNAL_HINTS = {
    "SIGXCPU": " (the CPU time limit)",
    "SIGSEGV": " (a crash: e.g. recursion too deep for the C stack)",
    "SIGKILL": " (e.g. the CPU time limit, or the system running out of memory)",
    "SIGXFSZ": " (the file size limit)",
    "SIGABRT": " (aborted)",
}


class WorkerLost(Exception):
    """The zygote died or stopped answering under an attempt (no fault of the candidate's that
    the judge can name): it is restarted, checked, and the attempt runs once more."""


def failure(outcome, statements, error, **extra):
    """A result without test records: why no test ran (the one constructor of such results)."""
    result = {"outcome": outcome, "statements": statements, "tests": [], "error": error}
    result.update(extra)
    return result


def result_frame(result):
    return {"type": "result", "result": result}


def node_frame_bytes(message):
    """A frame for Node: UTF-8 JSON (a lone surrogate as its JSON escape), so that text the size of
    the output cap stays that size (ASCII escaping made an invalid byte six)."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")
    return struct.pack(">I", len(body)) + body


def _decoded_size(raw):
    return len(raw.decode("utf-8", "replace").encode("utf-8"))


def _fitting(raw, budget, from_end):
    """How many bytes of `raw` (from its start, or its end) decode to at most `budget` bytes of
    UTF-8 (an invalid byte becomes U+FFFD, three bytes)."""
    low, high = 0, len(raw)
    while low < high:
        middle = (low + high + 1) // 2
        part = raw[len(raw) - middle :] if from_end else raw[:middle]
        if _decoded_size(part) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def output_text(head, tail, total, cap):
    """A stream's captured head and tail as text of at most `cap` bytes of UTF-8 (plus the note
    of what was omitted): the size Node parses is the cap, whatever bytes the candidate wrote."""
    kept = len(head) + len(tail)
    if total <= kept and _decoded_size(head + tail) <= cap:
        return (head + tail).decode("utf-8", "replace")
    head = head[: _fitting(head, cap // 2, False)]
    tail = tail[len(tail) - _fitting(tail, cap - cap // 2, True) :]
    omitted = total - len(head) - len(tail)
    return "%s\n[... %d bytes omitted ...]\n%s" % (
        head.decode("utf-8", "replace"),
        omitted,
        tail.decode("utf-8", "replace"),
    )


def _streams(worker_result, cap):
    """stdout and stderr from the zygote's raw payload (see worker.py `Capture`)."""
    payload = worker_result.get("payload") or b""
    texts = {}
    offset = 0
    for name in ("stdout", "stderr"):
        sizes = worker_result.get(name)
        if type(sizes) is not list or len(sizes) != 3 or not all(type(n) is int and n >= 0 for n in sizes):
            texts[name] = ""
            continue
        head_size, tail_size, total = sizes
        head = payload[offset : offset + head_size]
        tail = payload[offset + head_size : offset + head_size + tail_size]
        offset += head_size + tail_size
        texts[name] = output_text(head, tail, total, cap)
    return texts


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except (ValueError, TypeError):
        return "signal %s" % number


def _how_it_ended(worker_result, memory_limited, limit):
    if memory_limited:
        return "was killed for using more than %d MiB together with every process it started" % (
            (limit or 0) // (1024 * 1024) - ZYGOTE_ALLOWANCE // (1024 * 1024)
        )
    sig, code = worker_result.get("exitSignal"), worker_result.get("exitCode")
    if sig is not None:
        return "was killed by %s%s" % (_signal_name(sig), _SIGNAL_HINTS.get(_signal_name(sig), ""))
    return "exited with code %s" % code if code is not None else "ended"


def explain_ending(result, worker_result, stderr, memory_limited, limit):
    """Replaces "the process ended" with how it ended, now that the worker has said."""
    how = _how_it_ended(worker_result, memory_limited, limit)
    if memory_limited:
        result["memoryLimited"] = True
    last = stderr.strip().split("\n")[-1].strip() if stderr.strip() else ""
    suffix = (": " + cut(last)) if last and not memory_limited else ""
    if result.get("outcome") == "load-error" and result.get("error") in ("", None):
        result["error"] = "the Python process %s while loading the code%s" % (how, suffix)
    for record in result.get("tests", []):
        for key in ("error", "actual"):
            text = record.get(key)
            if isinstance(text, str) and text.startswith("the candidate's process ended during the call"):
                record[key] = (
                    text.replace("the candidate's process ended", "the candidate's process %s" % how, 1) + suffix
                )
    if memory_limited and result.get("outcome") == "passed":
        result["outcome"] = "failed"


class Zygote:
    """The candidate's worker process as the judge holds it (worker.py): started under setpriv and
    bubblewrap as the config says, in the memory cgroup, with a private temporary directory
    outside bubblewrap; stopped with everything it left behind."""

    def __init__(self, config, cgroup, uid):
        self.config = config
        self.cgroup = cgroup
        self.uid = uid
        self.process = None
        self.control = None
        self.ready = None
        self.tmp = None

    @property
    def control_fd(self):
        return self.control.fileno()

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def start(self):
        self.stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = dict(self.config.get("env") or {})
        if self.config.get("mode") == "none":
            self.tmp = self.tmp or self._private_tmp()
            env["TMPDIR"] = self.tmp
        try:
            self.process = subprocess.Popen(
                self.cleanup_prefix() + self._command(),
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=None,  # the judge's stderr: Node keeps its tail for startup errors
                cwd="/",
                env=env,
                close_fds=True,
                start_new_session=True,
                preexec_fn=self._enter,
            )
        finally:
            theirs.close()
        self.control = ours
        ready = read_frame_blocking(ours.fileno(), STARTUP_TIMEOUT)
        if ready is None or ready.get("t") != "ready":
            code = self._exit_code(1.0)
            self.stop()
            raise RuntimeError(
                "the candidate worker did not start (%s)"
                % ("exit code %s" % code if code is not None else "no answer within %d s" % STARTUP_TIMEOUT)
            )
        if not ready.get("seccomp"):
            self.stop()
            raise RuntimeError(
                "the candidate worker cannot install its seccomp filter on this machine "
                "(ctypes or the architecture is missing)"
            )
        self.ready = ready

    def _command(self):
        worker = self.config["worker"]
        return list(worker["prefix"]) + list(self.config["modules"]) + list(worker["args"])

    def _private_tmp(self):
        """A temporary directory of this judge's own, the zygote's uid's: its working directories
        go there, a stopped zygote's files go with it, and no sweep of a shared /tmp (that any
        candidate can fill) is ever needed. Directories of judges that died are removed first."""
        sweep_private_dirs(self.config)
        path = tempfile.mkdtemp(prefix="seqk-judge-%d-" % os.getpid())
        if self.config.get("drop"):
            os.chown(path, self.uid, self.uid)
        return path

    def _enter(self):
        """In the zygote's process before it execs: its cgroup, and none of the judge's own
        address-space limit."""
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        self.cgroup.enter()

    def _exit_code(self, timeout):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def died(self):
        """True when the zygote's process ended on its own (not killed by us)."""
        return self.process is None or self._exit_code(0.5) is not None

    def cleanup_prefix(self):
        """How to run a command as the sandbox user, or [] where no privilege is dropped."""
        return as_uid(self.config, self.uid)

    def stop(self):
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None:
            for kill in (lambda: os.killpg(self.process.pid, signal.SIGKILL), self.process.kill):
                try:
                    kill()
                except OSError:
                    pass
            self._exit_code(5)
            self.process = None
            # What the candidate left outside the zygote's reach (a new session, a cleared parent
            # death signal: outside a pid namespace these outlive the zygote) dies with its cgroup.
            self.cgroup.kill_all()
        if self.tmp is not None:
            remove_tree(self.config, self.uid, self.tmp, keep_root=True)

    def close(self):
        self.stop()
        if self.tmp is not None:
            remove_tree(self.config, self.uid, self.tmp)
            self.tmp = None


def as_uid(config, uid):
    """How to run a command as `uid` (never as root: a candidate's symlinks could steer a
    recursive delete), or [] where no privilege is dropped."""
    drop = config.get("drop")
    if not drop:
        return []
    return [drop, "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--no-new-privs"]


def remove_tree(config, uid, path, keep_root=False):
    """`rm -rf` of a private directory (or, with `keep_root`, of everything in it) as its uid,
    after undoing the candidate's chmods."""
    script = 'chmod -R u+rwx -- "$0" 2>/dev/null; ' + (
        'find "$0" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} +' if keep_root else 'rm -rf -- "$0"'
    )
    try:
        subprocess.run(
            as_uid(config, uid) + ["sh", "-c", script, path],
            env=dict(config.get("env") or {}),
            cwd="/",
            timeout=30,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        pass


def sweep_private_dirs(config):
    """Removes the private temporary directories of judges that are gone (killed before they
    could remove their own), each as its own uid."""
    base = tempfile.gettempdir()
    try:
        names = [name for name in os.listdir(base) if PRIVATE_DIR.match(name)]
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            owner = os.lstat(path).st_uid
        except OSError:
            continue
        if not os.path.exists("/proc/%s" % PRIVATE_DIR.match(name).group(1)) and (
            owner >= SANDBOX_UID_BASE or not config.get("drop")
        ):
            remove_tree(config, owner, path)


class Judge:
    """The judge process: Node's requests in, verdicts out, one zygote kept warm."""

    def __init__(self, config):
        self.config = config
        self.node_in = os.dup(0)
        self.node_out = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDWR)
        # Tests may print; nothing but frames may reach Node's pipe.
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        self.cgroup = MemoryCgroup()
        self.parsed = {}
        # A uid of this judge's own for its worker (where we are root and drop privileges): no
        # other worker's candidate can signal this one's processes, read their memory or share
        # their process limit.
        self.uid = SANDBOX_UID_BASE + os.getpid()
        self.zygote = Zygote(config, self.cgroup, self.uid)
        # When each step of the current attempt ended (time.monotonic(), CLOCK_MONOTONIC like
        # Node's hrtime and the zygote's clock): the attempt's time breakdown.
        self.marks = {}

    # -- one request ----------------------------------------------------------------------------

    def _tree(self, tests_source):
        """The tests' parse tree, parsed once per task (it is only read: statements are compiled
        from it, never changed); a SyntaxError is the task's."""
        tree = self.parsed.get(tests_source)
        if tree is None:
            tree = ast.parse(tests_source, TESTS_FILE)
            if len(self.parsed) >= PARSED_TESTS:
                self.parsed.clear()
            self.parsed[tests_source] = tree
        return tree

    def attempt(self, request, relay):
        """Runs one request; returns the result frame for Node."""
        try:
            tree = whole = self._tree(request.get("tests") or "")
        except SyntaxError as exc:
            return result_frame(failure("tests-error", 0, "the tests do not parse: " + describe(exc)))
        only = request.get("only")
        if type(only) is list:
            # The visible statements of a split: the candidate's process is told only their names
            # and sent only their calls, and no text of its side that quotes another statement
            # comes back (see held_out_quotes).
            tree = selected(whole, only)
            frame = self._attempt_twice(request, tree, relay)
            withhold_quotes(frame["result"], held_out_quotes(request.get("tests") or "", whole, tree.seqk_indices))
            return frame
        return self._attempt_twice(request, tree, relay)

    def _attempt_twice(self, request, tree, relay):
        for _ in range(2):
            try:
                return self._attempt_once(request, tree, relay)
            except WorkerLost:
                # The zygote died under the attempt: a fresh one, a self-check, and one more try.
                problem = self.restart()
                if problem is not None:
                    return result_frame(failure("harness-error", len(tree.body), problem))
        return result_frame(
            failure(
                "load-error",
                len(tree.body),
                "the sandbox's worker process died twice while running this code "
                "(a self-check with a known-good answer passed in between)",
            )
        )

    def restart(self):
        """A fresh zygote and a self-check: None when sound, else why not."""
        try:
            self.zygote.start()
        except Exception as exc:  # the worker cannot start: ours to report
            return "the candidate worker could not be restarted: %s" % exc
        return self.self_check()

    def _attempt_once(self, request, tree, relay):
        if not self.zygote.alive():
            self.zygote.start()
        limit = int(request.get("memoryBytes") or 0)
        if limit:
            try:
                self.cgroup.set_limit(limit + ZYGOTE_ALLOWANCE)
            except OSError:
                pass
        oom_before = self.cgroup.oom_kills()
        timeout_ms = int(float(request.get("timeoutMs", 3000)))
        attempt = Attempt(request, tree, request.get("tests") or "", timeout_ms)
        ours, started = self._hand_over(request, timeout_ms, relay)
        self.marks["started"] = time.monotonic()
        if started.get("t") == "result":
            ours.close()
            self.zygote.stop()
            return result_frame(
                failure(
                    "harness-error", len(tree.body), "the worker could not start the attempt: %s" % started.get("error")
                )
            )
        relay({"type": "started", "pid": started.get("pid"), "workdir": started.get("workdir")})
        channel = CallChannel(ours, self.zygote.control_fd, time.monotonic() + max(0.001, timeout_ms / 1000.0))
        attempt.channel = channel
        result, armed = self._judge(attempt, channel, self._child_request(request, tree))
        worker_result = self._finish(attempt, channel, result, armed, started)
        if not armed:
            return self._unarmed(worker_result, len(tree.body))
        return self._report(
            attempt,
            result,
            worker_result,
            self.cgroup.oom_kills() > oom_before,
            int(request.get("maxOutputBytes", 65536)),
        )

    def _child_request(self, request, tree):
        forwarded = {k: request.get(k) for k in CHILD_LIMITS}
        if self.cgroup.path is None and self.config.get("mode") == "bwrap":
            # No cgroup: the tree's memory is bounded by processes x the per-process limit alone.
            forwarded["processes"] = min(int(forwarded.get("processes") or FALLBACK_PROCESSES), FALLBACK_PROCESSES)
        forwarded.update(
            {
                "t": "request",
                "code": request.get("code") or "",
                "setup": request.get("setup") or "",
                "names": loaded_names(tree),
            }
        )
        return frame_bytes(forwarded)

    def _hand_over(self, request, timeout_ms, relay):
        """Gives the zygote the attempt's call socket (the code goes to its child directly, never
        through the zygote) and waits for its child to start; raises WorkerLost."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        message = {
            "t": "attempt",
            "timeoutMs": timeout_ms + WORKER_BACKSTOP_MS,
            "maxOutputBytes": request.get("maxOutputBytes"),
        }
        try:
            send_with_fd(self.zygote.control, frame_bytes(message), theirs.fileno())
            self.marks["handed"] = time.monotonic()
        except OSError:
            ours.close()
            raise WorkerLost("the zygote's control socket is closed")
        finally:
            theirs.close()
        # The zygote forks at once (retrying a full process table until the attempt's deadline), once
        # it has cleaned up after the previous attempt: removing what that one left (thousands of
        # directories in /tmp, on a loaded disk) is not this attempt's time, whose clock starts at
        # the fork. A live zygote still busy gets HANDOVER_WAIT more, and Node is told (its own
        # backstop waits as long); a zygote that died answers nothing at once (its socket closes).
        started = read_frame_blocking(self.zygote.control_fd, timeout_ms / 1000.0 + KILL_WAIT)
        if started is None and self.zygote.alive():
            relay({"type": "waiting"})
            started = read_frame_blocking(self.zygote.control_fd, HANDOVER_WAIT)
        if started is None or started.get("t") not in ("started", "result"):
            ours.close()
            self.zygote.stop()
            raise WorkerLost("the zygote did not start the attempt")
        return ours, started

    def _judge(self, attempt, channel, child_request):
        """(result, armed): the tests against the loaded candidate (its fault or merit only), and
        whether the candidate's process got as far as running candidate code."""
        statements = len(attempt.tree.body)
        try:
            channel.send(child_request)
            armed = channel.receive()
        except TimeoutError:
            return failure("timeout", statements, "the attempt did not start in time"), False
        except ChannelClosed:
            return failure("load-error", statements, ""), False
        if armed.get("t") == "setup-error":
            error = armed.get("error")
            return (
                failure(
                    "tests-error",
                    statements,
                    "the task's setup failed: %s" % (cut(error) if isinstance(error, str) else "?"),
                ),
                True,
            )
        if armed.get("t") != "armed":
            return failure("load-error", statements, "the candidate's process broke the protocol while loading"), True
        self.marks["armed"] = time.monotonic()
        try:
            loaded = channel.receive()
        except TimeoutError:
            attempt.timed_out_in = "loading the code"
            return (
                failure(
                    "timeout",
                    statements,
                    "timed out after %d ms while loading the code" % attempt.timeout_ms,
                    timeoutIn="loading the code",
                ),
                True,
            )
        except ChannelClosed as exc:
            attempt.ended_in = "loading the code"
            text = "" if str(exc) == "ended" else "the candidate's process %s while loading the code" % exc
            return failure("load-error", statements, text), True
        self.marks["loaded"] = time.monotonic()
        result = self._loaded(attempt, loaded, statements)
        self.marks["tested"] = time.monotonic()
        return result, True

    def _loaded(self, attempt, loaded, statements):
        names = loaded.get("names")
        if loaded.get("t") != "loaded" or ("error" not in loaded and type(names) is not dict):
            return failure("load-error", statements, "the candidate's process broke the protocol while loading")
        if "error" in loaded:
            error = loaded.get("error")
            return failure("load-error", statements, cut(error) if isinstance(error, str) else "the code did not load")
        tests = attempt.run_tests(attempt.namespace(names, loaded.get("reads")))
        passed = all(t["pass"] for t in tests) and len(tests) == statements
        result = {"outcome": "passed" if passed else "failed", "statements": statements, "tests": tests}
        if attempt.timed_out_in is not None:
            result.update(outcome="timeout", timeoutIn=attempt.timed_out_in)
        return result

    def _finish(self, attempt, channel, result, armed, started):
        """Ends the candidate's process (asked, then killed) and returns the zygote's report of
        it; raises WorkerLost when the zygote died or froze before the candidate's code ran."""
        timed_out = result.get("outcome") == "timeout"
        try:
            channel.deadline = time.monotonic() if timed_out else min(channel.deadline, time.monotonic() + END_GRACE)
            ending = attempt.closed is None and channel.worker_result is None
            if ending:
                channel.send(frame_bytes({"t": "end"}))
        except (ChannelClosed, TimeoutError):
            ending = False
        if channel.worker_result is None and not timed_out:
            # The verdict is in: the worker may answer as soon as the output is complete. A load
            # error's message says how the process ended: then it waits for the exit status.
            self._tell_zygote({"t": "finish", "status": result.get("outcome") == "load-error"})
        worker_result = channel.worker_result
        if worker_result is None:
            worker_result = read_frame_blocking(self.zygote.control_fd, max(0.0, channel.deadline - time.monotonic()))
        if worker_result is None:
            self._tell_zygote({"t": "kill"})
            worker_result = read_frame_blocking(self.zygote.control_fd, KILL_WAIT)
        if ending and result.get("outcome") in ("passed", "failed"):
            # Written before the process ended, so in the socket by now: no round trip of its own.
            ended = channel.buffered()
            entropy = ended.get("entropy") if ended is not None and ended.get("t") == "ended" else None
            # Only a report of nothing that may differ makes a verdict reusable (python-tests.ts).
            result["deterministic"] = entropy == []
        channel.sock.close()
        self.marks["reported"] = time.monotonic()
        if worker_result is None or worker_result.get("t") != "result":
            # The zygote died (a candidate outside a pid namespace can signal it), or it froze.
            died = self.zygote.died()
            self.zygote.stop()
            if died or not armed:
                raise WorkerLost("the zygote died under the attempt")
            worker_result = {"t": "result", "healthy": False}
        if not worker_result.get("healthy", True):
            self.zygote.stop()
        return worker_result

    def _tell_zygote(self, message):
        try:
            write_frame(self.zygote.control_fd, message)
        except OSError:
            pass

    def _unarmed(self, worker_result, statements):
        """Our own set-up in the child failed before any candidate code ran."""
        code = worker_result.get("exitCode")
        if code == 71:
            return result_frame(
                failure("harness-error", statements, "the attempt's process could not install the seccomp filter")
            )
        if self.self_check() is None:
            raise WorkerLost("the attempt's process ended before running the code")
        return result_frame(
            failure(
                "harness-error",
                statements,
                "the attempt's process ended before running the code (exit code %s, signal %s)"
                % (code, worker_result.get("exitSignal")),
            )
        )

    def _report(self, attempt, result, worker_result, memory_limited, cap):
        if worker_result.get("timedOut") and result.get("outcome") != "timeout":
            # The worker's own clock (a backstop a little after the judge's) ended the attempt
            # while the judge was busy: it ran out of time, whatever the last call was.
            result["outcome"] = "timeout"
            result["timeoutIn"] = attempt.ended_in or "loading the code"
        streams = _streams(worker_result, cap)
        explain_ending(result, worker_result, streams["stderr"], memory_limited, self.cgroup.limit)
        frame = result_frame(result)
        # The output goes after the frame as raw UTF-8 (see serve): Node decodes it a slice at a
        # time instead of parsing megabytes of JSON in one go.
        frame["payload"] = [streams["stdout"].encode("utf-8"), streams["stderr"].encode("utf-8")]
        for key in ("exitCode", "exitSignal", "durationMs"):
            if key in worker_result:
                frame[key] = worker_result[key]
        frame["timedOut"] = result.get("outcome") == "timeout"
        zygote_marks = worker_result.get("marks")
        frame["marks"] = dict(zygote_marks if type(zygote_marks) is dict else {}, **self.marks)
        return frame

    # -- the process ----------------------------------------------------------------------------

    def self_check(self):
        """None when a known-good answer passes through this judge and a worker, else why not."""
        try:
            if not self.zygote.alive():
                self.zygote.start()
            frame = self._attempt_once(SELF_CHECK, ast.parse(SELF_CHECK["tests"], TESTS_FILE), lambda _message: None)
        except WorkerLost as exc:
            return "the self-check with a known-good answer lost its worker: %s" % exc
        except Exception as exc:  # noqa: BLE001 - any failure of ours is the answer here
            return "the self-check with a known-good answer failed: %s" % describe(exc)
        if frame.get("result", {}).get("outcome") != "passed":
            return "the self-check with a known-good answer did not pass: %s" % json.dumps(frame.get("result"))[:400]
        return None

    def _answer(self, request):
        try:
            return self.attempt(request, lambda message: write_all(self.node_out, node_frame_bytes(message)))
        except JudgeBug as exc:
            self.zygote.stop()
            return result_frame(failure("harness-error", 0, "the judge contradicted itself: %s" % exc))
        except Exception as exc:  # noqa: BLE001 - a bug of ours: is the judge still sound?
            self.zygote.stop()
            check = self.self_check()
            detail = cut("".join(traceback.format_exception_only(type(exc), exc)).strip())
            if check is None:
                return result_frame(
                    failure(
                        "failed",
                        0,
                        "the answer made the judge fail (%s); a self-check with a known-good answer "
                        "passed, so this counts against the answer" % detail,
                    )
                )
            return result_frame(failure("harness-error", 0, "the judge failed (%s) and %s" % (detail, check)))

    def serve(self):
        self.zygote.start()
        check = self.self_check()
        if check is not None:
            sys.stderr.write(check + "\n")
            return 4
        uid = self.uid if self.config.get("drop") else os.getuid()
        ready = {
            "type": "ready",
            "pid": os.getpid(),
            "version": "%d.%d.%d" % sys.version_info[:3],
            "cgroup": self.cgroup.kind,
            "uid": uid,
            "worker": self.zygote.ready,
        }
        write_all(self.node_out, node_frame_bytes(ready))
        while True:
            try:
                request = read_frame(self.node_in, MAX_REQUEST_BYTES)
            except ProtocolError:
                return 2
            if request is None:
                return 0
            self.marks = {"received": time.monotonic()}
            frame = self._answer(request)
            frame["healthy"] = True
            if "marks" in frame:
                frame["marks"]["answered"] = time.monotonic()
            payload = frame.pop("payload", None) or []
            if payload:
                frame["output"] = [len(part) for part in payload]
            write_all(self.node_out, node_frame_bytes(frame) + b"".join(payload))

    def close(self):
        self.zygote.close()
        self.cgroup.remove()


def _harden():
    """Not dumpable, dies with Node, and a bounded address space (attempt.py lowers it further
    while a test runs)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (JUDGE_ADDRESS_SPACE, hard))
    except (ValueError, OSError):
        pass


def main(argv):
    """argv: the config (JSON), then the worker's modules as loaded here: a count, then name and
    source of each (the worker cannot read this package's files: they go on its command line)."""
    config = json.loads(argv[1]) if len(argv) > 1 else {}
    config["modules"] = argv[2 : 3 + 2 * int(argv[2])] if len(argv) > 2 else []
    # The tests see what the official `python3 solution.py` shows them (not this loader's arguments).
    sys.argv[:] = ARGV
    add_site_dirs(config.get("sites"))
    _harden()
    judge = Judge(config)
    try:
        return judge.serve()
    finally:
        judge.close()
