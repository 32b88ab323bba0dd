"""The zygote's parts (worker.py, seccomp.py) without a judge: the output capture keeps exactly the
head and the tail however the stream is chunked, then wipes them; the seccomp filter, loaded in a
forked child, refuses what outlives a process or makes a namespace and lets threads and forks be.

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import ctypes
import os
import random
import unittest

import seccomp
from worker import Capture, write_parts

SEED = 20261201


class OutputCapture(unittest.TestCase):
    def test_head_and_tail_of_any_chunking(self):
        rng = random.Random(SEED)
        for _ in range(300):
            cap = rng.randrange(0, 64)
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
            capture = Capture(cap)
            offset = 0
            while offset < len(data):
                step = rng.randrange(1, 40)
                capture.push(memoryview(data)[offset : offset + step])
                offset += step
            head, tail_size, total = capture.sizes()
            kept = b"".join(bytes(part) for part in capture.parts())
            self.assertEqual(total, len(data))
            self.assertEqual(kept[:head], data[:head])
            self.assertEqual(head, min(len(data), cap // 2))
            self.assertEqual(kept[head:], data[max(head, len(data) - (cap - cap // 2)) :])
            self.assertEqual(tail_size, len(kept) - head)
            capture.wipe()
            self.assertFalse(any(capture.head) or any(capture.tail))

    def test_write_parts_writes_everything_in_order(self):
        r, w = os.pipe()
        try:
            parts = [b"a" * 10, memoryview(b"b" * 5)[1:], b"", bytearray(b"c" * 3)]
            write_parts(w, parts)
            os.close(w)
            w = None
            self.assertEqual(os.read(r, 100), b"a" * 10 + b"b" * 4 + b"c" * 3)
        finally:
            os.close(r)
            if w is not None:
                os.close(w)


def _in_filtered_child(check):
    """Runs `check()` in a forked child under the filter; its exit code (0: as expected)."""
    pid = os.fork()
    if pid == 0:
        code = 90
        try:
            code = 91 if not seccomp.install() else check()
        finally:
            os._exit(code)
    return (
        os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if hasattr(os, "waitstatus_to_exitcode")
        else os.waitpid(pid, 0)[1] >> 8
    )


@unittest.skipUnless(os.uname().machine in ("x86_64", "aarch64"), "the filter knows x86_64 and aarch64")
class Filter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        seccomp.load_libc()
        seccomp.build()

    def test_posix_message_queues_are_refused(self):
        def check():
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mq_open.restype = ctypes.c_int
            fd = libc.mq_open(b"/seqk-test-queue", os.O_CREAT | os.O_RDWR, 0o600, None)
            return 0 if fd == -1 and ctypes.get_errno() == 1 else 1

        self.assertEqual(_in_filtered_child(check), 0)

    def test_a_clone_into_a_new_user_namespace_is_refused(self):
        def check():
            libc = ctypes.CDLL(None, use_errno=True)
            return 0 if libc.unshare(0x10000000) == -1 and ctypes.get_errno() == 1 else 1

        self.assertEqual(_in_filtered_child(check), 0)
        number = {"x86_64": 56, "aarch64": 220}[os.uname().machine]

        def clone_check():
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            result = libc.syscall(ctypes.c_long(number), ctypes.c_ulong(0x10000000 | 17), None, None, None, None)
            if result == 0:
                os._exit(0)
            return 0 if result == -1 and ctypes.get_errno() == 1 else 1

        self.assertEqual(_in_filtered_child(clone_check), 0)

    def test_threads_and_forks_still_work(self):
        def check():
            import threading

            done = []
            thread = threading.Thread(target=lambda: done.append(1))
            thread.start()
            thread.join()
            pid = os.fork()
            if pid == 0:
                os._exit(7)
            status = os.waitpid(pid, 0)[1]
            return 0 if done == [1] and os.WEXITSTATUS(status) == 7 else 1

        self.assertEqual(_in_filtered_child(check), 0)

    def test_every_refused_call_has_its_number_on_every_architecture(self):
        for machine in ("x86_64", "aarch64"):
            x32 = 2 if machine == "x86_64" else 0
            self.assertEqual(len(seccomp.program(machine)), 4 + x32 + 2 * len(seccomp.DENIED) + 2 + 5)

    def test_the_program_allows_by_default(self):
        program = seccomp.program()
        self.assertEqual(program[-1], (0x06, 0, 0, 0x7FFF0000))
        self.assertLessEqual(len(program), 255)


if __name__ == "__main__":
    unittest.main()
