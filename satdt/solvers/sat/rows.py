"""Incremental example addition (Avellaneda [6]): solve on a few rows, add rows the model
misclassifies, re-solve on the same incremental solver.

:func:`fit_rows` answers one question (a perfect tree of the encoding's depth, under the
assumptions of a bound on the splits) for *every* distinct row while the encoding holds only the
rows it needed; :func:`pick_rows` chooses the rows added after each model. References are
numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import time

import numpy as np

from ...encodings.sat_depth import DepthEncoding
from ...tree import Tree
from ...warmstart import cart_binary_tree
from ..common import finalize_tree
from . import tuning
from .backend import SatBackend
from .repair import try_repair
from .state import Answer, SearchState

__all__ = ["fit_rows", "pick_rows", "binary_splits", "phase_hints"]


def pick_rows(state: SearchState, encoding: DepthEncoding, feature: np.ndarray, wrong: np.ndarray) -> np.ndarray:
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


def fit_rows(state: SearchState, encoding: DepthEncoding, backend: SatBackend, assumptions: list[int],
             repair: bool = False) -> tuple[Answer, np.ndarray | None, np.ndarray | None]:
    """Solve, adding misclassified rows, until a model fits every row, UNSAT, or timeout.

    ``repair``: after a SAT call of at least :data:`~satdt.solvers.sat.tuning.REPAIR_AFTER_CONFLICTS`
    conflicts, try the subtree repair (:func:`~satdt.solvers.sat.repair.try_repair`) of its model
    before adding rows; a repaired tree fits every row and ends the loop (SAT). Only for a
    question about the depth alone (a repaired tree may have more splits than a size bound). Every model is offered to
    :meth:`SearchState.keep_model` (the seeds of the next depth's repair).

    Returns ``(Answer.SAT, feature, leaf_class)``, ``(Answer.UNSAT, None, None)`` or
    ``(Answer.TIMEOUT, None, None)``.
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
                return Answer.TIMEOUT, None, None
            if not result:
                return Answer.UNSAT, None, None
            feature, leaf_class = encoding.decode(backend.model())
            wrong = encoding.wrong_rows(feature, leaf_class)
            if wrong.size == 0:
                return Answer.SAT, feature, leaf_class
            if state.deadline.expired():
                return Answer.TIMEOUT, None, None
            state.keep_model(encoding.depth, wrong.size, feature, leaf_class)
            if repair and spent >= tuning.REPAIR_AFTER_CONFLICTS and encoding.depth >= tuning.REPAIR_MIN_DEPTH:
                fixed = try_repair(state, encoding, backend, feature, leaf_class, wrong, spent)
                if fixed is not None:
                    return Answer.SAT, fixed[0], fixed[1]
            state.tick(backend)
            t1 = time.perf_counter()
            pick = pick_rows(state, encoding, feature, wrong)
            state.used[pick] = True
            state.rounds += 1
            loaded = backend.add(encoding.row_clauses(pick), state.deadline)
            state.build_time += time.perf_counter() - t1
            if not loaded:
                return Answer.TIMEOUT, None, None
    finally:
        state.last = {"variables": int(encoding.pool.top), "clauses": int(backend.n_clauses)}


def binary_splits(state: SearchState, tree: Tree) -> int:
    """Splits of a binary-column tree once mapped to the original features and pruned."""
    return finalize_tree(state.problem, tree)[0].n_splits


def phase_hints(state: SearchState, encoding: DepthEncoding) -> list[int]:
    """Solution-phase hints: a CART tree of the encoding's depth (SAT phase warm start)."""
    return encoding.phase_literals(cart_binary_tree(state.problem, encoding.depth))
