"""Minimum-depth and minimum-size consistent trees with SAT (Avellaneda, AAAI-20).

``solve_min_depth`` (DT_depth) searches the depth ``k`` upward from ``ceil(log2 C)``;
``solve_min_size`` (DT_size) then tightens a bound on the number of splits of a tree of depth
``<= K`` on one incremental solver until UNSAT.

Both use *incremental example addition*: the encoding starts with one row per class; each
model is decoded into a tree, evaluated on every distinct row, and ``rows_per_round`` of the
rows it misclassifies are added to the same solver, until a model classifies every row (SAT on
all rows) or the solver proves UNSAT on a subset (UNSAT on all rows). Rows added at depth ``k``
are kept for ``k + 1``.

*Subtree repair* (:func:`_repair`, a large-neighbourhood step): a model's top three levels are
kept and the subtrees below are re-solved by small SAT calls on every row that reaches them; a
full repair is a consistent tree of depth ``k`` (that depth's search ends; minimality is still
the UNSAT proof of ``k - 1``). It is tried (1) on each model of a hard round (a SAT call of at
least :data:`REPAIR_AFTER_CONFLICTS` conflicts) and (2) when depth ``k`` starts, on the
:data:`SEED_MODELS` model(s) of depth ``k - 1`` that misclassified the fewest rows, given one more
level (:func:`_deepen`): on the edge of feasibility, their tops are good tops for depth ``k``.
Triggers and budgets count solver *conflicts* (python-sat ``accum_stats``), never seconds, so a
seed takes the same path at any machine load. A failed repair can also hand back the core rows
of the region it could not fix (:data:`CORE_ROWS_CAP`, 0 by default: measured slower on car).

Time limits are wall-clock for the whole call. The MiniSat family (glucose, minisat, maple,
mergesat) is interrupted by the process's one watchdog thread (:meth:`satdt.deadline.Deadline.watch`); CaDiCaL
cannot be interrupted from Python (it holds the interpreter lock), so it runs in a loop of
conflict budgets that checks the clock between calls.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from itertools import repeat
from math import ceil, log2
from typing import Callable

import numpy as np
from pysat.solvers import Solver

from ..binarize import BinaryProblem
from ..progress import ProgressCallback, ProgressReporter
from ..result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult
from ..tree import Node, Tree
from ..encodings.sat_depth import ClauseBlock, DepthEncoding
from ..encodings.sat_size import SizeEncoding
from .common import Deadline, TreeCheckError, cart_binary_tree, finalize_tree

try:  # the C entry points of python-sat: one call per clause, no Python wrapper in between
    import pysolvers as _pysolvers
except ImportError:  # pragma: no cover
    _pysolvers = None

__all__ = ["solve_min_depth", "solve_min_size", "SatBackend", "bulk_adder", "add_blocks", "SOLVERS", "INTERRUPTIBLE", "BUDGETED",
           "DEFAULT_SOLVER", "DEFAULT_ROWS_PER_ROUND", "DEFAULT_AT_MOST_ONE", "DEFAULT_USELESS",
           "DEFAULT_SIZE_SEARCH", "SIZE_SEARCHES", "ROW_PICKS", "DEFAULT_ROW_PICK", "DEFAULT_REPAIR"]

#: backends a timer thread can interrupt
INTERRUPTIBLE = ("glucose4", "glucose3", "glucose42", "minisat22", "minisatgh", "maplechrono", "maplecm",
                 "maplesat", "mergesat3")
#: backends driven by conflict budgets under a time limit (they hold the GIL while solving)
BUDGETED = ("cadical195", "cadical153")
SOLVERS = INTERRUPTIBLE + BUDGETED
DEFAULT_SOLVER = "glucose4"
DEFAULT_ROWS_PER_ROUND = 10
DEFAULT_AT_MOST_ONE = "none"
DEFAULT_USELESS = False
DEFAULT_SIZE_SEARCH = "descending"
ROW_PICKS = ("random", "leaf")
DEFAULT_ROW_PICK = "random"
DEFAULT_REPAIR = True
#: conflicts per chunk of a SAT call that reports progress (one tick between two chunks)
TICK_CONFLICTS = 20_000
#: seconds between two progress ticks
PROGRESS_INTERVAL = 2.0

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
    """

    def __init__(self, name: str):
        self.name = check_solver_name(name)
        self.solver = Solver(name=_PYSAT_NAME.get(name, name))
        self.n_clauses = 0
        self.sat_calls = 0
        self.solve_time = 0.0
        self.add_time = 0.0
        self._add, self._ptr = bulk_adder(self.solver, name)

    def add(self, blocks: list[ClauseBlock]) -> None:
        """Add clause blocks (2-D int arrays, one clause a row, or lists of clauses)."""
        t0 = time.perf_counter()
        self.n_clauses += add_blocks(self._add, self._ptr, blocks)
        self.add_time += time.perf_counter() - t0

    def solve(self, assumptions: list[int], deadline: Deadline, tick: Callable[[], None] | None = None,
              budget: int | None = None) -> bool | None:
        """SAT (True), UNSAT (False) or None when the deadline passed (or ``budget`` conflicts
        were spent) first.

        ``tick``: called between chunks of :data:`TICK_CONFLICTS` conflicts (the progress
        reports of a long call); the search runs in such chunks only when it is given.
        """
        if deadline.expired():
            return None
        self.sat_calls += 1
        t0 = time.perf_counter()
        try:
            if self.name in BUDGETED and deadline.remaining() is not None:
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
                chunk = TICK_CONFLICTS if tick is not None else budget
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
        if deadline.remaining() is None:
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
                left = deadline.remaining() or 0.0
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


