"""The exact DP with the root's subproblems as tasks: processes on one machine, or Dask workers.

The most accurate tree of depth ``d >= 3`` is the best, over the tests ``j`` of the top node, of
the best tree whose root tests ``j``. :func:`solve_max_accuracy_dp_tasks` splits the top node's
tests by feature (whole chains, so ConTree's interval bounds between the thresholds of one
feature still work inside a task) into ``n_tasks`` parts of about the same number of thresholds,
and runs one task per part with :class:`joblib.Parallel`: each task builds the compiled search of
the problem and solves it with only its part's tests at the top node
(:meth:`~satdt.solvers.dp.search.CoreSearch.run` with ``roots``), CART's tree as the common upper
bound. Every node below the top is the exact search with its memo; only the top node is split.

* **Optimum.** The best of the parts' trees and CART's tree. It is proven (OPTIMAL) when every
  task finished: a finished part found its best tree below the upper bound, or proved none
  exists there.
* **Time limit.** Each task stops at the limit (counted from the call) and returns its best tree
  and the lower bound its root search proved for its part; the bound reported is the least of
  the parts' bounds (a part that never started counts the leaf-conflict floor).
* **Where tasks run.** ``joblib`` decides: ``n_jobs`` processes on this machine by default, or the
  workers of a Dask cluster under ``joblib.parallel_config(backend="dask")`` (``pip install
  satdt[cluster]``; a ``dask.distributed.Client`` must be open). The answer (cost, status and,
  for a given ``n_tasks``, the tree) does not depend on where or in which order tasks run.

What is lost against one process: the parts do not share the memo nor the similarity bounds
between roots of different features, nor a best tree found meanwhile by another part. On one
machine, the threads of the compiled core are the better road; this one scales past it.
"""

from __future__ import annotations

import time

import numpy as np

from ...binarize import BinaryProblem
from ...deadline import Deadline
from ...result import SolveResult, engine_result
from ...tree import Node, Tree
from ..common import TreeCheckError
from .accuracy import _finalize, _validate, new_search, solve_max_accuracy_dp
from .chains import Chains, build_chains
from .search import CoreSearch, SearchTimeout

__all__ = ["solve_max_accuracy_dp_tasks", "root_parts"]


def root_parts(chains: Chains, n_tasks: int) -> list[np.ndarray]:
    """The columns (chain order) of the top node split into at most ``n_tasks`` parts of whole
    chains, the longest chains first, each to the part with the fewest columns so far (ties: the
    lowest part); each part ascending. Deterministic."""
    if n_tasks < 1:
        raise ValueError(f"n_tasks must be >= 1, got {n_tasks}")
    lengths = np.bincount(chains.chain, minlength=int(chains.chain.max(initial=-1)) + 1)
    order = np.argsort(-lengths, kind="stable")
    load = np.zeros(n_tasks, dtype=np.int64)
    owner = np.full(lengths.size, -1, dtype=np.int64)
    for c in order:
        if lengths[c] == 0:
            continue
        k = int(np.argmin(load))
        owner[c] = k
        load[k] += lengths[c]
    columns = np.arange(chains.chain.size)
    parts = [columns[owner[chains.chain] == k] for k in range(n_tasks)]
    return [p for p in parts if p.size]


def _solve_part(problem: BinaryProblem, chains: Chains, d: int, ub: float, roots: np.ndarray,
                seconds: float | None) -> dict:
    """One task: the search restricted to ``roots`` at the top node, for ``seconds`` (None: to the
    end). Returns the part's best tree (over the binary columns) below ``ub``, if any, whether the
    part finished, and its lower bound."""
    search = new_search(problem, Deadline(seconds), None, chains=chains)
    start = time.perf_counter()
    out = search.run(d, ub, roots=roots)
    return {"finished": out.finished, "cost": out.cost, "node": out.node, "bound": out.bound,
            "seconds": time.perf_counter() - start, "nodes": int(search.stats.get("nodes", 0))}


