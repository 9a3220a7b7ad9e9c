"""DT_size (Avellaneda [6]): the fewest nodes of a tree of depth ``<= K`` that classifies every row.

The depth ``K`` is given, or found first by DT_depth (:func:`~satdt.solvers.sat.depth.depth_search`)
on the size encoding, whose solver is then reused; the bound on the number of splits is then
tightened on that one incremental solver (:func:`tighten_size`: a totalizer [19] and assumptions)
until UNSAT. References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import time
from math import ceil, log2

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...encodings.sat_size import SizeEncoding
from ...progress import ProgressCallback
from ...result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult
from ...tree import Tree
from ..common import TreeCheckError
from .backend import DEFAULT_SOLVER, SatBackend
from .depth import depth_search
from .incumbent import Incumbent
from .rows import binary_splits, fit_rows
from .state import (DEFAULT_AT_MOST_ONE, DEFAULT_REPAIR, DEFAULT_ROW_PICK, DEFAULT_ROWS_PER_ROUND, DEFAULT_USELESS,
                    Answer, SearchState, leaf_tree, make_result, new_state, open_backend,
                    validate)

__all__ = ["solve_min_size", "tighten_size", "SIZE_SEARCHES", "DEFAULT_SIZE_SEARCH"]

SIZE_SEARCHES = ("descending", "ascending", "binary")
DEFAULT_SIZE_SEARCH = "descending"


def solve_min_size(problem: BinaryProblem, *, max_depth: int | None = None, solver: str = DEFAULT_SOLVER,
                   time_limit: float | Deadline | None = None, incremental: bool = True,
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

    Parameters are those of :func:`~satdt.solvers.sat.depth.solve_min_depth`, and ``size_search`` (one of
    :data:`SIZE_SEARCHES`): which bound to try next between the proven lower bound and the best
    tree (see :func:`tighten_size`). ``progress`` receives the events of
    :func:`~satdt.solvers.sat.depth.solve_min_depth` in nodes (splits + leaves): an incumbent is a consistent tree of
    depth <= K with that many nodes, a bound a proven lower bound on them.

    Returns
    -------
    SolveResult
        objective_name ``"nodes"`` (splits + leaves of the pruned tree); OPTIMAL with the minimum,
        FEASIBLE (smallest tree found, bound = proven lower bound on nodes), UNKNOWN (no tree of
        depth <= K yet), INFEASIBLE (no consistent tree of depth <= max_depth).
    """
    validate(problem, max_depth, solver, rows_per_round, row_pick)
    if size_search not in SIZE_SEARCHES:
        raise ValueError(f"unknown size_search {size_search!r}; choose one of {', '.join(SIZE_SEARCHES)}")
    state = new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed, phases,
                      row_pick, progress, "nodes")
    state.repair = bool(repair)
    method = "sat-size"
    n_classes = problem.n_present_classes
    if n_classes <= 1:
        state.used[:] = True
        return make_result(state, leaf_tree(state), OPTIMAL, "nodes", 1, method)
    incumbent = Incumbent(state, warm_start)
    low = n_classes - 1  # splits: a consistent tree has at least one leaf per class
    state.improve(bound=2 * low + 1)

    def make(k: int) -> SizeEncoding:
        return SizeEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                            useless=useless, groups=problem.column_features)

    if max_depth is None:
        status, k, tree, encoding, backend = depth_search(state, make, None, incumbent, keep_solver=True)
        if status == UNKNOWN:
            return make_result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        low = max(low, k)  # a tree of minimum depth k has a path of k splits
        state.improve(bound=2 * low + 1)
        best = tree
    else:
        if max_depth < 1 or max_depth < ceil(log2(n_classes)):
            return make_result(state, None, INFEASIBLE, "nodes", None, method)
        state.trying = f"depth {max_depth}"
        encoding = make(max_depth)
        backend = open_backend(state, encoding)
        t0 = time.perf_counter()
        answer, feature, leaf_class = fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[max_depth] = time.perf_counter() - t0
        if answer == Answer.TIMEOUT:
            state.close(backend)
            if incumbent.get(force=True) is not None and incumbent.depth <= max_depth:
                return make_result(state, incumbent.tree, FEASIBLE, "nodes", 2 * low + 1, method)
            return make_result(state, None, UNKNOWN, "nodes", 2 * low + 1, method)
        if answer == Answer.UNSAT:
            state.close(backend)
            return make_result(state, None, INFEASIBLE, "nodes", None, method)
        best = encoding.to_tree(feature, leaf_class, problem.classes)
    try:
        return tighten_size(state, encoding, backend, best, incumbent, low, method, size_search)
    finally:
        backend.close()  # (its conflicts were counted by tighten_size)


def tighten_size(state: SearchState, encoding: SizeEncoding, backend: SatBackend, best: Tree,
                 incumbent: Incumbent, low: int, method: str, strategy: str = "descending") -> SolveResult:
    """Tighten "at most S splits" between the proven lower bound and the best tree until they
    meet: ``descending`` tries one below the best tree (SAT-UNSAT), ``ascending`` the lower
    bound (UNSAT-SAT, raises the bound step by step), ``binary`` the middle. UNSAT at S proves
    ``low = S + 1``; SAT gives a smaller tree."""
    best_splits = binary_splits(state, best)
    state.improve(incumbent=2 * best_splits + 1)

    def use_incumbent(force: bool) -> None:
        nonlocal best, best_splits
        if incumbent.get(force) is not None and incumbent.depth <= encoding.depth \
                and incumbent.splits < best_splits:
            best, best_splits = incumbent.tree, incumbent.splits
            state.improve(incumbent=2 * best_splits + 1)

    use_incumbent(False)
    t0 = time.perf_counter()
    backend.add(encoding.counter_clauses(best_splits), state.deadline)  # a partial load: the next solve is out of time
    state.build_time += time.perf_counter() - t0
    while best_splits > low:
        bound = {"descending": best_splits - 1, "ascending": low,
                 "binary": (low + best_splits - 1) // 2}[strategy]
        state.trying = f"depth <= {encoding.depth}, at most {2 * bound + 1} nodes"
        t1 = time.perf_counter()
        answer, feature, leaf_class = fit_rows(state, encoding, backend, encoding.at_most(bound))
        state.size_steps.append((bound, answer.value, round(time.perf_counter() - t1, 4)))
        if answer == Answer.TIMEOUT:
            use_incumbent(True)
            state.closed_conflicts += backend.conflicts() if state.report.active else 0
            return make_result(state, best, FEASIBLE, "nodes", 2 * low + 1, method)
        if answer == Answer.UNSAT:
            low = bound + 1
            state.improve(bound=2 * low + 1)
            continue
        tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
        splits = binary_splits(state, tree)
        if splits > bound:
            raise TreeCheckError(f"{method}: decoded tree has {splits} splits above the bound {bound}")
        best, best_splits = tree, splits
        state.improve(incumbent=2 * best_splits + 1)
    state.closed_conflicts += backend.conflicts() if state.report.active else 0
    return make_result(state, best, OPTIMAL, "nodes", 2 * low + 1, method)
