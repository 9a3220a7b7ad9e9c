"""Starting trees for the exact engines: CART, DPDT's front, or any tree mapped by routing.

One vocabulary across engines:

* ``warm_start`` (the public parameter of solvers, estimators and the CLI) names where the
  starting trees come from: None / False (none), True / ``"cart"`` (CART [11] of the engine's
  depth), ``"dpdt"`` (DPDT's Pareto front [9]) or a :class:`~satdt.tree.Tree` over the
  original features;
* a *start tree* is the chosen tree over the binary columns (:func:`warm_start_trees`,
  :func:`best_start_tree`): an upper bound, and the fallback tree on a time limit;
* a *hint* is an engine's encoding of the start tree (a MIP solution vector, CP-SAT's
  ``add_hint``, a SAT oracle's phases); it lives with the engine's encoding.

Every starting tree respects the caller's :class:`~satdt.deadline.Deadline`: CART, which runs
in scikit-learn's native code and cannot be interrupted, gets at most :data:`TIME_SHARE` of the
time left (:func:`cart_binary_tree` fits it on the binary columns when its estimated time fits,
else on the original features, else not at all, and never waits past that share).

References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import math
import threading
from typing import Any, Callable

import numpy as np

from .binarize import BinaryProblem
from .deadline import Deadline
from .tree import Node, Tree

__all__ = ["CART_MAX_CELLS", "CART_SECONDS_PER_CELL", "TIME_SHARE", "cart_binary_tree", "cart_seconds",
           "single_leaf", "tree_on_columns", "warm_start_trees", "best_start_tree", "check_warm_start"]

#: binary-matrix cells above which CART is fitted on the original features (scikit-learn copies
#: the matrix as floats, 4-8 bytes a cell: 17 GB for htru's 14k x 101k)
CART_MAX_CELLS = 50_000_000
#: seconds of a CART fit per input cell and tree level (float copy included): 3.3e-8 measured on
#: random 4,000 x 6,000 binary data at depths 2-4, rounded up for a loaded machine
CART_SECONDS_PER_CELL = 5e-8
#: largest share of the time left that a starting tree may take (the engine needs the rest)
TIME_SHARE = 0.25
#: a share below this many seconds is not worth a thread's start: no CART
MIN_SECONDS = 0.005


def cart_seconds(n_rows: int, n_columns: int, max_depth: int | None) -> float:
    """Estimated seconds of a CART fit on ``n_rows`` x ``n_columns`` (one pass per level)."""
    levels = max_depth if max_depth is not None else max(1, math.ceil(math.log2(max(2, n_rows))))
    return CART_SECONDS_PER_CELL * n_rows * n_columns * max(1, levels)


def _within(work: Callable[[], Any], seconds: float | None) -> Any:
    """``work()``; with ``seconds``, run in a daemon thread and abandoned after that long (None
    then): scikit-learn's fit cannot be interrupted but releases the GIL, so the caller goes on."""
    if seconds is None:
        return work()
    if seconds < MIN_SECONDS:
        return None
    out: list = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            out.append(work())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=run, name="satdt-cart", daemon=True)
    worker.start()
    worker.join(seconds)
    if failure:
        raise failure[0]
    return out[0] if out else None


