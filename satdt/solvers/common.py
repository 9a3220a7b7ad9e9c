"""What every solver does the same way: the final check of a returned tree, and the core count.

Starting trees (CART, DPDT, any tree mapped by routing) live in :mod:`satdt.warmstart`, the
deadline in :mod:`satdt.deadline`; ``Deadline`` and ``cart_binary_tree`` are re-exported here
for the modules that still import them from this one (``satdt.solvers.sat``).
"""

from __future__ import annotations

import os

from ..binarize import BinaryProblem
from ..deadline import Deadline
from ..tree import Tree
from ..warmstart import cart_binary_tree

__all__ = ["finalize_tree", "n_cores", "TreeCheckError", "Deadline", "cart_binary_tree"]


class TreeCheckError(AssertionError):
    """A tree failed its re-evaluation on the data: a bug in an engine, never a user error."""


def n_cores() -> int:
    """Cores this process may use (CP-SAT ``num_workers``, joblib ``n_jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def finalize_tree(problem: BinaryProblem, binary_tree: Tree, prune: bool = True,
                  binary_errors=None) -> tuple[Tree, int]:
    """Map a tree over binary columns to the original features, prune it, re-evaluate it.

    Leaves are relabelled with their majority class on the training rows (this never adds an
    error), empty-sided splits and same-class sibling leaves are removed (no change in
    predictions on the training rows). ``binary_errors`` (a callable of the binary tree) counts
    the errors over the binary columns without ``problem.X`` (the DP reads its column chains).

    Returns
    -------
    tree : Tree
        In the original features, with class counts at every node.
    errors : int
        Its training errors (weighted by ``data.weight``), counted with :meth:`Tree.errors` on
        the original rows.
    """
    bin_errors = problem.errors(binary_tree) if binary_errors is None else binary_errors(binary_tree)
    tree = problem.to_original(binary_tree, relabel=True)
    if prune:
        tree.prune()
    data = problem.data
    errors = int(tree.errors(data.X, data.y, data.weight))
    if errors > bin_errors:
        raise TreeCheckError(f"tree maps to {errors} errors on the original rows but had "
                             f"{bin_errors} on the binarized rows")
    return tree, errors