# --------------------------------------------------------------------------- search state
@dataclass
class _State:
    """What one call carries across depths and bounds."""

    problem: BinaryProblem
    labels: np.ndarray
    deadline: Deadline
    solver: str
    rows_per_round: int
    at_most_one: str
    incremental: bool
    rng: np.random.Generator
    phases: bool = False
    row_pick: str = "random"
    used: np.ndarray = None  # bool mask of distinct rows in the encoding
    rounds: int = 0
    sat_calls: int = 0
    build_time: float = 0.0
    solve_time: float = 0.0
    depth_times: dict = field(default_factory=dict)
    size_steps: list = field(default_factory=list)  # (bound on splits, "sat"/"unsat"/"timeout", s)
    repair: bool = True
    repairs: list = field(default_factory=list)  # (rows in the encoding, repaired?, s) per attempt
    core_rows: int = 0  # rows added from the unrepairable regions of failed repairs
    conflicts: int = 0  # conflicts of the main incremental loop's SAT calls
    depth_start_conflicts: int = 0  # state.conflicts when the current depth started
    seed_models: list = field(default_factory=list)  # (depth, wrong rows, feature, leaf_class): a depth's best models

    def keep_model(self, depth: int, n_wrong: int, feature: np.ndarray, leaf_class: np.ndarray) -> None:
        """Keep the :data:`SEED_MODELS` models of ``depth`` that misclassify the fewest rows."""
        models = [m for m in self.seed_models if m[0] == depth]
        if len(models) >= SEED_MODELS and n_wrong >= models[-1][1]:
            return
        if any(m[1] == n_wrong and np.array_equal(m[2], feature) for m in models):
            return
        models.append((depth, int(n_wrong), feature, leaf_class))
        models.sort(key=lambda m: m[1])
        self.seed_models = models[:SEED_MODELS]
    repair_outcomes: dict = field(default_factory=dict)  # "repaired" / "stuck" / "out of budget" -> count
    call_log: list = field(default_factory=list)  # (depth, rows, conflicts, s) per main SAT call
    last: dict = field(default_factory=dict)  # variables/clauses of the last encoding
    report: ProgressReporter = None  # progress events (a no-op without a callback)
    objective: str = "depth"  # units of the reported incumbent and bound: "depth" or "nodes"
    closed_conflicts: int = 0  # conflicts of the solvers already closed
    trying: str = ""  # what is being tried (the message of progress ticks)

    def improve(self, incumbent: float | None = None, bound: float | None = None, message: str | None = None) -> None:
        """Report a better incumbent (smaller) or a higher proven bound; others are dropped."""
        rep = self.report
        if rep is None or not rep.active:
            return
        message = self.trying if message is None else message
        if incumbent is not None and (rep.incumbent is None or incumbent < rep.incumbent):
            rep.emit("incumbent", incumbent=incumbent, message=message)
        if bound is not None and (rep.bound is None or bound > rep.bound):
            rep.emit("bound", bound=bound, message=message)

    def tick(self, backend: "SatBackend | None" = None) -> None:
        """A throttled progress tick with the conflicts so far."""
        if self.report is None or not self.report.active:
            return
        conflicts = self.closed_conflicts + (backend.conflicts() if backend is not None else 0)
        self.report.tick(conflicts=conflicts, message=self.trying)

    def close(self, backend: "SatBackend") -> None:
        """Close a solver, keeping its conflicts for the progress counts."""
        if self.report is not None and self.report.active:
            self.closed_conflicts += backend.conflicts()
        backend.close()

    def initial_rows(self) -> np.ndarray:
        """One distinct row per class (all rows when not incremental)."""
        if not self.incremental:
            return np.arange(self.problem.n_distinct)
        _, first = np.unique(self.labels, return_index=True)
        return first

    def stats(self, backend: str | None = None) -> dict:
        return {"rows_used": int(self.used.sum()), "distinct_rows": int(self.problem.n_distinct),
                "binary_features": int(self.problem.n_binary), "rounds": self.rounds,
                "sat_calls": self.sat_calls, "backend": self.solver, "incremental": self.incremental,
                "rows_per_round": self.rows_per_round, "at_most_one": self.at_most_one,
                "build_time_s": round(self.build_time, 4), "sat_time_s": round(self.solve_time, 4),
                "depth_times_s": {k: round(v, 4) for k, v in self.depth_times.items()},
                "size_steps": list(self.size_steps), "repair": self.repair,
                "repairs": len(self.repairs), "repaired": sum(ok for _, ok, _ in self.repairs),
                "repair_time_s": round(sum(t for _, _, t in self.repairs), 4), "core_rows": self.core_rows, "repair_outcomes": dict(self.repair_outcomes),
                "conflicts": self.conflicts, "call_log": self.call_log,
                **self.last}


def _validate(problem: BinaryProblem, max_depth: int | None, solver: str, rows_per_round: int,
              row_pick: str = "random") -> None:
    check_solver_name(solver)
    if row_pick not in ROW_PICKS:
        raise ValueError(f"unknown row_pick {row_pick!r}; choose one of {', '.join(ROW_PICKS)}")
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer)) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer or None, got {max_depth!r}")
    if not isinstance(rows_per_round, (int, np.integer)) or rows_per_round < 1:
        raise ValueError(f"rows_per_round must be a positive integer, got {rows_per_round!r}")


