"""satdt: provably optimal decision trees with constraint solvers."""

from typing import Any

from . import _early_signals  # noqa: F401 - the satdt program's first signal handlers, before numpy
from . import _moved

_moved.install()  # old import paths of moved modules (satdt.solvers.dpdt, ...) keep working

# (the imports below come after the signal handlers and the finder on purpose)
from .binarize import Binarizer, BinaryProblem, BinaryTest, ConflictError
from .data import DataError, Dataset, load_csv, load_dataset, prepare
from .result import FEASIBLE, INFEASIBLE, NOT_OPTIMAL, OPTIMAL, UNKNOWN, SolveResult, Status
from .tree import Node, Tree

__version__ = "0.1.0"

__all__ = ["Binarizer", "BinaryProblem", "BinaryTest", "ConflictError", "DataError", "Dataset",
           "load_csv", "load_dataset", "prepare", "SolveResult", "Tree", "Node",
           "Status", "OPTIMAL", "FEASIBLE", "INFEASIBLE", "UNKNOWN", "NOT_OPTIMAL",
           "ConsistentTreeClassifier"]

#: names loaded on first use: the estimators import scikit-learn, which ``import satdt`` (and the
#: CLI's start) does not pay for
_LAZY = {"ConsistentTreeClassifier": "estimators", "SATTreeClassifier": "estimators"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'satdt' has no attribute {name!r}")
