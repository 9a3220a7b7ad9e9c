"""Old import paths of modules that moved, kept working: each old name is the moved module itself.

``import satdt.solvers.dpdt.build`` returns the module object of ``satdt.heuristics.dpdt.build``
(not a copy), so attributes, classes and monkeypatching are shared between the two names. The
finder is installed by ``satdt/__init__.py``, before any ``satdt.solvers`` import can run.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "new_name"]

#: old module path -> where it lives now (a package's submodules follow it)
MOVED = {
    "satdt.solvers.dpdt": "satdt.heuristics.dpdt",  # heuristic comparators, below the exact engines
    "satdt.solvers.rl": "satdt.heuristics.rl",
    "satdt.solvers.consistent": "satdt.solvers.engine_choice",  # the engine="auto" choice
}


def new_name(name: str) -> str | None:
    """The current path of the module once called ``name``, or None when it did not move."""
    for old, new in MOVED.items():
        if name == old or name.startswith(old + "."):
            return new + name[len(old):]
    return None


class _OldPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves an old path of :data:`MOVED` to the moved module (imported under its new name)."""

    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        module = importlib.import_module(new)
        return importlib.util.spec_from_loader(fullname, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec):
        return importlib.import_module(new_name(spec.name))

    def exec_module(self, module) -> None:
        """Nothing to run: the module ran under its new name."""


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPath) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPath())