def _new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed,
               phases: bool = False, row_pick: str = "random", progress: ProgressCallback | None = None,
               objective: str = "depth") -> _State:
    deadline = Deadline(time_limit)
    report = ProgressReporter("sat", progress, PROGRESS_INTERVAL)
    problem.check_consistent()
    labels = problem.majority
    state = _State(problem=problem, labels=labels, deadline=deadline, solver=solver,
                   rows_per_round=int(rows_per_round), at_most_one=at_most_one, incremental=incremental,
                   rng=np.random.default_rng(seed), phases=phases, row_pick=row_pick,
                   used=np.zeros(problem.n_distinct, dtype=bool), report=report, objective=objective)
    if report.active:
        report.emit("start", message=f"{'DT_depth' if objective == 'depth' else 'DT_size'}, "
                                     f"{problem.n_distinct} distinct rows, {problem.n_binary} binary columns")
    return state


def _open(state: _State, encoding: DepthEncoding) -> SatBackend:
    """A fresh solver holding the encoding's structure and the rows used so far."""
    if not state.used.any():
        state.used[state.initial_rows()] = True
    backend = SatBackend(state.solver)
    t0 = time.perf_counter()
    backend.add(encoding.structure_clauses())
    backend.add(encoding.row_clauses(np.flatnonzero(state.used)))
    state.build_time += time.perf_counter() - t0
    return backend


def _pick_rows(state: _State, encoding: DepthEncoding, feature: np.ndarray, wrong: np.ndarray) -> np.ndarray:
    """``rows_per_round`` of the misclassified rows ``wrong``.

    ``row_pick="random"``: a uniform sample. ``"leaf"``: spread over the leaves of the current
    tree (round robin over the leaves, random within a leaf): rows that share a leaf tend to be
    fixed by the same change of the tree, rows of different leaves each force a change.
    """
    n = state.rows_per_round
    if wrong.size <= n:
        return wrong
    if state.row_pick == "random":
        return state.rng.choice(wrong, size=n, replace=False)
    perm = state.rng.permutation(wrong)
    leaf = encoding.leaf_of(feature, encoding.X[perm])
    order = np.argsort(leaf, kind="stable")
    sorted_leaf = leaf[order]
    starts = np.flatnonzero(np.r_[True, sorted_leaf[1:] != sorted_leaf[:-1]])
    sizes = np.diff(np.r_[starts, sorted_leaf.size])
    rank = np.empty(perm.size, dtype=np.int64)
    rank[order] = np.arange(perm.size) - np.repeat(starts, sizes)  # position within its leaf
    return perm[np.argsort(rank, kind="stable")[:n]]


def _fit_rows(state: _State, encoding: DepthEncoding, backend: SatBackend,
              assumptions: list[int], repair: bool = False) -> tuple[str, np.ndarray | None, np.ndarray | None]:
    """Solve, adding misclassified rows, until a model fits every row, UNSAT, or timeout.

    ``repair``: after a SAT call of at least :data:`REPAIR_AFTER_CONFLICTS` conflicts, try the
    subtree repair (:func:`_try_repair`) of its model before adding rows; a repaired tree fits
    every row and ends the loop ("sat"). Only for a question about the depth alone (a repaired
    tree may have more splits than a size bound). Every model is offered to
    :meth:`_State.keep_model` (the seeds of the next depth's repair).

    Returns ``("sat", feature, leaf_class)``, ``("unsat", None, None)`` or ``("timeout", None, None)``.
    """
    try:
        while True:
            calls, t0, c0 = backend.sat_calls, backend.solve_time, backend.conflicts()
            ticker = (lambda: state.tick(backend)) if state.report.active else None
            result = backend.solve(assumptions, state.deadline, ticker)
            state.sat_calls += backend.sat_calls - calls
            state.solve_time += backend.solve_time - t0
            spent = backend.conflicts() - c0
            state.conflicts += spent
            state.call_log.append((encoding.depth, int(state.used.sum()), spent, round(backend.solve_time - t0, 3)))
            if result is None:
                return "timeout", None, None
            if not result:
                return "unsat", None, None
            feature, leaf_class = encoding.decode(backend.model())
            wrong = encoding.wrong_rows(feature, leaf_class)
            if wrong.size == 0:
                return "sat", feature, leaf_class
            if state.deadline.expired():
                return "timeout", None, None
            state.keep_model(encoding.depth, wrong.size, feature, leaf_class)
            if repair and spent >= REPAIR_AFTER_CONFLICTS and encoding.depth >= REPAIR_MIN_DEPTH:
                fixed = _try_repair(state, encoding, backend, feature, leaf_class, wrong, spent)
                if fixed is not None:
                    return "sat", fixed[0], fixed[1]
            state.tick(backend)
            t1 = time.perf_counter()
            pick = _pick_rows(state, encoding, feature, wrong)
            state.used[pick] = True
            state.rounds += 1
            backend.add(encoding.row_clauses(pick))
            state.build_time += time.perf_counter() - t1
    finally:
        state.last = {"variables": int(encoding.pool.top), "clauses": int(backend.n_clauses)}