def solve_max_accuracy_dp_tasks(problem: BinaryProblem, *, max_depth: int, time_limit: float | None = None,
                                n_tasks: int | None = None, n_jobs: int | None = None) -> SolveResult:
    """Most accurate tree of depth <= ``max_depth``, the top node's tests split into tasks (see
    the module docstring).

    Parameters
    ----------
    problem : BinaryProblem
    max_depth : int
        Depths below 3 have no subproblems worth a task: the one-process search
        (:func:`~satdt.solvers.dp.solve_max_accuracy_dp`) answers them.
    time_limit : float or None
        Wall-clock seconds for the whole call; the tasks stop at it.
    n_tasks : int or None
        Parts of the top node's tests (default: ``n_jobs``, or 4 when joblib picks).
    n_jobs : int or None
        joblib's ``n_jobs`` (None: joblib's default, or what ``joblib.parallel_config`` sets).

    Returns
    -------
    SolveResult
        As :func:`~satdt.solvers.dp.solve_max_accuracy_dp`; ``stats["tasks"]``: per task its
        columns, whether it finished, its best cost, bound and seconds.
    """
    from joblib import Parallel, delayed

    _validate(problem, max_depth, None, None)
    d = int(max_depth)
    if d < 3 or problem.n_binary == 0:
        return solve_max_accuracy_dp(problem, max_depth=d, time_limit=time_limit)
    if n_tasks is not None and (isinstance(n_tasks, bool) or not isinstance(n_tasks, (int, np.integer))
                                or n_tasks < 1):
        raise ValueError(f"n_tasks must be a positive integer or None, got {n_tasks!r}")
    deadline = Deadline(time_limit)
    chains = build_chains(problem)
    search = new_search(problem, deadline, None, chains=chains)
    if not isinstance(search, CoreSearch):  # pragma: no cover - the core is built with the package
        raise ImportError("solve_max_accuracy_dp_tasks needs the compiled DP core")
    S = np.arange(problem.n_distinct, dtype=np.int64)
    try:
        inc_node, source = search.greedy(S, d)[1], "greedy"
    except SearchTimeout:
        inc_node, source = search.leaf(S), "leaf"
    inc_cost = search.binary_errors(Tree(root=inc_node, classes=problem.classes))
    parts = root_parts(chains, int(n_tasks or (n_jobs if n_jobs and n_jobs > 0 else 4)))
    left = deadline.remaining()
    answers = Parallel(n_jobs=n_jobs)(
        delayed(_solve_part)(problem, chains, d, inc_cost, part, None if left is None else max(left, 0.0))
        for part in parts)
    floor = float(problem.min_errors)
    bound = np.inf
    best_node: Node = inc_node
    best_cost = inc_cost
    for answer in answers:  # in part order: the tree does not depend on which task ended first
        if answer["node"] is not None and answer["cost"] is not None and answer["cost"] < best_cost:
            best_node, best_cost, source = answer["node"], float(answer["cost"]), "dp"
        if answer["finished"]:
            # its optimum, or (no tree below the upper bound there) the bound it proved, >= ub
            part_bound = answer["cost"] if answer["node"] is not None else answer["bound"]
        else:
            part_bound = floor if answer["bound"] is None else answer["bound"]
        bound = min(bound, part_bound)
    proven = all(a["finished"] for a in answers)
    binary_tree = Tree(root=best_node, classes=problem.classes)
    tree, errors = _finalize(problem, binary_tree, search.binary_errors)
    if errors != best_cost:
        raise TreeCheckError(f"dp tree has {errors} errors on the original rows, the tasks said {best_cost:g}")
    bound = max(floor, min(bound, float(errors)))
    stats = {"tasks": [{"columns": int(p.size), "finished": bool(a["finished"]), "cost": a["cost"],
                        "bound": a["bound"], "seconds": round(a["seconds"], 3), "nodes": a["nodes"]}
                       for p, a in zip(parts, answers)],
             "tree_source": source, "engine": "dp-core-tasks", "columns": int(chains.chain.size),
             "distinct_rows": problem.n_distinct}
    return engine_result(tree, errors, proven=proven, bound=int(np.ceil(bound - 1e-9)), runtime=deadline,
                         method="dp", objective_name="errors", stats=stats)
