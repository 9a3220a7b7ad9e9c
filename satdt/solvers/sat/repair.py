"""Subtree repair, a large-neighbourhood step of the SAT search.

A model's top :data:`~satdt.solvers.sat.tuning.REPAIR_KEEP_LEVELS` levels are kept and the
subtrees below are re-solved by small SAT calls (:func:`fit_subtree`) on every row that reaches
them; a full repair is a consistent tree of depth ``k`` (that depth's search ends; minimality is
still the UNSAT proof of ``k - 1``). It is tried (1) on each model of a hard round (a SAT call of
at least :data:`~satdt.solvers.sat.tuning.REPAIR_AFTER_CONFLICTS` conflicts) and (2) when depth
``k`` starts, on the best model(s) of depth ``k - 1`` given one more level (:func:`deepen`): on
the edge of feasibility, their tops are good tops for depth ``k``. Budgets count solver
conflicts, never seconds. A failed repair can also hand back the core rows of the region it could
not fix (:data:`~satdt.solvers.sat.tuning.CORE_ROWS_CAP`, 0 by default: measured slower on car).
"""

from __future__ import annotations

import time

import numpy as np

from ... import heaptree
from ...deadline import Deadline
from ...encodings.sat_depth import DepthEncoding
from ..common import TreeCheckError
from . import tuning
from .backend import SatBackend
from .state import SearchState

__all__ = ["try_repair", "repair_subtrees", "fit_subtree", "deepen"]


def try_repair(state: SearchState, encoding: DepthEncoding, backend: SatBackend, feature: np.ndarray,
               leaf_class: np.ndarray, wrong: np.ndarray, spent: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Subtree repair (:func:`repair_subtrees`) of a model within ``REPAIR_SHARE * spent``
    conflicts (at least ``REPAIR_MIN_CONFLICTS``, :mod:`~satdt.solvers.sat.tuning`). Returns the
    repaired ``(feature, leaf_class)``, or None after adding the core rows of an unrepairable
    region to ``backend``."""
    t1 = time.perf_counter()
    budget = [max(tuning.REPAIR_MIN_CONFLICTS, int(tuning.REPAIR_SHARE * spent))]  # conflicts left
    fixed, stuck = repair_subtrees(state, encoding, feature, leaf_class, wrong, budget)
    state.repairs.append((int(state.used.sum()), fixed is not None, round(time.perf_counter() - t1, 3)))
    outcome = "repaired" if fixed is not None else ("stuck" if stuck is not None else "out of budget")
    state.repair_outcomes[outcome] = state.repair_outcomes.get(outcome, 0) + 1
    if stuck is not None:
        # rows that no subtree of one region can fit together under this model's top levels:
        # with them in the encoding the next model has to change its top (random rows need
        # several rounds, each a hard call, to force that change)
        stuck = stuck[~state.used[stuck]]
        if stuck.size > tuning.CORE_ROWS_CAP:
            stuck = state.rng.choice(stuck, size=tuning.CORE_ROWS_CAP, replace=False)
        state.used[stuck] = True
        state.core_rows += int(stuck.size)
        t0 = time.perf_counter()
        backend.add(encoding.row_clauses(stuck))
        state.build_time += time.perf_counter() - t0
    return fixed


def deepen(encoding: DepthEncoding, feature: np.ndarray, leaf_class: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A model of depth ``k - 1`` as one of ``encoding``'s depth ``k`` (:func:`satdt.heaptree.deepen`):
    the same tests on the levels above, a last level of pass-through tests (the leaf marker, or
    column 0 whose two leaves get the same class), each leaf doubled. It classifies every row as
    the model did."""
    return heaptree.deepen(feature, leaf_class, encoding.marker if encoding.marker is not None else 0)


def fit_subtree(X: np.ndarray, labels: np.ndarray, n_classes: int, depth: int, solver: str,
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
    backend = SatBackend(solver, time_limited=deadline.remaining() is not None)
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


def repair_subtrees(state: SearchState, encoding: DepthEncoding, feature: np.ndarray, leaf_class: np.ndarray,
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
    d_max = k - tuning.REPAIR_KEEP_LEVELS
    if d_max < 1:
        return None, None
    feature, leaf_class = feature.copy(), leaf_class.copy()
    paths = heaptree.paths(encoding.X, feature, k)
    d0 = min(2, d_max)
    todo = {int(v): d0 for v in np.unique(paths[wrong, k - d0])}  # region node -> its depth
    done: dict[int, int] = {}
    while todo:
        v = max(todo, key=lambda u: (todo[u], u))  # the largest regions first
        d = todo.pop(v)
        rows = np.flatnonzero(paths[:, k - d] == v)  # the levels above v are never changed
        out = fit_subtree(encoding.X[rows], encoding.labels[rows], encoding.n_classes, d, state.solver,
                           state.deadline, budget, state.rows_per_round, state.rng)
        if isinstance(out, str):  # "timeout"
            return None, None
        if isinstance(out[0], str):  # ("unsat", rows of the sub-encoding)
            if d + 1 > d_max:
                return None, rows[out[1]]
            parent, dp = (v - 1) // 2, d + 1  # (a region of depth d is at level k - d)
            # regions under the parent are re-solved with it (a graft there will be overwritten)
            todo = {u: du for u, du in todo.items() if not heaptree.is_under(u, parent)}
            done = {u: du for u, du in done.items() if not heaptree.is_under(u, parent)}
            todo[parent] = dp
            continue
        heaptree.graft(feature, leaf_class, v, *out)
        done[v] = d
    if encoding.wrong_rows(feature, leaf_class).size:  # pragma: no cover - a bug, never a wrong tree
        raise TreeCheckError("subtree repair produced an inconsistent tree")
    return (feature, leaf_class), None