#: subtree repair (:func:`_repair`) is tried after a SAT call of the incremental loop that spent
#: at least this many conflicts (the loop is then in its hard regime: each further call is hard);
#: counted in conflicts, not seconds, so that a seed takes the same path at any machine load ...
REPAIR_AFTER_CONFLICTS = 5_000
#: ... with at most this share of that call's conflicts for all its sub-calls (at least
#: REPAIR_MIN_CONFLICTS) ...
REPAIR_SHARE = 0.25
REPAIR_MIN_CONFLICTS = 2_000
#: ... on depths from this one (the top three levels are kept, so depth 4 re-solves depth-1 regions)
REPAIR_MIN_DEPTH = 4
#: at most this many rows of a failed repair's core join the main encoding per round
CORE_ROWS_CAP = 0
#: levels of a model's top the repair keeps (its largest regions have depth k - REPAIR_KEEP_LEVELS)
REPAIR_KEEP_LEVELS = 3
#: models of depth k - 1 kept (fewest misclassified rows) whose repair at depth k is tried first
SEED_MODELS = 1


def _try_repair(state: _State, encoding: DepthEncoding, backend: SatBackend, feature: np.ndarray,
                leaf_class: np.ndarray, wrong: np.ndarray, spent: int):
    """Subtree repair (:func:`_repair`) of a model within ``REPAIR_SHARE * spent`` conflicts (at
    least ``REPAIR_MIN_CONFLICTS``). Returns the repaired ``(feature, leaf_class)``, or None after
    adding the core rows of an unrepairable region to ``backend``."""
    t1 = time.perf_counter()
    budget = [max(REPAIR_MIN_CONFLICTS, int(REPAIR_SHARE * spent))]  # conflicts left
    fixed, stuck = _repair(state, encoding, feature, leaf_class, wrong, budget)
    state.repairs.append((int(state.used.sum()), fixed is not None, round(time.perf_counter() - t1, 3)))
    outcome = "repaired" if fixed is not None else ("stuck" if stuck is not None else "out of budget")
    state.repair_outcomes[outcome] = state.repair_outcomes.get(outcome, 0) + 1
    if stuck is not None:
        # rows that no subtree of one region can fit together under this model's top levels:
        # with them in the encoding the next model has to change its top (random rows need
        # several rounds, each a hard call, to force that change)
        stuck = stuck[~state.used[stuck]]
        if stuck.size > CORE_ROWS_CAP:
            stuck = state.rng.choice(stuck, size=CORE_ROWS_CAP, replace=False)
        state.used[stuck] = True
        state.core_rows += int(stuck.size)
        t0 = time.perf_counter()
        backend.add(encoding.row_clauses(stuck))
        state.build_time += time.perf_counter() - t0
    return fixed


def _deepen(encoding: DepthEncoding, feature: np.ndarray, leaf_class: np.ndarray):
    """A model of depth ``k - 1`` as one of ``encoding``'s depth ``k``: the same tests on the
    levels above, a last level of pass-through tests (the leaf marker, or column 0 whose two
    leaves get the same class), each leaf doubled. It classifies every row as the model did."""
    k = encoding.depth
    new_feature = np.zeros(2 ** k - 1, dtype=np.int64)
    new_feature[:feature.size] = feature
    new_feature[feature.size:] = encoding.marker if encoding.marker is not None else 0
    return new_feature, np.repeat(leaf_class, 2)


def _fit_subtree(X: np.ndarray, labels: np.ndarray, n_classes: int, depth: int, solver: str,
                 deadline: Deadline, budget: list[int], rows_per_round: int, rng: np.random.Generator):
    """A perfect tree of depth ``depth`` consistent with *every* row of ``(X, labels)``, by the
    same incremental example addition on a fresh solver over the columns that vary on these rows,
    within ``budget[0]`` conflicts (decremented by what the calls spend).

    Each row's clauses carry a selector literal, assumed true: on UNSAT the solver's core names
    the rows it needed. Returns ``(feature, leaf_class)`` (columns of ``X``), ``("unsat", rows)``
    (rows of ``X`` that together admit no such tree: the core) or ``"timeout"`` (budget or
    deadline spent).
    """
    present = np.unique(labels)
    if present.size == 1:
        return np.zeros(2 ** depth - 1, dtype=np.int64), np.full(2 ** depth, present[0], dtype=np.int64)
    cols = np.flatnonzero(X.any(axis=0) & ~X.all(axis=0))
    encoding = DepthEncoding(X[:, cols], labels, n_classes, depth)
    backend = SatBackend(solver)
    selector = np.zeros(X.shape[0], dtype=np.int64)

    def add_rows(rows: np.ndarray) -> None:
        rows = np.unique(rows)
        blocks = encoding.row_clauses(rows)  # every block is row-major over ``rows``
        selector[rows] = np.arange(encoding.pool.top + 1, encoding.pool.top + 1 + rows.size)
        encoding.pool.top += rows.size
        guarded = []
        for block in blocks:
            per_row = block.shape[0] // rows.size
            guarded.append(np.hstack([block, -np.repeat(selector[rows], per_row)[:, None]]))
        backend.add(guarded)

    try:
        _, first = np.unique(labels, return_index=True)
        backend.add(encoding.structure_clauses())
        add_rows(first)
        while True:
            if budget[0] <= 0:
                return "timeout"
            before = backend.conflicts()
            result = backend.solve(selector[encoding.added].tolist(), deadline, budget=budget[0])
            budget[0] -= backend.conflicts() - before
            if result is None:
                return "timeout"
            if not result:
                core = set(backend.solver.get_core() or ())
                rows = np.flatnonzero(encoding.added)
                in_core = np.isin(selector[rows], list(core))
                return "unsat", (rows[in_core] if in_core.any() else rows)
            feature, leaf_class = encoding.decode(backend.model())
            wrong = encoding.wrong_rows(feature, leaf_class)
            if wrong.size == 0:
                return cols[feature], leaf_class
            if wrong.size > rows_per_round:
                wrong = rng.choice(wrong, size=rows_per_round, replace=False)
            add_rows(wrong)
    finally:
        backend.close()


