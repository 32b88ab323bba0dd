"""The floor of the machine for judging code answers (test/verify-throughput.bench.ts): one warm
process that forks a clean child per task, which runs the task's program (candidate and tests,
as the official procedure joins them) and exits 0 when it ran through. No judge, no socket, no
sandbox, no limits but a 3 s alarm, no Node: what a verdict costs at least on this machine.

    /usr/bin/python3 test/fork-floor.py <programs.json> <concurrency>

<programs.json> is a JSON list of program texts; prints {"passed": n, "total": n} when done.
"""

import json
import os
import signal
import sys

TIMEOUT_SECONDS = 3


def run_child(program):
    """In the forked child: the program as `python file.py` would run it, output discarded."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_SECONDS)  # SIGALRM's default action ends it
    try:
        exec(compile(program, "<program>", "exec"), {"__name__": "__main__"})  # noqa: S102 - the bench's own programs
    except BaseException:  # any failure of the program, SystemExit included, is a fail
        os._exit(1)
    os._exit(0)


def main(argv):
    with open(argv[1]) as handle:
        programs = json.load(handle)
    concurrency = max(1, int(argv[2]))
    running = 0
    passed = 0
    for program in programs:
        if running == concurrency:
            _, status = os.wait()
            running -= 1
            passed += os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if os.fork() == 0:
            run_child(program)
        running += 1
    while running:
        _, status = os.wait()
        running -= 1
        passed += os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    print(json.dumps({"passed": passed, "total": len(programs)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
