"""DT_depth (Avellaneda [6]): the minimum depth of a tree that classifies every training row.

The depth ``k`` is searched upward from ``ceil(log2 C)``; each depth is one question answered by
incremental example addition (:func:`~satdt.solvers.sat.rows.fit_rows`) on a fresh solver, after
the subtree repair of the best models of depth ``k - 1`` (:mod:`~satdt.solvers.sat.repair`). Rows
added at depth ``k`` are kept for ``k + 1``. :func:`depth_search` also gives DT_size its depth
``K`` and the solver of that depth. References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import time
from math import ceil, log2
from typing import Callable

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...encodings.sat_depth import DepthEncoding, implied_pairs
from ...progress import ProgressCallback
from ...result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, SolveResult, Status
from ...tree import Tree
from . import tuning
from .backend import DEFAULT_SOLVER, SatBackend
from .incumbent import Incumbent
from .repair import deepen, try_repair
from .rows import fit_rows, phase_hints
from .state import (DEFAULT_AT_MOST_ONE, DEFAULT_REPAIR, DEFAULT_ROW_PICK, DEFAULT_ROWS_PER_ROUND, DEFAULT_USELESS,
                    Answer, SearchState, leaf_tree, make_result, new_state, open_backend,
                    validate)

__all__ = ["solve_min_depth", "depth_search", "canonical_is_cheap"]


def depth_search(state: SearchState, make: Callable[[int], DepthEncoding], max_depth: int | None,
                 incumbent: Incumbent, keep_solver: bool
                 ) -> tuple[Status, int, Tree | None, DepthEncoding | None, SatBackend | None]:
    """DT_depth: the smallest k with a consistent perfect tree of depth k.

    Returns ``(status, k_or_bound, tree, encoding, backend)``; status OPTIMAL (tree of minimum
    depth k), INFEASIBLE (none within max_depth), or UNKNOWN (out of time, k = proven lower
    bound; the search has no tree, the caller may have its incumbent).
    The CART ``incumbent`` closes the search without a SAT call when its depth reaches the
    lower bound (unless ``keep_solver`` asks for the encoding at that depth).
    """
    k = max(1, int(ceil(log2(state.problem.n_present_classes))))
    if state.objective == "depth":
        state.improve(bound=k, message=f"{state.problem.n_present_classes} classes")
    while True:
        if max_depth is not None and k > max_depth:
            return INFEASIBLE, k, None, None, None
        if incumbent.get() is not None and incumbent.depth <= k and not keep_solver:
            return OPTIMAL, k, incumbent.tree, None, None
        if state.deadline.expired():
            return UNKNOWN, k, None, None, None
        t0 = time.perf_counter()
        state.trying = f"depth {k}"
        encoding = make(k)
        backend = open_backend(state, encoding)
        if state.phases:
            backend.solver.set_phases(phase_hints(state, encoding))
        answer = None
        spent = state.conflicts - state.depth_start_conflicts  # by depth k - 1
        if state.repair and k >= tuning.REPAIR_MIN_DEPTH and spent >= tuning.REPAIR_AFTER_CONFLICTS:
            # the best models of depth k - 1 (UNSAT there, but they fit all rows but a few) with
            # one more level: their tops are good guesses for depth k; try their repair first
            for _, _, seed_feature, seed_class in [m for m in state.seed_models if m[0] == k - 1]:
                feature, leaf_class = deepen(encoding, seed_feature, seed_class)
                wrong = encoding.wrong_rows(feature, leaf_class)
                fixed = try_repair(state, encoding, backend, feature, leaf_class, wrong, spent)
                if fixed is not None:
                    answer, (feature, leaf_class) = Answer.SAT, fixed
                    break
        state.depth_start_conflicts = state.conflicts
        if answer is None:
            answer, feature, leaf_class = fit_rows(state, encoding, backend, [], repair=state.repair)
        state.depth_times[k] = time.perf_counter() - t0
        if answer == Answer.SAT:
            tree = encoding.to_tree(feature, leaf_class, state.problem.classes)
            if state.objective == "depth":
                state.improve(incumbent=k, message=f"a consistent tree of depth {k}")
            return OPTIMAL, k, tree, encoding, backend
        state.close(backend)
        if answer == Answer.TIMEOUT:
            return UNKNOWN, k, None, None, None
        k += 1
        if state.objective == "depth":
            state.improve(bound=k, message=f"no consistent tree of depth {k - 1}")


def canonical_is_cheap(X, groups) -> bool:
    """The canonical-split clauses are on when they are cheap and the problem is not small: at
    least :data:`~satdt.solvers.sat.tuning.CANONICAL_MIN_ROWS` distinct rows and at most
    :data:`~satdt.solvers.sat.tuning.CANONICAL_PAIRS_PER_COLUMN` implied column pairs (of one
    feature, per side) per binary column, i.e. per (node, ancestor) pair of the tree no more
    clauses than one row adds at a node (car: 1,727 rows, 12 pairs, 15 columns). Where there are
    many pairs (iris, zoo: 1,843 and 9,910 over 118 and 120 columns) building them costs more than
    the whole search (DT_depth 2-3x slower); on the small monks (6 pairs, 11 columns) they only
    move the search by +-30 %."""
    if X.shape[0] < tuning.CANONICAL_MIN_ROWS:
        return False
    most = max(i.size for i, _ in implied_pairs(X, groups, diagonal=False))
    return most <= tuning.CANONICAL_PAIRS_PER_COLUMN * X.shape[1]


def solve_min_depth(problem: BinaryProblem, *, max_depth: int | None = None, solver: str = DEFAULT_SOLVER,
                    time_limit: float | Deadline | None = None, incremental: bool = True,
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
    time_limit : float or Deadline, optional
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
        the call has run :data:`~satdt.solvers.sat.tuning.CART_AFTER_S` seconds or when it
        times out.
    useless : bool
        Add the useless-split clauses (and the leaf marker) of
        :class:`~satdt.encodings.sat_depth.DepthEncoding`.
    phases : bool
        Solution-phase hints from a CART tree of each searched depth.
    seed : int
        Which misclassified rows are added.
    row_pick : str
        How the added rows are chosen among the misclassified ones: ``"random"`` or ``"leaf"``
        (spread over the leaves of the current tree), see :func:`~satdt.solvers.sat.rows.pick_rows`.
    repair : bool
        Subtree repair (:func:`~satdt.solvers.sat.repair.repair_subtrees`) of the models of slow
        rounds: a consistent tree of the searched depth grafted from small SAT calls, which ends
        that depth's search early; when it fails, the rows of the region it could not fix are
        added (see :func:`~satdt.solvers.sat.rows.fit_rows`). The minimum is still proven by the
        UNSAT of the depth below.
    progress : callable, optional
        Receives :class:`~satdt.progress.ProgressEvent` objects (engine ``"sat"``, depth units):
        ``"start"``, ``"incumbent"`` (a consistent tree of that depth was found: the search's
        tree or the CART warm start), ``"bound"`` (the depth below was proven UNSAT), ``"tick"``
        (at most every 2 s, between SAT calls and between chunks of
        :data:`~satdt.solvers.sat.tuning.TICK_CONFLICTS` conflicts of a long call; ``conflicts``
        so far, the depth tried as ``message``) and ``"done"`` (with the result's objective and
        bound).

    Returns
    -------
    SolveResult
        objective_name ``"depth"``; OPTIMAL with the minimum depth, FEASIBLE (best tree, bound =
        proven lower bound) or UNKNOWN on timeout, INFEASIBLE when ``max_depth`` is too small.
    """
    validate(problem, max_depth, solver, rows_per_round, row_pick)
    state = new_state(problem, time_limit, solver, rows_per_round, at_most_one, incremental, seed, phases,
                      row_pick, progress, "depth")
    state.repair = bool(repair)
    method = "sat-depth"
    if problem.n_present_classes <= 1:
        state.used[:] = True
        return make_result(state, leaf_tree(state), OPTIMAL, "depth", 0, method)
    incumbent = Incumbent(state, warm_start, max_depth)

    groups = problem.column_features
    canonical = tuning.CANONICAL_SPLITS and not useless and canonical_is_cheap(problem.X, groups)

    def make(k: int) -> DepthEncoding:
        return DepthEncoding(problem.X, state.labels, problem.n_classes, k, at_most_one=at_most_one,
                             useless=useless, groups=groups, canonical=canonical)

    status, k, tree, _, backend = depth_search(state, make, max_depth, incumbent, keep_solver=False)
    if backend is not None:
        state.close(backend)
    if status != UNKNOWN:
        return make_result(state, tree, status, "depth", k, method)
    if incumbent.get(force=True) is not None and (max_depth is None or incumbent.depth <= max_depth):
        return make_result(state, incumbent.tree, FEASIBLE, "depth", k, method)
    return make_result(state, None, UNKNOWN, "depth", k, method)
