"""The harness's shape: the modules run-harness.ts loads, in its order, import only harness modules
loaded before them (the loader has no import machinery), and no function of the judge or the
worker runs past 60 lines.

    /usr/bin/python3 -m unittest discover -s src/verifiers/python-tests -p 'test_*.py'
"""

import ast
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_FUNCTION_LINES = 60


def _load_order(name):
    """JUDGE_MODULES or WORKER_MODULES, as run-harness.ts declares it."""
    with open(os.path.join(HERE, "run-harness.ts")) as handle:
        source = handle.read()
    match = re.search(r"const %s = \[([^\]]*)\] as const" % name, source)
    return re.findall(r"'(\w+)'", match.group(1))


def _tree(module):
    with open(os.path.join(HERE, module + ".py")) as handle:
        return ast.parse(handle.read())


def _harness_imports(module, harness):
    names = set()
    for node in ast.walk(_tree(module)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name in harness)
        elif isinstance(node, ast.ImportFrom) and node.module in harness:
            names.add(node.module)
    return names


class Layout(unittest.TestCase):
    def test_each_module_imports_only_modules_loaded_before_it(self):
        for order in (_load_order("JUDGE_MODULES"), _load_order("WORKER_MODULES")):
            self.assertGreater(len(order), 3)
            for index, module in enumerate(order):
                self.assertLessEqual(
                    _harness_imports(module, set(order) | {"judge", "worker", "attempt", "candidate"}),
                    set(order[:index]),
                    module,
                )

    def test_no_function_of_the_judge_or_the_worker_is_over_60_lines(self):
        for module in ("judge", "worker"):
            for node in ast.walk(_tree(module)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.assertLessEqual(
                        node.end_lineno - node.lineno + 1, MAX_FUNCTION_LINES, "%s.%s" % (module, node.name)
                    )


if __name__ == "__main__":
    unittest.main()
