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
DENIED = (
    "ptrace process_vm_readv process_vm_writev kcmp pidfd_getfd pidfd_open process_madvise "
    "shmget shmat shmctl shmdt semget semop semctl semtimedop msgget msgsnd msgrcv msgctl "
    "mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify mq_getsetattr "
    "io_uring_setup io_uring_enter io_uring_register bpf perf_event_open userfaultfd "
    "setns unshare mount umount2 pivot_root chroot open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr "
    "keyctl add_key request_key open_by_handle_at name_to_handle_at "
    "kexec_load kexec_file_load init_module finit_module delete_module"
).split()

# The syscall numbers of each architecture the filter knows, and its AUDIT_ARCH value.
# fmt: off
_NUMBERS = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438,
        "pidfd_open": 434, "process_madvise": 440, "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
        "semget": 64, "semop": 65, "semctl": 66, "semtimedop": 220, "msgget": 68, "msgsnd": 69, "msgrcv": 70,
        "msgctl": 71, "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
        "mq_notify": 244, "mq_getsetattr": 245, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323, "setns": 308,
        "unshare": 272, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "keyctl": 250, "add_key": 248, "request_key": 249, "open_by_handle_at": 304, "name_to_handle_at": 303,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "clone": 56, "clone3": 435,
    }),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272, "pidfd_getfd": 438,
        "pidfd_open": 434, "process_madvise": 440, "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197,
        "semget": 190, "semop": 193, "semctl": 191, "semtimedop": 192, "msgget": 186, "msgsnd": 189,
        "msgrcv": 188, "msgctl": 187, "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
        "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
        "setns": 268, "unshare": 97, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
        "keyctl": 219, "add_key": 217, "request_key": 218, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "clone": 220, "clone3": 435,
    }),
}
# fmt: on
# clone: refused (EPERM) when its flags ask for a new namespace; clone3 (flags behind a pointer
# a filter cannot read) answers ENOSYS, so that libc falls back to clone.
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
    if machine not in _NUMBERS:
        return None
    audit_arch, numbers = _NUMBERS[machine]
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    eperm, enosys, allow = 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS, 0x7FFF0000
    prog = [(ld, 0, 0, 4), (jeq, 1, 0, audit_arch), (ret, 0, 0, 0x80000000), (ld, 0, 0, 0)]
    if machine == "x86_64":
        prog += [(jge, 0, 1, 0x40000000), (ret, 0, 0, eperm)]  # the x32 ABI
    for name in DENIED:
        prog += [(jeq, 0, 1, numbers[name]), (ret, 0, 0, eperm)]
    prog += [(jeq, 0, 1, numbers["clone3"]), (ret, 0, 0, enosys)]
    # Last, as it loads the flags over the syscall number: not clone -> allow; clone -> its flags.
    prog += [(jeq, 0, 3, numbers["clone"]), (ld, 0, 0, 16), (jset, 0, 1, CLONE_NEWNAMESPACES), (ret, 0, 0, eperm)]
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
