"""The memory of an attempt's whole process tree: a memory cgroup per zygote, where the judge
(root) may make one (v2 with the memory controller delegated, else v1); nothing otherwise."""

import os
import signal
import time


def write_file(path, text, quiet=False):
    """Writes `text` to a control file; with `quiet`, False instead of OSError."""
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return True
    except OSError:
        if not quiet:
            raise
        return False


def _own_cgroups():
    """controller -> this process's cgroup path ('' is the v2 hierarchy)."""
    own = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3:
                for controller in parts[1].split(","):
                    own[controller] = parts[2]
    return own


def _mounts():
    mounts = {}
    with open("/proc/self/mounts") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 4 and fields[2] == "cgroup2":
                mounts.setdefault("v2", fields[1])
            elif len(fields) >= 4 and fields[2] == "cgroup" and "memory" in fields[3].split(","):
                mounts.setdefault("v1", fields[1])
    return mounts


def _delegates_memory(parent):
    try:
        with open(os.path.join(parent, "cgroup.subtree_control")) as handle:
            return "memory" in handle.read().split()
    except OSError:
        return False


def _sweep(parent):
    """Removes empty cgroups of judges that died without cleaning up (rmdir fails on a busy one)."""
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    for entry in entries:
        if entry.startswith("seqk-") and entry[5:].isdigit() and not os.path.exists("/proc/%s" % entry[5:]):
            try:
                os.rmdir(os.path.join(parent, entry))
            except OSError:
                pass


class MemoryCgroup:
    """A memory cgroup holding one zygote and everything it forks (v2 `memory.max`, else v1
    `memory.limit_in_bytes`), or nothing (`path` None) where neither is writable."""

    def __init__(self):
        self.path = None
        self.kind = None
        self.limit = None
        try:
            if os.getuid() == 0:
                self._create()
        except OSError:
            self.path = None

    def _create(self):
        own, mounts = _own_cgroups(), _mounts()
        name = "seqk-%d" % os.getpid()
        if "v2" in mounts and "" in own:
            parent = os.path.join(mounts["v2"], own[""].lstrip("/"))
            if _delegates_memory(parent):
                _sweep(parent)
                os.mkdir(os.path.join(parent, name))
                self.path, self.kind = os.path.join(parent, name), "v2"
                write_file(os.path.join(self.path, "memory.swap.max"), "0", quiet=True)
                return
        if "v1" in mounts and "memory" in own:
            parent = os.path.join(mounts["v1"], own["memory"].lstrip("/"))
            _sweep(parent)
            os.mkdir(os.path.join(parent, name))
            self.path, self.kind = os.path.join(parent, name), "v1"

    def set_limit(self, limit):
        if self.path is None or limit == self.limit:
            return
        if self.kind == "v2":
            ok = write_file(os.path.join(self.path, "memory.max"), str(limit))
        else:
            # memsw (memory + swap) must stay >= the memory limit: raise it first, then lower both.
            memsw = os.path.join(self.path, "memory.memsw.limit_in_bytes")
            has_memsw = os.path.exists(memsw)
            if has_memsw:
                write_file(memsw, "-1", quiet=True)
            ok = write_file(os.path.join(self.path, "memory.limit_in_bytes"), str(limit))
            if has_memsw:
                write_file(memsw, str(limit), quiet=True)
        self.limit = limit if ok else None

    def oom_kills(self):
        """How many times the kernel's OOM killer struck in this cgroup (v1: limit hits)."""
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
            write_file(os.path.join(self.path, "cgroup.procs"), str(os.getpid()))

    def kill_all(self):
        """SIGKILLs every process in the cgroup, whatever session it moved to or whichever parent
        death signal it cleared, until none is left (at most 2 s). False if some survived."""
        if self.path is None:
            return True
        if self.kind == "v2":
            write_file(os.path.join(self.path, "cgroup.kill"), "1", quiet=True)
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
