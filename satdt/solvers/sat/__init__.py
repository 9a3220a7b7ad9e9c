"""Minimum-depth and minimum-size consistent trees with SAT (Avellaneda, AAAI-20 [6]).

``solve_min_depth`` (DT_depth) searches the depth ``k`` upward from ``ceil(log2 C)``;
``solve_min_size`` (DT_size) then tightens a bound on the number of splits of a tree of depth
``<= K`` on one incremental solver until UNSAT.

Both use *incremental example addition*: the encoding starts with one row per class; each
model is decoded into a tree, evaluated on every distinct row, and ``rows_per_round`` of the
rows it misclassifies are added to the same solver, until a model classifies every row (SAT on
all rows) or the solver proves UNSAT on a subset (UNSAT on all rows). A *subtree repair* (a
large-neighbourhood step triggered and budgeted by solver conflicts, never seconds) can close a
depth early; minimality is always the UNSAT proof of the depth or bound below. Time limits are
wall-clock for the whole call.

One module a job:

================  ======================================================================
``backend``       one incremental python-sat [12] solver: bulk clause loading, solves under
                  the deadline (the shared watchdog, or conflict budgets for CaDiCaL)
``state``         what a call carries (:class:`SearchState`), the answer to one SAT
                  question (:class:`Answer`), the options' defaults, the way out
                  (:func:`make_result`)
``rows``          incremental example addition: one question for every row
``repair``        the subtree repair
``incumbent``     the lazily built greedy starting tree
``depth``         DT_depth: :func:`solve_min_depth`
``size``          DT_size: :func:`solve_min_size`
``tuning``        the measured constants (conflict budgets, intervals)
================  ======================================================================

The tuning constants can be set on this package (``satdt.solvers.sat.CART_AFTER_S = 0.0``, as
benchmarks and tests do): the assignment is forwarded to :mod:`satdt.solvers.sat.tuning`, where
the search reads them. References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import sys
import types

from . import tuning
from .backend import (_PYSAT_NAME, BUDGETED, DEFAULT_SOLVER, INTERRUPTIBLE, SOLVERS, SatBackend, add_blocks,
                      bulk_adder, check_solver_name)
from .depth import solve_min_depth
from .size import DEFAULT_SIZE_SEARCH, SIZE_SEARCHES, solve_min_size
from .state import (DEFAULT_AT_MOST_ONE, DEFAULT_REPAIR, DEFAULT_ROW_PICK, DEFAULT_ROWS_PER_ROUND, DEFAULT_USELESS,
                    ROW_PICKS, Answer)

__all__ = ["solve_min_depth", "solve_min_size", "SatBackend", "bulk_adder", "add_blocks", "check_solver_name",
           "SOLVERS", "INTERRUPTIBLE", "BUDGETED", "DEFAULT_SOLVER", "DEFAULT_ROWS_PER_ROUND", "DEFAULT_AT_MOST_ONE",
           "DEFAULT_USELESS", "DEFAULT_SIZE_SEARCH", "SIZE_SEARCHES", "ROW_PICKS", "DEFAULT_ROW_PICK",
           "DEFAULT_REPAIR", "Answer", "tuning"]

# ``_PYSAT_NAME`` is imported by :mod:`satdt.solvers.maxsat` from here


class _Package(types.ModuleType):
    """This package's module type: each tuning constant is a property that reads and sets it in
    :mod:`.tuning` (a data descriptor, so ``monkeypatch.setattr`` restores it there too)."""


def _forward(name: str) -> property:
    return property(lambda _self: getattr(tuning, name), lambda _self, value: setattr(tuning, name, value),
                    doc=f"satdt.solvers.sat.tuning.{name}")


for _name in tuning.__all__:
    setattr(_Package, _name, _forward(_name))
del _name

sys.modules[__name__].__class__ = _Package