def _repair(state: _State, encoding: DepthEncoding, feature: np.ndarray, leaf_class: np.ndarray,
            wrong: np.ndarray, budget: list[int]):
    """Subtree repair of a decoded tree that misclassifies ``wrong`` (a large-neighbourhood step).

    Keeps the top of the tree and re-solves, with SAT on *all* the distinct rows that reach it,
    the subtree of depth ``d`` (from 2) above each misclassified row; a subtree with no consistent
    solution is replaced by its parent's (depth ``d + 1``, up to ``k - 3``: the top three levels
    stay). When every region is repaired the grafted tree classifies every row: it is a
    consistent tree of depth ``k``, found without the full SAT search (which then only has to
    prove ``k - 1`` UNSAT). Returns ``((feature, leaf_class), None)`` when repaired, else
    ``(None, rows)``: the distinct rows with which the SAT call of the region found unrepairable
    (at depth ``k - 3``) was UNSAT (no subtree fits them under this top), or None when out of time.
    """
    k = encoding.depth
    d_max = k - REPAIR_KEEP_LEVELS
    if d_max < 1:
        return None, None
    feature, leaf_class = feature.copy(), leaf_class.copy()
    paths = encoding.node_paths(feature)
    d0 = min(2, d_max)
    todo = {int(v): d0 for v in np.unique(paths[wrong, k - d0])}  # region node -> its depth
    done: dict[int, int] = {}
    while todo:
        v = max(todo, key=lambda u: (todo[u], u))  # the largest regions first
        d = todo.pop(v)
        rows = np.flatnonzero(paths[:, k - d] == v)  # the levels above v are never changed
        out = _fit_subtree(encoding.X[rows], encoding.labels[rows], encoding.n_classes, d, state.solver,
                           state.deadline, budget, state.rows_per_round, state.rng)
        if isinstance(out, str):  # "timeout"
            return None, None
        if isinstance(out[0], str):  # ("unsat", rows of the sub-encoding)
            if d + 1 > d_max:
                return None, rows[out[1]]
            parent, dp = (v - 1) // 2, d + 1
            # regions under the parent are re-solved with it (a graft there will be overwritten)
            todo = {u: du for u, du in todo.items() if not _is_under(u, k - du, parent, k - dp)}
            done = {u: du for u, du in done.items() if not _is_under(u, k - du, parent, k - dp)}
            todo[parent] = dp
            continue
        encoding.graft(feature, leaf_class, v, *out)
        done[v] = d
    if encoding.wrong_rows(feature, leaf_class).size:  # pragma: no cover - a bug, never a wrong tree
        raise TreeCheckError("subtree repair produced an inconsistent tree")
    return (feature, leaf_class), None


def _is_under(u: int, level_u: int, v: int, level_v: int) -> bool:
    """Heap node ``u`` (of level ``level_u``) lies in the subtree of ``v`` (of level ``level_v``)."""
    if level_u < level_v:
        return False
    return ((u + 1) >> (level_u - level_v)) - 1 == v


def _groups(problem: BinaryProblem) -> np.ndarray:
    """Original feature of each binary column."""
    return np.array([t.feature for t in problem.tests], dtype=np.int64)


def _present_classes(problem: BinaryProblem) -> int:
    return int((problem.counts.sum(axis=0) > 0).sum())


def _result(state: _State, binary_tree: Tree | None, status: str, objective_name: str,
            bound: float | None, method: str) -> SolveResult:
    """Finalize (original features, pruned, re-evaluated) and wrap a tree."""
    stats = state.stats()
    if binary_tree is None:
        result = SolveResult(None, status, None, bound, state.deadline.elapsed(), method, objective_name, stats)
    else:
        tree, errors = finalize_tree(state.problem, binary_tree)
        if errors != 0:
            raise TreeCheckError(f"{method}: the returned tree misclassifies {errors} training rows")
        objective = tree.depth() if objective_name == "depth" else tree.n_nodes
        if status == OPTIMAL:
            bound = objective
        result = SolveResult(tree, status, objective, bound, state.deadline.elapsed(), method, objective_name, stats)
    state.improve(result.objective, result.bound)
    if state.report.active:
        state.report.emit("done", conflicts=state.closed_conflicts, message=status)
    return result


def _leaf_tree(state: _State) -> Tree:
    return Tree(root=Node.leaf(int(state.labels[0])), classes=state.problem.classes)


#: the CART warm start is built only once a call has run this long (or when it times out): on
#: the small datasets it costs 10-40 ms, as much as the whole SAT search, and never closed a
#: search there (its depth is always above the minimum)
CART_AFTER_S = 0.5


