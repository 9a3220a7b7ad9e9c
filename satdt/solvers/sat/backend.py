"""One incremental python-sat [12] solver: bulk clause loading and wall-clock-limited solves.

The MiniSat family (glucose, minisat, maple, mergesat) is interrupted by the process's one
watchdog thread (:meth:`satdt.deadline.Deadline.watch`); CaDiCaL cannot be interrupted from
Python (it holds the interpreter lock), so it runs in a loop of conflict budgets that checks the
clock between calls. A solve answers python-sat's way: True (SAT), False (UNSAT) or None (time or
budget spent). References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import time
from collections import deque
from itertools import repeat
from typing import Callable

import numpy as np
from pysat.solvers import Solver

from ...deadline import Deadline
from ...encodings.sat_depth import ClauseBlock
from . import tuning

try:  # the C entry points of python-sat: one call per clause, no Python wrapper in between
    import pysolvers as _pysolvers
except ImportError:  # pragma: no cover
    _pysolvers = None

__all__ = ["SatBackend", "bulk_adder", "add_blocks", "check_solver_name", "SOLVERS", "INTERRUPTIBLE", "BUDGETED",
           "DEFAULT_SOLVER"]

#: backends a timer thread can interrupt
INTERRUPTIBLE = ("glucose4", "glucose3", "glucose42", "minisat22", "minisatgh", "maplechrono", "maplecm",
                 "maplesat", "mergesat3")
#: backends driven by conflict budgets under a time limit (they hold the GIL while solving)
BUDGETED = ("cadical195", "cadical153")
SOLVERS = INTERRUPTIBLE + BUDGETED
#: CaDiCaL's options under a time limit: no bounded variable elimination, a step conflict
#: budgets cannot bound (see :class:`SatBackend`)
CADICAL_LIMITED = {"elim": 0}
DEFAULT_SOLVER = "glucose4"

# (pysolvers function prefix, attribute of the pysat wrapper holding the C pointer)
_C_API = {"glucose4": ("glucose41", "glucose"), "glucose3": ("glucose3", "glucose"),
          "glucose42": ("glucose421", "glucose"), "minisat22": ("minisat22", "minisat"),
          "minisatgh": ("minisatgh", "minisat"), "maplechrono": ("maplechrono", "maplesat"),
          "maplecm": ("maplecm", "maplesat"), "maplesat": ("maplesat", "maplesat"),
          "mergesat3": ("mergesat3", "mergesat"), "cadical195": ("cadical195", "cadical"),
          "cadical153": ("cadical153", "cadical")}


_PYSAT_NAME = {"minisatgh": "minisat-gh"}


def check_solver_name(name: str) -> str:
    """Return ``name`` if it is a supported backend, else raise ValueError listing them."""
    if name not in SOLVERS:
        raise ValueError(f"unknown SAT solver {name!r}; choose one of {', '.join(SOLVERS)}")
    return name


def bulk_adder(solver: Solver, name: str) -> tuple[Callable, object]:
    """The C function adding one clause to a python-sat ``solver`` of backend ``name``, and the
    pointer it takes (falls back on the Python wrapper if the layout differs)."""
    prefix, attr = _C_API[name]
    inner = solver.solver
    fn = getattr(_pysolvers, f"{prefix}_add_cl", None) if _pysolvers is not None else None
    ptr = getattr(inner, attr, None)
    if fn is None or ptr is None:  # pragma: no cover - other python-sat layout
        return (lambda _ptr, clause: inner.add_clause(list(clause))), None
    return fn, ptr


def add_blocks(add: Callable, ptr: object, blocks: list[ClauseBlock]) -> int:
    """Add clause blocks in bulk: each 2-D int array is flattened once (``tolist``), cut into
    tuples by ``zip`` and fed to the C adder by ``map``; no per-clause Python frame. Returns the
    number of clauses."""
    total = 0
    for block in blocks:
        if isinstance(block, np.ndarray):
            if block.size == 0:
                continue
            width = block.shape[1]
            clauses = zip(*[iter(block.ravel().tolist())] * width)
            count = block.shape[0]
        else:
            clauses, count = block, len(block)
        deque(map(add, repeat(ptr), clauses), maxlen=0)
        total += count
    return total


class SatBackend:
    """One incremental python-sat solver: bulk clause loading and wall-clock-limited solves.

    Parameters
    ----------
    name : str
        One of :data:`SOLVERS`.
    time_limited : bool
        The solves will run under a time limit. CaDiCaL then runs without bounded variable
        elimination (:data:`CADICAL_LIMITED`): one elimination round on a million-clause encoding
        (wine at depth 4) takes 1.5 s inside a single conflict budget, past any deadline, and
        nothing can interrupt it. Measured on seven bundled sets without a limit, the option
        changes solve times within noise (``benchmarks/RESULTS.md``, CaDiCaL and elimination).
    """

    def __init__(self, name: str, time_limited: bool = False):
        self.name = check_solver_name(name)
        self.solver = Solver(name=_PYSAT_NAME.get(name, name))
        if time_limited and self.name in BUDGETED:
            self.solver.configure(CADICAL_LIMITED)  # before the first clause (CaDiCaL's rule)
        self.n_clauses = 0
        self.sat_calls = 0
        self.solve_time = 0.0
        self.add_time = 0.0
        self._add, self._ptr = bulk_adder(self.solver, name)

    #: clauses loaded between two checks of the deadline (~0.05 s of loading)
    ADD_SLICE = 50_000

    def add(self, blocks: list[ClauseBlock], deadline: Deadline | None = None) -> bool:
        """Add clause blocks (2-D int arrays, one clause a row, or lists of clauses).

        With a ``deadline``, the blocks go in slices of :attr:`ADD_SLICE` clauses and loading
        stops once it has passed (a large load, e.g. ten rows of a 1,259-column encoding, takes
        0.25 s, a second on a loaded machine): returns False then, the solver holding only part of
        the clauses (the caller gives up on it), else True.
        """
        t0 = time.perf_counter()
        try:
            if deadline is None or deadline.remaining() is None:
                self.n_clauses += add_blocks(self._add, self._ptr, blocks)
                return True
            step = self.ADD_SLICE
            for block in blocks:
                for lo in range(0, max(len(block), 1), step):
                    if deadline.expired():
                        return False
                    self.n_clauses += add_blocks(self._add, self._ptr, [block[lo:lo + step]])
            return True
        finally:
            self.add_time += time.perf_counter() - t0

    def solve(self, assumptions: list[int], deadline: Deadline, tick: Callable[[], None] | None = None,
              budget: int | None = None) -> bool | None:
        """SAT (True), UNSAT (False) or None when the deadline passed (or ``budget`` conflicts
        were spent) first.

        ``tick``: called between chunks of :data:`~satdt.solvers.sat.tuning.TICK_CONFLICTS` conflicts (the progress
        reports of a long call); the search runs in such chunks only when it is given.
        """
        if deadline.expired():
            return None
        self.sat_calls += 1
        t0 = time.perf_counter()
        try:
            if self.name in BUDGETED:  # CaDiCaL: no interruptible call, so budgets with or without a limit
                return self._solve_budgeted(assumptions, deadline, tick, budget)
            return self._solve_chunks(assumptions, deadline, tick, budget)
        finally:
            self.solve_time += time.perf_counter() - t0

    def _solve_chunks(self, assumptions: list[int], deadline: Deadline, tick: Callable[[], None] | None,
                      budget: int | None) -> bool | None:
        """Whole solve, or chunks of conflicts with ``tick`` in between, up to ``budget``."""
        if tick is None and budget is None:
            return self._solve_once(assumptions, deadline)
        spent = 0
        try:
            while budget is None or spent < budget:
                chunk = tuning.TICK_CONFLICTS if tick is not None else budget
                if budget is not None:
                    chunk = min(chunk, budget - spent)
                before = self.conflicts()
                self.solver.conf_budget(chunk)
                result = self._solve_once(assumptions, deadline)
                if result is not None:
                    return result
                if deadline.expired():
                    return None
                spent += max(1, self.conflicts() - before)
                if tick is not None:
                    tick()
            return None
        finally:
            self.solver.conf_budget(-1)  # budgets persist in the MiniSat family: switch it off

    def _solve_once(self, assumptions: list[int], deadline: Deadline) -> bool | None:
        # the MiniSat family is interruptible without a time limit too: satdt.deadline.interrupt (a
        # signal) stops it, and PySAT's own SIGINT handler (which raises and loses the search) is
        # not installed; CaDiCaL has no interrupt (nor limited solve): a plain call
        if self.name not in INTERRUPTIBLE:
            return self.solver.solve_limited(assumptions=assumptions)
        return self._solve_interrupt(assumptions, deadline)

    def _solve_interrupt(self, assumptions: list[int], deadline: Deadline) -> bool | None:
        """One call the shared watchdog (:meth:`satdt.deadline.Deadline.watch`) interrupts at the
        deadline; it never interrupts after the block, so clearing the flag is safe."""
        try:
            with deadline.watch(self.solver.interrupt):
                return self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            self.solver.clear_interrupt()

    def _solve_budgeted(self, assumptions: list[int], deadline: Deadline, tick: Callable[[], None] | None = None,
                        limit: int | None = None) -> bool | None:
        """CaDiCaL under a time limit: a loop of conflict budgets that checks the clock (and
        ticks) between calls, up to ``limit`` conflicts."""
        budget = 200
        spent = 0
        try:
            while not deadline.expired() and (limit is None or spent < limit):
                chunk = budget if limit is None else min(budget, limit - spent)
                before = self.conflicts()
                self.solver.conf_budget(chunk)
                t0 = time.perf_counter()
                result = self.solver.solve_limited(assumptions=assumptions)
                if result is not None:
                    return result
                spent += max(1, self.conflicts() - before)
                if tick is not None:
                    tick()
                took = max(time.perf_counter() - t0, 1e-4)
                left = deadline.remaining()
                left = 1.0 if left is None else left  # no limit: chunks of ~0.05 s (Ctrl-C between them)
                # aim at chunks of ~0.05 s, never much beyond the time left; grow slowly (a chunk's
                # conflicts get dearer as the learnt clauses pile up)
                target = min(0.05, max(left, 0.01))
                budget = int(max(100, min(budget * 2, budget * target / took)))
            return None
        finally:
            self.solver.conf_budget(-1)

    def model(self) -> list[int]:
        return self.solver.get_model()

    def conflicts(self) -> int:
        """Conflicts of every call on this solver so far (python-sat ``accum_stats``)."""
        return int(self.solver.accum_stats().get("conflicts", 0))

    def close(self) -> None:
        self.solver.delete()
