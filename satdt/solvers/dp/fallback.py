"""The greedy tree as a result: what a command answers when an engine was stopped (a signal, a
resource limit) before it could hand over its own incumbent.

CART's choice (Gini, the first column on ties) grown by the compiled DP core over the binary
columns, within a few tenths of a second (:class:`satdt.solvers.dp.search.CoreSearch.greedy`
checks its clock at every node); the majority leaf when even that does not finish. For the
consistent-tree objectives (depth, nodes) the greedy tree grown until pure, when it fits the
depth bound; no tree (UNKNOWN) otherwise.

The old path ``satdt.fallback`` re-exports this module and :mod:`satdt.solvers.dp.degrade`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...result import SolveResult, engine_result, objective_value, timeout_result, trivial_bound

__all__ = ["greedy_result"]


def greedy_result(problem: Any, data: Any, method: str, objective_name: str, max_depth: int | None,
                  lam: float | None = None, seconds: float = 0.3, step: str = "interrupt") -> SolveResult:
    """The greedy tree (or the majority leaf) of ``problem`` as a FEASIBLE result for
    ``objective_name`` (``"errors"``, ``"regularized"`` with ``lam``, ``"depth"``, ``"nodes"``),
    its value evaluated on ``data`` (the original rows). ``stats["tree_source"]`` says which."""
    from ...deadline import Deadline

    start = time.perf_counter()
    tree = None
    try:
        if objective_name in ("depth", "nodes"):
            from .consistent import _consistent_fallback

            tree = _consistent_fallback(problem, max_depth, deadline=Deadline(max(seconds, 1e-3) / 0.5))
        elif objective_name in ("errors", "regularized"):
            from .accuracy import _finalize
            from .search import CoreSearch, SearchTimeout

            search = CoreSearch(problem, Deadline(max(seconds, 1e-3)), 0.0)
            depth = max(0, int(max_depth if max_depth is not None else 3))
            try:
                root = search.greedy(np.arange(problem.n_distinct, dtype=np.int64), depth)[1]
                from ...tree import Tree

                tree = _finalize(problem, Tree(root=root, classes=problem.classes), search.binary_errors)[0]
            except SearchTimeout:
                tree = None
    except Exception:  # noqa: BLE001 - no core, a problem it cannot take: the leaf below
        tree = None
    runtime = time.perf_counter() - start
    leaf = timeout_result(data, method, objective_name, runtime, lam=lam, step=step)
    if tree is None:
        leaf.stats["tree_source"] = "majority leaf" if leaf.tree is not None else "none"
        return leaf
    errors = int((tree.predict_index(data.X) != data.y).sum())
    value = objective_value(objective_name, tree, errors, data.n_rows, lam)
    if leaf.tree is not None and leaf.objective is not None and leaf.objective <= value:
        leaf.stats["tree_source"] = "majority leaf"
        return leaf
    stats = {"tree_source": "greedy", "timeout_in": step, "errors": errors,
             "note": f"{step}: the greedy (CART) tree, the engine's own incumbent was not handed over"}
    return engine_result(tree, value, bound=trivial_bound(objective_name, lam), runtime=runtime, method=method,
                         objective_name=objective_name, stats=stats)