class _Incumbent:
    """The CART warm start, built lazily: a consistent CART tree over the binary columns (an
    upper bound on depth and size), or None (disabled, or CART is not consistent)."""

    def __init__(self, state: _State, enabled: bool, limit: int | None = None):
        self.state = state
        self.enabled = enabled
        self.limit = limit  # the max_depth of the call (a deeper tree is no answer)
        self.built = False
        self.tree: Tree | None = None
        self.depth: int | None = None
        self.splits: int | None = None

    def get(self, force: bool = False) -> Tree | None:
        """The tree if built; build it when ``force`` or once the call ran ``CART_AFTER_S``."""
        if self.enabled and not self.built and (force or self.state.deadline.elapsed() >= CART_AFTER_S):
            self.built = True
            problem = self.state.problem
            if problem.n_distinct * problem.n_binary <= GREEDY_MAX_CELLS:
                tree = _greedy_tree(problem)
            else:  # pragma: no cover - far beyond what the SAT encoding holds
                tree = cart_binary_tree(problem, None)
            if self.state.problem.errors(tree) == 0:
                final = finalize_tree(self.state.problem, tree)[0]
                self.tree, self.depth, self.splits = tree, final.depth(), final.n_splits
                if self.state.objective == "depth" and (self.limit is None or self.depth <= self.limit):
                    self.state.improve(self.depth, message="CART")  # (DT_size reports it once adopted, within K)
        return self.tree


#: the warm start is grown by :func:`_greedy_tree` up to this many cells of the binary matrix
GREEDY_MAX_CELLS = 20_000_000


def _greedy_tree(problem: BinaryProblem) -> Tree:
    """CART's greedy top-down tree (weighted Gini, grown until every leaf is pure) over the binary
    columns, in numpy: the same kind of upper bound as :func:`cart_binary_tree` without loading
    scikit-learn (2-6 s on a loaded machine, which a short time limit cannot afford)."""
    X, counts = problem.X, problem.counts.astype(np.float64)

    def build(rows: np.ndarray) -> Node:
        total = counts[rows].sum(axis=0)
        if (total > 0).sum() <= 1:
            return Node.leaf(int(np.argmax(total)))
        Xr = X[rows]
        right = Xr.T.astype(np.float64) @ counts[rows]          # (B, C) class weights going right
        left = total[None, :] - right
        n_right, n_left = right.sum(axis=1), left.sum(axis=1)
        valid = (n_right > 0) & (n_left > 0)
        if not valid.any():  # pragma: no cover - the problem is consistent
            return Node.leaf(int(np.argmax(total)))
        impurity = (n_left - (left ** 2).sum(axis=1) / np.maximum(n_left, 1e-12)
                    + n_right - (right ** 2).sum(axis=1) / np.maximum(n_right, 1e-12))
        j = int(np.argmin(np.where(valid, impurity, np.inf)))
        go = Xr[:, j]
        return Node.split(j, 0.5, build(rows[~go]), build(rows[go]))

    return problem.leaf_labels(Tree(root=build(np.arange(problem.n_distinct)), classes=problem.classes))


def _binary_splits(state: _State, tree: Tree) -> int:
    return finalize_tree(state.problem, tree)[0].n_splits


def _phases(state: _State, encoding: DepthEncoding) -> list[int]:
    """Solution-phase hints: a CART tree of the encoding's depth (SAT phase warm start)."""
    return encoding.phase_literals(cart_binary_tree(state.problem, encoding.depth))


def _depth_search(state: _State, make: Callable[[int], DepthEncoding], max_depth: int | None,
                  incumbent: _Incumbent, keep_solver: bool):
    """DT_depth: the smallest k with a consistent perfect tree of depth k.

    Returns ``(status, k_or_bound, tree, encoding, backend)``; status "sat" (tree of minimum
    depth k), "infeasible" (none within max_depth), or "timeout" (k = proven lower bound).
    The CART ``incumbent`` closes the search without a SAT call when its depth reaches the
    lower bound (unless ``keep_solver`` asks for the encoding at that depth).
    """
    k = max(1, int(ceil(log2(_present_classes(state.problem)))))
    if state.objective == "depth":
        state.improve(bound=k, message=f"{_present_classes(state.problem)} classes")
    while True:
        if max_depth is not None and k > max_depth:
            return "infeasible", k, None, None, None
        if incumbent.get() is not None and incumbent.depth <= k and not keep_solver:
            return "sat", k, incumbent.tree, None, None
        if state.deadline.expired():
            return "timeout", k, None, None, None
        t0 = time.perf_counter()
        state.trying = f"depth {k}"
        encoding = make(k)
        backend = _open(state, encoding)
        if state.phases:
            backend.solver.set_phases(_phases(state, encoding))
        status = None
        spent = state.conflicts - state.depth_start_conflicts  # by depth k - 1
        if state.repair and k >= REPAIR_MIN_DEPTH and spent >= REPAIR_AFTER_CONFLICTS:
            # the best models of depth k - 1 (UNSAT there, but they fit all rows but a few) with
            # one more level: their tops are good guesses for depth k; try their repair first
            for _, _, seed_feature, seed_class in [m for m in state.seed_models if m[0] == k - 1]:
                feature, leaf_class = _deepen(encoding, seed_feature, seed_class)
                wrong = encoding.wrong_rows(feature, leaf_class)
                fixed = _try_repair(state, encoding, backend, feature, leaf_class, wrong, spent)
                if fixed is not None:
                    status, (feature, leaf_class) = "sat", fixed
                    break
        state.depth_start_conflicts = state.conflicts
        if status is None:
            status, feature, leaf_class = _fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[k] = time.perf_counter() - t0
        if status == "sat":
            tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
            if state.objective == "depth":
                state.improve(incumbent=k, message=f"a consistent tree of depth {k}")
            return "sat", k, tree, encoding, backend
        state.close(backend)
        if status == "timeout":
            return "timeout", k, None, None, None
        k += 1
        if state.objective == "depth":
            state.improve(bound=k, message=f"no consistent tree of depth {k - 1}")


