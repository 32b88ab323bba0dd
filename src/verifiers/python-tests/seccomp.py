"""The candidate's seccomp filter, and prctl: what the worker (worker.py) and the candidate's
process (candidate.py) need of libc through ctypes."""

import ctypes
import errno
import platform

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2

# Syscalls refused with EPERM: every way to reach another process's descriptors or memory
# (ptrace, pidfd_getfd, pidfd_open, process_vm_*, kcmp, process_madvise), IPC that outlives a
# process (System V shared memory, semaphores and message queues, POSIX message queues: each
# would carry data to the next attempt and stay charged to the worker), and kernel surfaces no
# test needs (io_uring, bpf, perf, userfaultfd, namespaces, mounts and the new mount API, keys,
# modules, file handles).
_DENIED = {
    "x86_64": (
        0xC000003E,
        [
            101,
            310,
            311,
            312,
            438,
            434,
            440,
            425,
            426,
            427,
            321,
            298,
            323,
            308,
            272,
            165,
            166,
            155,
            161,
            250,
            248,
            249,
            304,
            303,
            246,
            320,
            175,
            313,
            176,
        ]
        + [29, 30, 31, 64, 65, 66, 67, 68, 69, 70, 71, 220]
        + [240, 241, 242, 243, 244, 245]
        + [428, 429, 430, 431, 432, 433, 442],
    ),
    "aarch64": (
        0xC00000B7,
        [
            117,
            270,
            271,
            272,
            438,
            434,
            440,
            425,
            426,
            427,
            280,
            241,
            282,
            268,
            97,
            40,
            39,
            41,
            51,
            219,
            217,
            218,
            265,
            264,
            104,
            294,
            105,
            273,
            106,
        ]
        + [186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196, 197]
        + [180, 181, 182, 183, 184, 185]
        + [428, 429, 430, 431, 432, 433, 442],
    ),
}
# clone: refused (EPERM) when its flags ask for a new namespace; clone3 (flags behind a pointer
# a filter cannot read) answers ENOSYS, so that libc falls back to clone.
_CLONE = {"x86_64": 56, "aarch64": 220}
CLONE3 = 435
CLONE_NEWNAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

_libc = None
_filter = None


def load_libc():
    global _libc
    try:
        _libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        _libc = None


def prctl(option, value, arg3=0):
    if _libc is None:
        return -1
    try:
        # Every argument as an unsigned long: a pointer passed as a plain int would be cut to 32 bits.
        return _libc.prctl(
            ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(arg3), ctypes.c_ulong(0), ctypes.c_ulong(0)
        )
    except (OSError, ctypes.ArgumentError):
        return -1


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def program(machine=None):
    """A classic-BPF filter as (code, jt, jf, k) tuples: kill a foreign architecture (no i386/x32
    detours), refuse the denied syscalls and namespace-making clones, allow the rest. None where
    the architecture is unknown."""
    machine = machine or platform.machine()
    arch = _DENIED.get(machine)
    if arch is None:
        return None
    audit_arch, denied = arch
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    eperm, enosys, allow = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS, 0x7FFF0000
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit_arch), (ret, 0, 0, 0x80000000), (ld, 0, 0, 0)]
    if machine == "x86_64":
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # the x32 ABI
    for number in denied:
        prog += [(jeq, 0, 1, number), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 1, CLONE3), (ret, 0, 0, enosys)]
    # Last, as it loads the flags over the syscall number: not clone -> allow; clone -> its flags.
    prog += [(jeq, 0, 3, _CLONE[machine]), (ld, 0, 0, 16), (jset, 0, 1, CLONE_NEWNAMESPACES), (ret, 0, 0, eperm)]
    prog.append((ret, 0, 0, allow))
    return prog


def build():
    """The filter as a ctypes program, built once in the zygote before it forks (building it per
    attempt cost ~0.2 ms); None where it cannot be built."""
    global _filter
    prog = program()
    if prog is None or _libc is None:
        return None
    filters = (_SockFilter * len(prog))(*[_SockFilter(*ins) for ins in prog])
    _filter = (filters, _SockFprog(len(prog), filters))
    return _filter


def available():
    return _filter is not None


def install():
    """Loads the filter into this process (and so every process it starts). True on success."""
    built = _filter or build()
    if built is None:
        return False
    if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        return False
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(built[1])) == 0
