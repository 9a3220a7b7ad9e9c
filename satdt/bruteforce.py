"""Exhaustive search over every tree on a small :class:`~satdt.binarize.BinaryProblem`.

The reference that the exact engines are tested against. It enumerates, for each set of rows
and remaining depth, every binary column as a split (memoized on the row set), so it visits
every tree shape and every test assignment; only splits that leave a side empty are skipped,
since such a split never improves any of the objectives below. Exponential: use it on a handful
of binary columns and a few dozen distinct rows.

Costs are additive over leaves and splits:
``errors`` (leaf: rows outside its majority class), ``cost`` (leaf: ``min_j sum_i N_i
costs[i][j]``, its least-cost class), ``balanced`` (leaf errors of class ``c`` weigh ``1 / N_c``),
``nodes`` (consistent trees only: leaf 1 if
pure, else infinite; split 1), ``regularized`` (leaf: errors / n + lambda), ``dpdt`` (leaf:
errors / n; split: alpha * rows / n).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from .binarize import BinaryProblem
from .tree import Node, Tree

__all__ = ["best_tree", "min_errors", "min_depth", "min_nodes", "min_regularized", "min_dpdt", "min_cost",
           "min_balanced"]

INF = float("inf")


def best_tree(problem: BinaryProblem, max_depth: int,
              leaf_cost: Callable[[np.ndarray], float],
              split_cost: Callable[[np.ndarray], float] = lambda counts: 0.0) -> tuple[float, Tree | None]:
    """Minimum total cost over all trees of depth <= ``max_depth``.

    ``leaf_cost`` and ``split_cost`` take the class counts (length C) of the rows at the node;
    they must be >= 0 (a split is skipped once its left side costs as much as the best so far).
    Returns the cost and a tree over the binary columns (None when the cost is infinite).
    """
    X, counts = problem.X, problem.counts
    B = problem.n_binary

    @lru_cache(maxsize=None)
    def solve(rows: tuple, depth: int) -> tuple[float, Node | None]:
        idx = np.asarray(rows, dtype=np.int64)
        c = counts[idx].sum(axis=0)
        best = (leaf_cost(c), Node.leaf(int(np.argmax(c))))
        if depth == 0 or (c > 0).sum() <= 1 and leaf_cost(c) == 0:
            return best
        base = split_cost(c)
        for j in range(B):
            right = X[idx, j]
            if right.all() or not right.any():
                continue
            lc, ln = solve(tuple(idx[~right].tolist()), depth - 1)
            if base + lc >= best[0]:
                continue
            rc, rn = solve(tuple(idx[right].tolist()), depth - 1)
            if base + lc + rc < best[0]:
                best = (base + lc + rc, Node.split(j, 0.5, ln, rn))
        return best

    cost, root = solve(tuple(range(problem.n_distinct)), max_depth)
    if cost == INF:
        return cost, None
    return cost, Tree(root=root, classes=problem.classes)


def _leaf_errors(c: np.ndarray) -> float:
    return float(c.sum() - c.max())


def min_errors(problem: BinaryProblem, max_depth: int) -> tuple[int, Tree]:
    """Fewest training errors over trees of depth <= ``max_depth``."""
    cost, tree = best_tree(problem, max_depth, _leaf_errors)
    return int(cost), tree


def min_depth(problem: BinaryProblem, limit: int = 6) -> int | None:
    """Smallest depth of a tree with no training error (None if above ``limit``)."""
    for d in range(limit + 1):
        if min_errors(problem, d)[0] == 0:
            return d
    return None


def min_nodes(problem: BinaryProblem, max_depth: int) -> tuple[float, Tree | None]:
    """Fewest nodes (splits + leaves) of a consistent tree of depth <= ``max_depth`` (inf if none)."""
    return best_tree(problem, max_depth, lambda c: 1.0 if (c > 0).sum() <= 1 else INF,
                     lambda c: 1.0)


def min_regularized(problem: BinaryProblem, lam: float, max_depth: int) -> tuple[float, Tree]:
    """Minimum of errors / n + lam * leaves over trees of depth <= ``max_depth``."""
    n = problem.n_rows
    return best_tree(problem, max_depth, lambda c: _leaf_errors(c) / n + lam)


def min_dpdt(problem: BinaryProblem, alpha: float, max_depth: int) -> tuple[float, Tree]:
    """Minimum of error rate + alpha * average tests per row over trees of depth <= ``max_depth``."""
    n = problem.n_rows
    return best_tree(problem, max_depth, lambda c: _leaf_errors(c) / n,
                     lambda c: alpha * float(c.sum()) / n)


def min_cost(problem: BinaryProblem, costs: np.ndarray, max_depth: int) -> tuple[float, Tree]:
    """Least total misclassification cost over trees of depth <= ``max_depth``: a leaf with class
    counts ``N`` costs ``min_j sum_i N_i costs[i][j]`` and predicts that ``j`` (smallest on ties).
    The counts are those of the problem (weighted rows count their weight). Negative costs are
    taken: each true class's row is shifted to a least entry of 0 (every tree's cost moves by
    the same constant, added back), as :func:`best_tree`'s pruning needs costs >= 0."""
    C = np.asarray(costs, dtype=float)
    low = C.min(axis=1)
    cost, tree = best_tree(problem, max_depth, lambda c: float((c @ (C - low[:, None])).min()))
    cost += float(problem.counts.sum(axis=0) @ low)
    if tree is not None:
        for leaf, rows in problem.route(tree):
            leaf.label = int(np.argmin(problem.counts[rows].sum(axis=0) @ C))
    return cost, tree


def min_balanced(problem: BinaryProblem, max_depth: int) -> tuple[float, Tree]:
    """Largest balanced accuracy over trees of depth <= ``max_depth``, returned as the minimum of
    ``sum_c errors_c / N_c`` (= classes x (1 - balanced accuracy)) with its tree."""
    total = problem.counts.sum(axis=0).astype(float)
    C = np.where(np.eye(len(total)) > 0, 0.0, 1.0) / np.where(total > 0, total, 1.0)[:, None]
    return min_cost(problem, C, max_depth)
