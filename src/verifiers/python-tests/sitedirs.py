"""The interpreter's third-party packages, for the judge (judge.py) and the worker (worker.py):
both run with `-S` (no `site` at start: faster, no user directory), then put the directories
`python file.py` would have after the standard library on sys.path."""

import os
import sys


def add_site_dirs(dirs):
    """Appends each existing directory of `dirs` (site.getsitepackages() of the interpreter, as
    Node's probe found them) to sys.path. Their .pth files are not run: they hold code (an
    administrator's, a package manager's) that has no business in the judge or the sandbox."""
    for path in dirs or []:
        if isinstance(path, str) and os.path.isdir(path) and path not in sys.path:
            sys.path.append(path)