def solve_min_depth(problem: BinaryProblem, *, max_depth: int | None = None, solver: str = DEFAULT_SOLVER,
                    time_limit: float | None = None, incremental: bool = True,
                    rows_per_round: int = DEFAULT_ROWS_PER_ROUND, at_most_one: str = DEFAULT_AT_MOST_ONE,
                    warm_start: bool = True, useless: bool = DEFAULT_USELESS, phases: bool = False,
                    seed: int = 0, row_pick: str = DEFAULT_ROW_PICK, repair: bool = DEFAULT_REPAIR,
                    progress: ProgressCallback | None = None) -> SolveResult:
    """DT_depth: a tree of minimum depth that classifies every training row correctly.

    Parameters
    ----------
    problem : BinaryProblem
        Must be consistent (:class:`~satdt.binarize.ConflictError` otherwise).
    max_depth : int, optional
        Search depths up to this one only (INFEASIBLE if none fits).
    solver : str
        A python-sat backend among :data:`SOLVERS`.
    time_limit : float, optional
        Wall-clock seconds for the whole call.
    incremental : bool
        Incremental example addition (else every row from the start).
    rows_per_round : int
        Misclassified rows added per round.
    at_most_one : str
        At-most-one encoding of the feature selection (see :mod:`satdt.encodings.sat_depth`).
    warm_start : bool
        Use a consistent CART tree as the incumbent: it is returned (FEASIBLE) on timeout and
        closes the search when its depth meets the proven lower bound. It is built lazily, once
        the call has run :data:`CART_AFTER_S` seconds or when it times out.
    useless : bool
        Add the useless-split clauses (and the leaf marker) of
        :class:`~satdt.encodings.sat_depth.DepthEncoding`.
    phases : bool
        Solution-phase hints from a CART tree of each searched depth.
    seed : int
        Which misclassified rows are added.
    row_pick : str
        How the added rows are chosen among the misclassified ones: ``"random"`` or ``"leaf"``
        (spread over the leaves of the current tree), see :func:`_pick_rows`.
    repair : bool
        Subtree repair (:func:`_repair`) of the models of slow rounds: a consistent tree of the
        searched depth grafted from small SAT calls, which ends that depth's search early; when
        it fails, the rows of the region it could not fix are added (see :func:`_fit_rows`). The
        minimum is still proven by the UNSAT of the depth below.
    progress : callable, optional
        Receives :class:`~satdt.progress.ProgressEvent` objects (engine ``"sat"``, depth units):
        ``"start"``, ``"incumbent"`` (a consistent tree of that depth was found: the search's
        tree or the CART warm start), ``"bound"`` (the depth below was proven UNSAT), ``"tick"``
        (at most every 2 s, between SAT calls and between chunks of :data:`TICK_CONFLICTS`
        conflicts of a long call; ``conflicts`` so far, the depth tried as ``message``) and
        ``"done"`` (with the result's objective and bound).

    Returns
    -------
    SolveResult
        objective_name ``"depth"``; OPTIMAL with the minimum depth, FEASIBLE (best tree, bound =
        proven lower bound) or UNKNOWN on timeout, INFEASIBLE when ``max_depth`` is too small.
    """
    _validate(problem, max_depth, solver, rows_per_round, row_pick)
    state = _new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed, phases,
                       row_pick, progress, "depth")
    state.repair = bool(repair)
    method = "sat-depth"
    if _present_classes(problem) <= 1:
        state.used[:] = True
        return _result(state, _leaf_tree(state), OPTIMAL, "depth", 0, method)
    incumbent = _Incumbent(state, warm_start, max_depth)

    def make(k: int) -> DepthEncoding:
        return DepthEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                             useless=useless, groups=_groups(problem))

    status, k, tree, _, backend = _depth_search(state, make, max_depth, incumbent, keep_solver=False)
    if backend is not None:
        state.close(backend)
    if status == "sat":
        return _result(state, tree, OPTIMAL, "depth", k, method)
    if status == "infeasible":
        return _result(state, None, INFEASIBLE, "depth", k, method)
    if incumbent.get(force=True) is not None and (max_depth is None or incumbent.depth <= max_depth):
        return _result(state, incumbent.tree, FEASIBLE, "depth", k, method)
    return _result(state, None, UNKNOWN, "depth", k, method)


