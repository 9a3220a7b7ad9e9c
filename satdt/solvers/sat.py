"""Minimum-depth and minimum-size consistent trees with SAT (Avellaneda, AAAI-20).

``solve_min_depth`` (DT_depth) searches the depth ``k`` upward from ``ceil(log2 C)``;
``solve_min_size`` (DT_size) then tightens a bound on the number of splits of a tree of depth
``<= K`` on one incremental solver until UNSAT.

Both use *incremental example addition*: the encoding starts with one row per class; each
model is decoded into a tree, evaluated on every distinct row, and ``rows_per_round`` of the
rows it misclassifies are added to the same solver, until a model classifies every row (SAT on
all rows) or the solver proves UNSAT on a subset (UNSAT on all rows). Rows added at depth ``k``
are kept for ``k + 1``. Once the SAT calls get slow (the hard regime of a tight depth), each
model is also given a *subtree repair* (:func:`_repair`): its top levels are kept and the
subtrees below are re-solved by small SAT calls on every row that reaches them; a full repair
is a consistent tree of depth ``k`` (that depth's search ends), a failed one hands back the rows
of the region it could not fix, which are added so that the next model changes its top.

Time limits are wall-clock for the whole call. The MiniSat family (glucose, minisat, maple,
mergesat) is interrupted by one watchdog thread per process (:class:`_Watchdog`); CaDiCaL
cannot be interrupted from Python (it holds the interpreter lock), so it runs in a loop of
conflict budgets that checks the clock between calls.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from itertools import repeat
from math import ceil, log2
from typing import Callable

import numpy as np
from pysat.solvers import Solver

from ..binarize import BinaryProblem
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


class _Watchdog:
    """One daemon thread, started once per process, that interrupts armed solvers at their
    deadlines.

    Replaces a ``threading.Timer`` per SAT call: starting and joining a thread costs 5-10 ms on
    a loaded machine, more than most SAT calls of the incremental loop. ``disarm`` returns only
    when the solver can no longer be interrupted by this watchdog (``interrupt`` is called under
    the lock), so clearing the interrupt flag afterwards is safe.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, object]] = {}
        self._next = 0
        self._wake_at = float("inf")  # when the thread wakes up next (it is told of earlier ones)
        self._thread: threading.Thread | None = None

    def arm(self, solver, when: float) -> int:
        """Interrupt ``solver`` at ``when`` (``time.monotonic()``) unless disarmed first."""
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="satdt-sat-watchdog", daemon=True)
                self._thread.start()
            self._next += 1
            self._armed[self._next] = (when, solver)
            if when < self._wake_at:  # waking the thread costs a GIL hand-over: only when needed
                self._wake_at = when
                self._cond.notify()
            return self._next

    def disarm(self, token: int) -> None:
        with self._cond:
            self._armed.pop(token, None)

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for token, (when, solver) in list(self._armed.items()):
                    if when <= now:
                        solver.interrupt()
                        del self._armed[token]
                self._wake_at = min((w for w, _ in self._armed.values()), default=float("inf"))
                if self._wake_at == float("inf"):
                    self._cond.wait()
                else:
                    self._cond.wait(max(1e-3, self._wake_at - now))


