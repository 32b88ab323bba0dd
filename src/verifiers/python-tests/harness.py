"""vitest-seqk Python test harness (Python 3.8+, standard library only).

Node runs it as `python -I -S -B -X utf8 harness.py` with a JSON request on stdin:

    {"setup": "<prompt imports>", "code": "<candidate>", "tests": "<top-level test statements>"}

and reads exactly one JSON result line from file descriptor 3:

    {"outcome": "passed" | "failed" | "load-error" | "tests-error",
     "tests": [{"index", "source", "pass", "call"?, "expected"?, "actual"?, "error"?}],
     "error"?: "<text>"}

Why fd 3 and not stdout: candidate code prints freely (debug output, demos under
`if __name__ == "__main__"`), so stdout/stderr are left to the candidate and the result travels on
a channel it does not write to by accident.

The verdict matches the official HumanEval Pro harness (candidate + tests as one script, every
statement passes), but each top-level test statement runs on its own so that one failure does not
hide the others, and `assert CALL == EXPECTED` reports the call, the expected and the actual value:
the raw material of the paper's "Failed test details" feedback.

This is NOT a sandbox: it only keeps honest mistakes (prints, sys.exit, closing fds) from
corrupting the result. Isolation from hostile code is the job of the process around it.
"""

import ast
import json
import os
import sys
import traceback

# Every repr and error text is cut to this many characters, so an enormous value (a list of a
# million items, a 10 MB string) cannot blow up the result line or the feedback prompt.
MAX_TEXT = 500

# Filenames given to compile(): they appear in tracebacks and let us find the candidate's frames.
CANDIDATE_FILE = "<candidate>"
SETUP_FILE = "<setup>"
TESTS_FILE = "<tests>"


def _open_result_channel():
    """Takes fd 3 private before any candidate code runs.

    The fd is duplicated to a high number and the original fd 3 is closed: a candidate that closes
    fd 3, or opens a file and happens to get fd 3, or writes to it, cannot touch our channel.
    """
    try:
        import fcntl

        fd = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 200)
    except (ImportError, OSError):
        fd = os.dup(3)  # non-inheritable by default (PEP 446)
    os.close(3)
    return os.fdopen(fd, "w", encoding="utf-8")


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
    return text


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


def main():
    channel = _open_result_channel()
    # Read the whole request before the candidate runs: afterwards stdin is at EOF, so a candidate
    # calling input() gets EOFError instead of waiting forever.
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    try:
        result = run(request)
    except BaseException as exc:  # noqa: BLE001 - a harness bug must still produce a result line
        result = {"outcome": "tests-error", "tests": [], "error": "harness error: " + _describe(exc)}
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the candidate may have replaced or closed them
            pass
    # ensure_ascii: the line is plain ASCII whatever the candidate returned (lone surrogates too).
    channel.write(json.dumps(result, ensure_ascii=True) + "\n")
    channel.flush()
    # Exit now: skip the candidate's atexit handlers and non-daemon threads, which could hang or
    # print after the verdict.
    os._exit(0)


if __name__ == "__main__":
    main()
