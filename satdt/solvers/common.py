"""Pieces every solver uses: the final check of a returned tree, warm starts, the core count.

``Deadline`` lives in :mod:`satdt.deadline` (below every engine, so that DPDT, which this module
calls for its warm starts, does not import this module back); it is re-exported here.
"""

from __future__ import annotations

import os

import numpy as np

from ..binarize import BinaryProblem
from ..deadline import Deadline
from ..tree import Tree

__all__ = ["Deadline", "finalize_tree", "n_cores", "TreeCheckError", "tree_on_columns", "warm_start_trees"]


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
        Its training errors, counted with :meth:`Tree.predict` on the original rows.
    """
    bin_errors = problem.errors(binary_tree) if binary_errors is None else binary_errors(binary_tree)
    tree = problem.to_original(binary_tree, relabel=True)
    if prune:
        tree.prune()
    data = problem.data
    errors = int((tree.predict_index(data.X) != data.y).sum())
    if errors > bin_errors:
        raise TreeCheckError(f"tree maps to {errors} errors on the original rows but had "
                             f"{bin_errors} on the binarized rows")
    return tree, errors


def tree_errors(tree: Tree, X: np.ndarray, y: np.ndarray) -> int:
    """Training errors of ``tree`` on class-index labels ``y``."""
    return int((tree.predict_index(X) != y).sum())


CART_MAX_CELLS = 50_000_000  # binary-matrix cells above which CART is fitted on the original features


def cart_binary_tree(problem: BinaryProblem, max_depth: int | None, criterion: str = "gini",
                     random_state: int = 0) -> Tree:
    """A CART tree (scikit-learn) over the binary columns, for warm starts and upper bounds.

    Fitted on the distinct rows, each class of a row weighted by its count; leaves get their
    majority class on the problem's rows. When the binary matrix is large (more than
    :data:`CART_MAX_CELLS` cells: scikit-learn would copy it as floats, 4-8 bytes a cell, e.g.
    17 GB for htru's 14k x 101k), CART is fitted on the original features instead and mapped to
    the columns by routing (:meth:`BinaryProblem.from_original`; exact under ``all``).
    """
    from sklearn.tree import DecisionTreeClassifier

    model = DecisionTreeClassifier(max_depth=max_depth, criterion=criterion, random_state=random_state)
    on_original = problem.n_distinct * problem.n_binary > CART_MAX_CELLS
    if on_original:
        model.fit(problem.data.X, problem.data.y)
    else:
        rows, classes = np.nonzero(problem.counts)
        model.fit(problem.X[rows].astype(np.float32), classes,
                  sample_weight=problem.counts[rows, classes].astype(np.float64))
    tree = Tree.from_sklearn(model)
    # model.classes_ are the class indices that occur; map leaves back to problem class indices
    for node in tree.root.walk():
        node.label = int(model.classes_[node.label])
    tree.classes = problem.classes
    if on_original:
        tree = problem.from_original(tree)[0]
    return problem.leaf_labels(tree)


def tree_on_columns(problem: BinaryProblem, tree: Tree, max_depth: int | None = None) -> Tree:
    """A tree over the original features (any estimator's ``tree_``, a result's tree, a DPDT
    tree) as a tree over ``problem``'s binary columns that routes the training rows the same
    way (:meth:`BinaryProblem.from_original`), leaves relabelled with their majority class.

    Raises ValueError when the tree is deeper than ``max_depth``, predicts a class or tests a
    feature the data does not have (:meth:`Tree.relabeled`).
    """
    if not isinstance(tree, Tree):
        raise ValueError(f"a warm-start tree must be a satdt Tree, got {type(tree).__name__}")
    if max_depth is not None and tree.depth() > max_depth:
        raise ValueError(f"warm-start tree has depth {tree.depth()} > max_depth {max_depth}")
    tree = tree.relabeled(problem.classes, problem.data.X.shape[1])
    binary, _ = problem.from_original(tree)
    return problem.leaf_labels(binary)


def warm_start_trees(problem: BinaryProblem, warm_start, max_depth: int) -> list[Tree]:
    """Candidate warm-start trees over the binary columns, for the engines' hints.

    ``warm_start``: None / False (none), True / ``"cart"`` (scikit-learn's CART of depth
    ``max_depth``), ``"dpdt"`` (every tree of DPDT's Pareto front at depth ``max_depth``, the
    heuristic comparator, :mod:`satdt.solvers.dpdt`), or a :class:`Tree` over the original
    features (:func:`tree_on_columns`). The caller keeps the best by its own objective.
    """
    if warm_start is None or warm_start is False or max_depth < 1 or problem.n_binary == 0:
        return []
    if warm_start is True or (isinstance(warm_start, str) and warm_start == "cart"):
        return [cart_binary_tree(problem, max_depth)]
    if isinstance(warm_start, str) and warm_start == "dpdt":
        from .dpdt import solve_dpdt
        front = solve_dpdt(problem.data, max_depth=max_depth, cart_depth=5 if max_depth <= 3 else [3, 2],
                           alphas=np.linspace(0.0, 0.1, 51))
        return [tree_on_columns(problem, t) for t in front.trees]
    if isinstance(warm_start, Tree):
        return [tree_on_columns(problem, warm_start, max_depth)]
    raise ValueError(f"warm start must be None, True/False, 'cart', 'dpdt' or a Tree, got {warm_start!r}")
