"""The candidate's process's report of what a fresh run might do otherwise (candidate.py EntropyProbe),
each case in a forked child as an attempt runs (its imports stay there).

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import json
import os
import sys
import unittest

import candidate

# The zygote preloads typing (worker.py _preload), which puts typing.io in sys.modules by hand.
__import__("typing")


def _report(code, base=True):
    """(reads, sources) of `code` run as an attempt's child runs it, after the zygote noted its
    modules (base) or not."""
    candidate.BASE_MODULES = frozenset(sys.modules) if base else None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: as run_code, without the socket
        os.close(read_end)
        try:
            probe = candidate.EntropyProbe()
            compiled = compile(code, candidate.CANDIDATE_FILE, "exec", dont_inherit=True)
            exec(compiled, {"__name__": "__main__"})  # noqa: S102 - the test's own code
            reads = sorted(probe.loaded(compiled))
            os.write(write_end, json.dumps([reads, probe.sources()]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        out = handle.read()
    os.waitpid(pid, 0)
    candidate.BASE_MODULES = None
    return json.loads(out)


class EntropyProbe(unittest.TestCase):
    def test_plain_code_reports_nothing(self):
        reads, sources = _report("import math\nLIMIT = 3\ndef f(x):\n    return math.floor(x) + LIMIT\n")
        self.assertEqual(sources, [])
        self.assertEqual(reads, ["LIMIT", "floor", "math"])  # attributes too: a name is a name

    def test_a_module_loaded_by_an_import_is_named(self):
        code = "import importlib as _i\n_i.invalidate_caches\n"
        self.assertIn("importlib", _report(code)[1])  # by its name in the code
        loaded = _report("from xml.dom import minidom\ndef f():\n    return minidom\n")[1]
        self.assertEqual(loaded, [])  # a new module, not one that varies
        # Seen by the import log alone (no look at sys.modules, which has no base here to compare with).
        sources = _report("import asyncio.events as ev\ndef f():\n    return ev\n", base=False)[1]
        self.assertIn("asyncio", sources)
        self.assertNotIn("sys.modules changed by hand", sources)

    def test_modules_a_module_puts_in_sys_modules_itself_are_not_a_false_alarm(self):
        # pyexpat adds pyexpat.errors and pyexpat.model without an import.
        self.assertEqual(_report("import xml.etree.ElementTree as T\ndef f():\n    return T\n")[1], [])

    def test_a_module_put_in_sys_modules_by_hand_is_seen(self):
        code = "import sys as s, types as t\ns.modules['secrets'] = t.ModuleType('secrets')\n"
        self.assertEqual(_report(code)[1], ["secrets"])
        self.assertEqual(_report(code, base=False)[1], ["sys.modules changed by hand"])

    def test_a_draw_from_random_is_seen_without_the_name(self):
        code = "import random as r\nf = getattr(r, 'ra' + 'ndom')\nf()\n"
        self.assertIn("random's state", _report(code)[1])


if __name__ == "__main__":
    unittest.main()