_WATCHDOG = _Watchdog()


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

    def solve(self, assumptions: list[int], deadline: Deadline) -> bool | None:
        """SAT (True), UNSAT (False) or None when the deadline passed first."""
        if deadline.expired():
            return None
        self.sat_calls += 1
        t0 = time.perf_counter()
        try:
            remaining = deadline.remaining()
            if remaining is None:
                return bool(self.solver.solve(assumptions=assumptions))
            if self.name in INTERRUPTIBLE:
                return self._solve_interrupt(assumptions, remaining)
            return self._solve_budgeted(assumptions, deadline)
        finally:
            self.solve_time += time.perf_counter() - t0

    def _solve_interrupt(self, assumptions: list[int], remaining: float) -> bool | None:
        token = _WATCHDOG.arm(self.solver, time.monotonic() + remaining)
        try:
            result = self.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
        finally:
            _WATCHDOG.disarm(token)
            self.solver.clear_interrupt()
        return result

    def _solve_budgeted(self, assumptions: list[int], deadline: Deadline) -> bool | None:
        budget = 200
        while not deadline.expired():
            self.solver.conf_budget(budget)
            t0 = time.perf_counter()
            result = self.solver.solve_limited(assumptions=assumptions)
            if result is not None:
                return result
            spent = max(time.perf_counter() - t0, 1e-4)
            left = deadline.remaining() or 0.0
            # aim at chunks of ~0.05 s, never much beyond the time left; grow slowly (a chunk's
            # conflicts get dearer as the learnt clauses pile up)
            target = min(0.05, max(left, 0.01))
            budget = int(max(100, min(budget * 2, budget * target / spent)))
        return None

    def model(self) -> list[int]:
        return self.solver.get_model()

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
    last: dict = field(default_factory=dict)  # variables/clauses of the last encoding

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
                "repair_time_s": round(sum(t for _, _, t in self.repairs), 4), "core_rows": self.core_rows,
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
               phases: bool = False, row_pick: str = "random") -> _State:
    deadline = Deadline(time_limit)
    problem.check_consistent()
    labels = problem.majority
    return _State(problem=problem, labels=labels, deadline=deadline, solver=solver,
                  rows_per_round=int(rows_per_round), at_most_one=at_most_one, incremental=incremental,
                  rng=np.random.default_rng(seed), phases=phases, row_pick=row_pick,
                  used=np.zeros(problem.n_distinct, dtype=bool))


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

    ``repair``: once a SAT call was slow, try the subtree repair (:func:`_repair`) of each model
    before adding rows; a repaired tree fits every row and ends the loop ("sat"). When the repair
    fails because one region admits no subtree under the model's top levels, the rows that proved
    it (its sub-encoding's rows) join the encoding with the usual picks. Only for a question about
    the depth alone (a repaired tree may have more splits than a size bound).

    Returns ``("sat", feature, leaf_class)``, ``("unsat", None, None)`` or ``("timeout", None, None)``.
    """
    try:
        while True:
            calls, t0 = backend.sat_calls, backend.solve_time
            result = backend.solve(assumptions, state.deadline)
            state.sat_calls += backend.sat_calls - calls
            state.solve_time += backend.solve_time - t0
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
            spent = backend.solve_time - t0
            if repair and spent >= REPAIR_AFTER_S and encoding.depth > 3:  # (top three levels kept)
                t1 = time.perf_counter()
                budget = max(REPAIR_MIN_S, REPAIR_SHARE * spent)
                left = state.deadline.remaining()
                fixed, stuck = _repair(state, encoding, feature, leaf_class, wrong,
                                       Deadline(budget if left is None else max(1e-3, min(budget, left))))
                state.repairs.append((int(state.used.sum()), fixed is not None, round(time.perf_counter() - t1, 3)))
                if fixed is not None:
                    return "sat", fixed[0], fixed[1]
                if stuck is not None:
                    # rows that no subtree of one region can fit together under this model's top
                    # levels: with them in the encoding the next model has to change its top
                    # (random rows need several rounds, each a hard call, to force that change)
                    stuck = stuck[~state.used[stuck]]
                    state.used[stuck] = True
                    state.core_rows += int(stuck.size)
                    backend.add(encoding.row_clauses(stuck))
            t1 = time.perf_counter()
            pick = _pick_rows(state, encoding, feature, wrong)
            state.used[pick] = True
            state.rounds += 1
            backend.add(encoding.row_clauses(pick))
            state.build_time += time.perf_counter() - t1
    finally:
        state.last = {"variables": int(encoding.pool.top), "clauses": int(backend.n_clauses)}


#: subtree repair (:func:`_repair`) is tried after a SAT call of the incremental loop that took at
#: least this long (the loop is then in its hard regime: each further call costs seconds) ...
REPAIR_AFTER_S = 0.5
#: ... with at most this share of that call's time (at least REPAIR_MIN_S)
REPAIR_SHARE = 0.25
REPAIR_MIN_S = 0.25


def _fit_subtree(X: np.ndarray, labels: np.ndarray, n_classes: int, depth: int, solver: str,
                 deadline: Deadline, rows_per_round: int, rng: np.random.Generator):
    """A perfect tree of depth ``depth`` consistent with *every* row of ``(X, labels)``, by the
    same incremental example addition on a fresh solver over the columns that vary on these rows.

    Returns ``(feature, leaf_class)`` (columns of ``X``), ``("unsat", rows)`` (the rows of ``X``
    in the encoding: together they admit no such tree) or ``"timeout"``.
    """
    present = np.unique(labels)
    if present.size == 1:
        return np.zeros(2 ** depth - 1, dtype=np.int64), np.full(2 ** depth, present[0], dtype=np.int64)
    cols = np.flatnonzero(X.any(axis=0) & ~X.all(axis=0))
    encoding = DepthEncoding(X[:, cols], labels, n_classes, depth)
    backend = SatBackend(solver)
    try:
        _, first = np.unique(labels, return_index=True)
        backend.add(encoding.structure_clauses())
        backend.add(encoding.row_clauses(first))
        while True:
            result = backend.solve([], deadline)
            if result is None:
                return "timeout"
            if not result:
                return "unsat", np.flatnonzero(encoding.added)
            feature, leaf_class = encoding.decode(backend.model())
            wrong = encoding.wrong_rows(feature, leaf_class)
            if wrong.size == 0:
                return cols[feature], leaf_class
            if wrong.size > rows_per_round:
                wrong = rng.choice(wrong, size=rows_per_round, replace=False)
            backend.add(encoding.row_clauses(wrong))
    finally:
        backend.close()


def _repair(state: _State, encoding: DepthEncoding, feature: np.ndarray, leaf_class: np.ndarray,
            wrong: np.ndarray, deadline: Deadline):
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
    d_max = k - 3
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
                           deadline, state.rows_per_round, state.rng)
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
        return SolveResult(None, status, None, bound, state.deadline.elapsed(), method, objective_name, stats)
    tree, errors = finalize_tree(state.problem, binary_tree)
    if errors != 0:
        raise TreeCheckError(f"{method}: the returned tree misclassifies {errors} training rows")
    objective = tree.depth() if objective_name == "depth" else tree.n_nodes
    if status == OPTIMAL:
        bound = objective
    return SolveResult(tree, status, objective, bound, state.deadline.elapsed(), method, objective_name, stats)


def _leaf_tree(state: _State) -> Tree:
    return Tree(root=Node.leaf(int(state.labels[0])), classes=state.problem.classes)


#: the CART warm start is built only once a call has run this long (or when it times out): on
#: the small datasets it costs 10-40 ms, as much as the whole SAT search, and never closed a
#: search there (its depth is always above the minimum)
CART_AFTER_S = 0.5


class _Incumbent:
    """The CART warm start, built lazily: a consistent CART tree over the binary columns (an
    upper bound on depth and size), or None (disabled, or CART is not consistent)."""

    def __init__(self, state: _State, enabled: bool):
        self.state = state
        self.enabled = enabled
        self.built = False
        self.tree: Tree | None = None
        self.depth: int | None = None
        self.splits: int | None = None

    def get(self, force: bool = False) -> Tree | None:
        """The tree if built; build it when ``force`` or once the call ran ``CART_AFTER_S``."""
        if self.enabled and not self.built and (force or self.state.deadline.elapsed() >= CART_AFTER_S):
            self.built = True
            tree = cart_binary_tree(self.state.problem, None)
            if self.state.problem.errors(tree) == 0:
                final = finalize_tree(self.state.problem, tree)[0]
                self.tree, self.depth, self.splits = tree, final.depth(), final.n_splits
        return self.tree


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
    while True:
        if max_depth is not None and k > max_depth:
            return "infeasible", k, None, None, None
        if incumbent.get() is not None and incumbent.depth <= k and not keep_solver:
            return "sat", k, incumbent.tree, None, None
        if state.deadline.expired():
            return "timeout", k, None, None, None
        t0 = time.perf_counter()
        encoding = make(k)
        backend = _open(state, encoding)
        if state.phases:
            backend.solver.set_phases(_phases(state, encoding))
        status, feature, leaf_class = _fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[k] = time.perf_counter() - t0
        if status == "sat":
            tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
            return "sat", k, tree, encoding, backend
        backend.close()
        if status == "timeout":
            return "timeout", k, None, None, None
        k += 1


def solve_min_depth(problem: BinaryProblem, *, max_depth: int | None = None, solver: str = DEFAULT_SOLVER,
                    time_limit: float | None = None, incremental: bool = True,
                    rows_per_round: int = DEFAULT_ROWS_PER_ROUND, at_most_one: str = DEFAULT_AT_MOST_ONE,
                    warm_start: bool = True, useless: bool = DEFAULT_USELESS, phases: bool = False,
                    seed: int = 0, row_pick: str = DEFAULT_ROW_PICK, repair: bool = DEFAULT_REPAIR) -> SolveResult:
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

    Returns
    -------
    SolveResult
        objective_name ``"depth"``; OPTIMAL with the minimum depth, FEASIBLE (best tree, bound =
        proven lower bound) or UNKNOWN on timeout, INFEASIBLE when ``max_depth`` is too small.
    """
    _validate(problem, max_depth, solver, rows_per_round, row_pick)
    state = _new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed, phases,
                       row_pick)
    state.repair = bool(repair)
    method = "sat-depth"
    if _present_classes(problem) <= 1:
        state.used[:] = True
        return _result(state, _leaf_tree(state), OPTIMAL, "depth", 0, method)
    incumbent = _Incumbent(state, warm_start)

    def make(k: int) -> DepthEncoding:
        return DepthEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                             useless=useless, groups=_groups(problem))

    status, k, tree, _, backend = _depth_search(state, make, max_depth, incumbent, keep_solver=False)
    if backend is not None:
        backend.close()
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
                   row_pick: str = DEFAULT_ROW_PICK, repair: bool = DEFAULT_REPAIR) -> SolveResult:
    """DT_size: the fewest nodes of a tree of depth ``<= K`` that classifies every row correctly.

    ``K = max_depth``, or the minimum depth (found first with DT_depth on the same kind of
    encoding, whose last solver is then reused) when ``max_depth`` is None. The bound on the
    number of splits is tightened on one incremental solver (totalizer + assumptions) from the
    best tree found down to UNSAT.

    Parameters are those of :func:`solve_min_depth`, and ``size_search`` (one of
    :data:`SIZE_SEARCHES`): which bound to try next between the proven lower bound and the best
    tree (see :func:`_size_search`).

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
                       row_pick)
    state.repair = bool(repair)
    method = "sat-size"
    n_classes = _present_classes(problem)
    if n_classes <= 1:
        state.used[:] = True
        return _result(state, _leaf_tree(state), OPTIMAL, "nodes", 1, method)
    incumbent = _Incumbent(state, warm_start)
    low = n_classes - 1  # splits: a consistent tree has at least one leaf per class

    def make(k: int) -> SizeEncoding:
        return SizeEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                            useless=useless, groups=_groups(problem))

    if max_depth is None:
        status, k, tree, encoding, backend = _depth_search(state, make, None, incumbent, keep_solver=True)
        if status == "timeout":
            return _result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        low = max(low, k)  # a tree of minimum depth k has a path of k splits
        best = tree
    else:
        if max_depth < 1 or max_depth < ceil(log2(n_classes)):
            return _result(state, None, INFEASIBLE, "nodes", None, method)
        encoding = make(max_depth)
        backend = _open(state, encoding)
        t0 = time.perf_counter()
        status, feature, leaf_class = _fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[max_depth] = time.perf_counter() - t0
        if status == "timeout":
            backend.close()
            if incumbent.get(force=True) is not None and incumbent.depth <= max_depth:
                return _result(state, incumbent.tree, FEASIBLE, "nodes", 2 * low + 1, method)
            return _result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        if status == "unsat":
            backend.close()
            return _result(state, None, INFEASIBLE, "nodes", None, method)
        best = encoding.to_tree(feature, leaf_class, problem.classes)
    try:
        return _size_search(state, encoding, backend, best, incumbent, low, method, size_search)
    finally:
        backend.close()


SIZE_SEARCHES = ("descending", "ascending", "binary")


def _size_search(state: _State, encoding: SizeEncoding, backend: SatBackend, best: Tree,
                 incumbent: _Incumbent, low: int, method: str, strategy: str = "descending") -> SolveResult:
    """Tighten "at most S splits" between the proven lower bound and the best tree until they
    meet: ``descending`` tries one below the best tree (SAT-UNSAT), ``ascending`` the lower
    bound (UNSAT-SAT, raises the bound step by step), ``binary`` the middle. UNSAT at S proves
    ``low = S + 1``; SAT gives a smaller tree."""
    best_splits = _binary_splits(state, best)

    def use_incumbent(force: bool) -> None:
        nonlocal best, best_splits
        if incumbent.get(force) is not None and incumbent.depth <= encoding.depth \
                and incumbent.splits < best_splits:
            best, best_splits = incumbent.tree, incumbent.splits

    use_incumbent(False)
    t0 = time.perf_counter()
    backend.add(encoding.counter_clauses(best_splits))
    state.build_time += time.perf_counter() - t0
    while best_splits > low:
        bound = {"descending": best_splits - 1, "ascending": low,
                 "binary": (low + best_splits - 1) // 2}[strategy]
        t1 = time.perf_counter()
        status, feature, leaf_class = _fit_rows(state, encoding, backend, encoding.at_most(bound))
        state.size_steps.append((bound, status, round(time.perf_counter() - t1, 4)))
        if status == "timeout":
            use_incumbent(True)
            return _result(state, best, FEASIBLE, "nodes", 2 * low + 1, method)
        if status == "unsat":
            low = bound + 1
            continue
        tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
        splits = _binary_splits(state, tree)
        if splits > bound:
            raise TreeCheckError(f"{method}: decoded tree has {splits} splits above the bound {bound}")
        best, best_splits = tree, splits
    return _result(state, best, OPTIMAL, "nodes", 2 * low + 1, method)