def cart_binary_tree(problem: BinaryProblem, max_depth: int | None, criterion: str = "gini",
                     random_state: int = 0, deadline: Deadline | None = None,
                     original: bool = False) -> Tree | None:
    """A CART tree (scikit-learn) over the binary columns, for warm starts and upper bounds.

    Fitted on the distinct rows, each class of a row weighted by its count; leaves get their
    majority class on the problem's rows. When the binary matrix is large (more than
    :data:`CART_MAX_CELLS` cells), CART is fitted on the original features instead and mapped to
    the columns by routing (:meth:`BinaryProblem.from_original`; exact under ``all``).

    With a ``deadline`` that has a limit, the fit (and scikit-learn's import, the first time)
    gets at most :data:`TIME_SHARE` of the time left: on the binary columns if
    :func:`cart_seconds` fits that share, else on the original features if that fits, else none;
    a fit still running when the share is spent is abandoned. ``original``: on the original
    features whatever the size (scikit-learn's own tree of the data, the comparator users run).

    Returns
    -------
    Tree or None
        None only when the deadline leaves no time for CART.
    """
    left = None if deadline is None else deadline.remaining()
    budget = None if left is None else TIME_SHARE * left
    n_original = problem.data.X.shape[1]
    on_original = original or problem.n_distinct * problem.n_binary > CART_MAX_CELLS
    if budget is not None and not on_original \
            and cart_seconds(problem.n_distinct, problem.n_binary, max_depth) > budget:
        on_original = True  # degrade: the original features are far fewer cells
    if budget is not None and on_original and cart_seconds(problem.data.n_rows, n_original, max_depth) > budget:
        return None

    def fit():
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=max_depth, criterion=criterion, random_state=random_state)
        if on_original:
            return model.fit(problem.data.X, problem.data.y, sample_weight=problem.data.weight)
        rows, classes = np.nonzero(problem.counts)
        return model.fit(problem.X[rows].astype(np.float32), classes,
                         sample_weight=problem.counts[rows, classes].astype(np.float64))

    model = _within(fit, budget)
    if model is None:
        return None
    tree = Tree.from_sklearn(model)
    # model.classes_ are the class indices that occur; map leaves back to problem class indices
    for node in tree.root.walk():
        node.label = int(model.classes_[node.label])
    tree.classes = problem.classes
    if on_original:
        tree = problem.from_original(tree)[0]
    return problem.leaf_labels(tree)


def single_leaf(problem: BinaryProblem) -> Tree:
    """The tree of one leaf predicting the most frequent class (with its class counts)."""
    totals = problem.counts.sum(axis=0)
    return Tree(root=Node.leaf(int(np.argmax(totals)), totals), classes=problem.classes)


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


def check_warm_start(warm_start, allow_bool: bool = True) -> None:
    """Raise ValueError unless ``warm_start`` is a valid source of starting trees."""
    ok = warm_start is None or isinstance(warm_start, Tree) \
        or (isinstance(warm_start, bool) and allow_bool) \
        or (isinstance(warm_start, str) and warm_start in ("cart", "dpdt"))
    if not ok:
        kinds = "None, True/False, 'cart', 'dpdt' or a Tree" if allow_bool else "None, 'cart', 'dpdt' or a Tree"
        raise ValueError(f"warm start must be {kinds}, got {warm_start!r}")


def warm_start_trees(problem: BinaryProblem, warm_start, max_depth: int,
                     deadline: Deadline | None = None) -> list[Tree]:
    """Candidate start trees over the binary columns (see the module docstring).

    ``warm_start``: None / False (none), True / ``"cart"`` (CART of depth ``max_depth``),
    ``"dpdt"`` (every tree of DPDT's Pareto front at depth ``max_depth``, the heuristic
    comparator, :mod:`satdt.heuristics.dpdt`), or a :class:`Tree` over the original features
    (:func:`tree_on_columns`). The caller keeps the best by its own objective. With a
    ``deadline``, CART and DPDT get at most :data:`TIME_SHARE` of the time left; when CART gets
    no time, the single majority leaf stands in for it (a tree of every depth, at no cost).
    """
    check_warm_start(warm_start)
    if warm_start is None or warm_start is False or max_depth < 1 or problem.n_binary == 0:
        return []
    if warm_start is True or warm_start == "cart":
        tree = cart_binary_tree(problem, max_depth, deadline=deadline)
        return [single_leaf(problem) if tree is None else tree]
    if isinstance(warm_start, Tree):
        return [tree_on_columns(problem, warm_start, max_depth)]
    from .heuristics.dpdt import solve_dpdt  # the heuristic comparator, loaded only when asked for

    left = None if deadline is None else deadline.remaining()
    front = solve_dpdt(problem.data, max_depth=max_depth, cart_depth=5 if max_depth <= 3 else [3, 2],
                       alphas=np.linspace(0.0, 0.1, 51),
                       time_limit=None if left is None else max(1e-3, TIME_SHARE * left))
    return [tree_on_columns(problem, t) for t in front.trees]


def best_start_tree(problem: BinaryProblem, warm_start, max_depth: int, value,
                    deadline: Deadline | None = None) -> Tree | None:
    """The candidate of :func:`warm_start_trees` of least ``value(tree)``, or None."""
    return min(warm_start_trees(problem, warm_start, max_depth, deadline), key=value, default=None)