def solve_min_size(problem: BinaryProblem, *, max_depth: int | None = None, solver: str = DEFAULT_SOLVER,
                   time_limit: float | None = None, incremental: bool = True,
                   rows_per_round: int = DEFAULT_ROWS_PER_ROUND, at_most_one: str = DEFAULT_AT_MOST_ONE,
                   warm_start: bool = True, useless: bool = DEFAULT_USELESS, phases: bool = False,
                   size_search: str = DEFAULT_SIZE_SEARCH, seed: int = 0,
                   row_pick: str = DEFAULT_ROW_PICK, repair: bool = DEFAULT_REPAIR,
                   progress: ProgressCallback | None = None) -> SolveResult:
    """DT_size: the fewest nodes of a tree of depth ``<= K`` that classifies every row correctly.

    ``K = max_depth``, or the minimum depth (found first with DT_depth on the same kind of
    encoding, whose last solver is then reused) when ``max_depth`` is None. The bound on the
    number of splits is tightened on one incremental solver (totalizer + assumptions) from the
    best tree found down to UNSAT.

    Parameters are those of :func:`solve_min_depth`, and ``size_search`` (one of
    :data:`SIZE_SEARCHES`): which bound to try next between the proven lower bound and the best
    tree (see :func:`_size_search`). ``progress`` receives the events of
    :func:`solve_min_depth` in nodes (splits + leaves): an incumbent is a consistent tree of
    depth <= K with that many nodes, a bound a proven lower bound on them.

    Returns
    -------
    SolveResult
        objective_name ``"nodes"`` (splits + leaves of the pruned tree); OPTIMAL with the minimum,
        FEASIBLE (smallest tree found, bound = proven lower bound on nodes), UNKNOWN (no tree of
        depth <= K yet), INFEASIBLE (no consistent tree of depth <= max_depth).
    """
    _validate(problem, max_depth, solver, rows_per_round, row_pick)
    if size_search not in SIZE_SEARCHES:
        raise ValueError(f"unknown size_search {size_search!r}; choose one of {', '.join(SIZE_SEARCHES)}")
    state = _new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed, phases,
                       row_pick, progress, "nodes")
    state.repair = bool(repair)
    method = "sat-size"
    n_classes = _present_classes(problem)
    if n_classes <= 1:
        state.used[:] = True
        return _result(state, _leaf_tree(state), OPTIMAL, "nodes", 1, method)
    incumbent = _Incumbent(state, warm_start)
    low = n_classes - 1  # splits: a consistent tree has at least one leaf per class
    state.improve(bound=2 * low + 1)

    def make(k: int) -> SizeEncoding:
        return SizeEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                            useless=useless, groups=_groups(problem))

    if max_depth is None:
        status, k, tree, encoding, backend = _depth_search(state, make, None, incumbent, keep_solver=True)
        if status == "timeout":
            return _result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        low = max(low, k)  # a tree of minimum depth k has a path of k splits
        state.improve(bound=2 * low + 1)
        best = tree
    else:
        if max_depth < 1 or max_depth < ceil(log2(n_classes)):
            return _result(state, None, INFEASIBLE, "nodes", None, method)
        state.trying = f"depth {max_depth}"
        encoding = make(max_depth)
        backend = _open(state, encoding)
        t0 = time.perf_counter()
        status, feature, leaf_class = _fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[max_depth] = time.perf_counter() - t0
        if status == "timeout":
            state.close(backend)
            if incumbent.get(force=True) is not None and incumbent.depth <= max_depth:
                return _result(state, incumbent.tree, FEASIBLE, "nodes", 2 * low + 1, method)
            return _result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        if status == "unsat":
            state.close(backend)
            return _result(state, None, INFEASIBLE, "nodes", None, method)
        best = encoding.to_tree(feature, leaf_class, problem.classes)
    try:
        return _size_search(state, encoding, backend, best, incumbent, low, method, size_search)
    finally:
        backend.close()  # (its conflicts were counted by _size_search)


SIZE_SEARCHES = ("descending", "ascending", "binary")


def _size_search(state: _State, encoding: SizeEncoding, backend: SatBackend, best: Tree,
                 incumbent: _Incumbent, low: int, method: str, strategy: str = "descending") -> SolveResult:
    """Tighten "at most S splits" between the proven lower bound and the best tree until they
    meet: ``descending`` tries one below the best tree (SAT-UNSAT), ``ascending`` the lower
    bound (UNSAT-SAT, raises the bound step by step), ``binary`` the middle. UNSAT at S proves
    ``low = S + 1``; SAT gives a smaller tree."""
    best_splits = _binary_splits(state, best)
    state.improve(incumbent=2 * best_splits + 1)

    def use_incumbent(force: bool) -> None:
        nonlocal best, best_splits
        if incumbent.get(force) is not None and incumbent.depth <= encoding.depth \
                and incumbent.splits < best_splits:
            best, best_splits = incumbent.tree, incumbent.splits
            state.improve(incumbent=2 * best_splits + 1)

    use_incumbent(False)
    t0 = time.perf_counter()
    backend.add(encoding.counter_clauses(best_splits))
    state.build_time += time.perf_counter() - t0
    while best_splits > low:
        bound = {"descending": best_splits - 1, "ascending": low,
                 "binary": (low + best_splits - 1) // 2}[strategy]
        state.trying = f"depth <= {encoding.depth}, at most {2 * bound + 1} nodes"
        t1 = time.perf_counter()
        status, feature, leaf_class = _fit_rows(state, encoding, backend, encoding.at_most(bound))
        state.size_steps.append((bound, status, round(time.perf_counter() - t1, 4)))
        if status == "timeout":
            use_incumbent(True)
            state.closed_conflicts += backend.conflicts() if state.report.active else 0
            return _result(state, best, FEASIBLE, "nodes", 2 * low + 1, method)
        if status == "unsat":
            low = bound + 1
            state.improve(bound=2 * low + 1)
            continue
        tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
        splits = _binary_splits(state, tree)
        if splits > bound:
            raise TreeCheckError(f"{method}: decoded tree has {splits} splits above the bound {bound}")
        best, best_splits = tree, splits
        state.improve(incumbent=2 * best_splits + 1)
    state.closed_conflicts += backend.conflicts() if state.report.active else 0
    return _result(state, best, OPTIMAL, "nodes", 2 * low + 1, method)
