"""CART's Gini-greedy tree: the one statement of it in Python.

At a node the greedy takes the test of best Gini score among those that split the node's rows
into two non-empty sides (the first test on ties), grows both sides to ``depth - 1``, and keeps
the split when the two subtrees cost less than one leaf (``q * errors + leaf_cost * leaves``);
it stops at a pure node and at depth 0. The score of a test with right-side class weights ``r``
and left-side ``l`` is ``sum_c r_c**2 / |r| + sum_c l_c**2 / |l|`` (scikit-learn's proxy:
maximizing it minimizes the weighted Gini impurity of the two children).

Two kinds of tests, one recursion (:func:`grow`) and one criterion (:func:`gini_scores`):

* :class:`ColumnTests`: the binary columns of a :class:`~satdt.binarize.BinaryProblem`
  (:func:`greedy_tree`: the SAT search's starting tree, grown until pure);
* :class:`ThresholdTests`: the midpoints between consecutive distinct values of the original
  numeric features (:func:`cart_tree`: the floor of a degraded run, without a binarization).

The compiled DP core's greedy (``Search::greedy_node`` in ``satdt/solvers/dp/core/greedy.cpp``,
the DP's first incumbent) makes the same choices over the column chains (one column per distinct
split of a chain): ``tests/test_greedy.py`` checks it against :func:`grow` with chain tests.
DPDT's ``cart_splits`` (:mod:`satdt.heuristics.dpdt.splits`) computes the same criterion level
by level over all nodes of a state at once, on the state's inherited sort orders, and returns
the splits rather than a tree (its ties: lowest feature, then lowest threshold).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..deadline import DeadlineExpired
from ..tree import Node, Tree

__all__ = ["gini_scores", "best_test", "leaf_support", "grow", "ColumnTests", "ThresholdTests", "greedy_tree",
           "cart_tree", "timeout_answer", "CART_GRACE"]


def gini_scores(right, total: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """The Gini criterion of each candidate test, to maximize (see the module docstring).

    ``right``: the class weights on the right side of each test, one array per class (a ``(C,
    ...)`` array, or any iterable of ``C`` arrays, consumed class by class: no ``(C, ...)``
    temporary); ``total`` ``(C,)``: the node's class weights (integer-valued, so every sum below
    is exact). A test with an empty side, or not in ``keep`` (a mask shaped like one class of
    ``right``), scores ``-inf``.
    """
    total = np.asarray(total, dtype=np.float64)
    n_right = sr = sl = tmp = None
    for c, r in enumerate(right):  # buffers reused in place: the arrays are large in cart_tree
        r = np.asarray(r, dtype=np.float64)
        if n_right is None:
            n_right, sr, sl, tmp = r.copy(), r * r, np.empty_like(r), np.empty_like(r)
            np.subtract(total[c], r, out=tmp)
            np.multiply(tmp, tmp, out=sl)
            continue
        n_right += r
        np.multiply(r, r, out=tmp)
        sr += tmp
        np.subtract(total[c], r, out=tmp)
        tmp *= tmp
        sl += tmp
    n_left = np.subtract(float(total.sum()), n_right, out=tmp)
    ok = (n_right > 0.5) & (n_left > 0.5)  # a valid side weighs >= 1
    if keep is not None:
        ok &= keep
    np.divide(sr, n_right, out=sr, where=ok)
    np.divide(sl, n_left, out=sl, where=ok)
    sr += sl
    sr[~ok] = -np.inf
    return sr


def best_test(right: np.ndarray, total: np.ndarray, keep: np.ndarray | None = None) -> int:
    """The first test (column of ``right`` ``(C, K)``) of best :func:`gini_scores`, or -1 when
    no test splits the node into two non-empty sides (among ``keep``)."""
    score = gini_scores(right, total, keep)
    k = int(np.argmax(score)) if score.size else 0
    return k if score.size and score[k] > -np.inf else -1


def leaf_support(right: np.ndarray, total: np.ndarray, q: float, leaf_cost: float) -> np.ndarray:
    """OSDT's leaf support bound (Hu et al. 2019, Theorem 3.5) for each test (columns of
    ``right`` ``(C, K)``): False when a side's best leaf classifies ``k`` rows correctly with
    ``q * k < leaf_cost``, so that no optimal tree has it as a leaf (replacing its parent by the
    sibling subtree loses at most ``k`` rows and saves a leaf)."""
    right = np.asarray(right, dtype=np.float64)
    left = np.asarray(total, dtype=np.float64)[:, None] - right
    return (q * right.max(axis=0) >= leaf_cost) & (q * left.max(axis=0) >= leaf_cost)


class Tests(Protocol):
    """The candidate tests of a node: the best one by :func:`gini_scores`, and its partition."""

    def best(self, rows: np.ndarray, total: np.ndarray) -> int:
        """The test of best score on ``rows`` (class weights ``total``), or -1 (none splits)."""

    def goes_right(self, rows: np.ndarray, test: int) -> np.ndarray:
        """Which of ``rows`` go right at ``test``."""

    def node(self, test: int, left: Node, right: Node) -> Node:
        """The split node of ``test``."""


def grow(tests: Tests, counts: np.ndarray, rows: np.ndarray, depth: int | None, q: float = 1.0,
         leaf_cost: float = 0.0, prune: bool = True) -> tuple[float, Node]:
    """The greedy tree on ``rows`` (weights ``counts[rows]`` ``(n, C)``) of depth ``<= depth``
    (None: until pure): ``(cost, root)``, cost ``q * errors + leaf_cost * leaves``.

    ``prune``: keep a split only when its subtrees cost less than a leaf (without it every split
    found is kept; the same tree when grown until pure on consistent data).
    """
    total = counts[rows].sum(axis=0)
    errors = float(total.sum() - total.max())
    leaf_value = q * errors + leaf_cost
    leaf = Node.leaf(int(np.argmax(total)))
    if (depth is not None and depth <= 0) or errors == 0:
        return leaf_value, leaf
    test = tests.best(rows, total)
    if test < 0:
        return leaf_value, leaf
    right = tests.goes_right(rows, test)
    below = None if depth is None else depth - 1
    cost_l, node_l = grow(tests, counts, rows[~right], below, q, leaf_cost, prune)
    cost_r, node_r = grow(tests, counts, rows[right], below, q, leaf_cost, prune)
    if not prune or cost_l + cost_r < leaf_value:
        return cost_l + cost_r, tests.node(test, node_l, node_r)
    return leaf_value, leaf


class ColumnTests:
    """The binary columns of ``X`` ``(m, B)`` as tests (weights ``counts`` ``(m, C)``); a split
    node tests column ``j`` at 0.5 (right: the column is true)."""

    def __init__(self, X: np.ndarray, counts: np.ndarray, q: float = 1.0, leaf_cost: float = 0.0):
        self.X = X
        self.counts = np.asarray(counts, dtype=np.float64)
        self.q, self.leaf_cost = q, leaf_cost

    def best(self, rows: np.ndarray, total: np.ndarray) -> int:
        right = self.counts[rows].T @ self.X[rows].astype(np.float64)      # (C, B)
        keep = leaf_support(right, total, self.q, self.leaf_cost) if self.leaf_cost > 0 else None
        return best_test(right, total, keep)

    def goes_right(self, rows: np.ndarray, test: int) -> np.ndarray:
        return self.X[rows, test].astype(bool)

    def node(self, test: int, left: Node, right: Node) -> Node:
        return Node.split(test, 0.5, left, right)


def greedy_tree(problem, max_depth: int | None = None) -> Tree:
    """CART's greedy tree over the binary columns of ``problem`` (a
    :class:`~satdt.binarize.BinaryProblem`), grown until pure (or to ``max_depth``), in numpy,
    leaves relabelled with their majority class: the same kind of upper bound as scikit-learn's
    CART without loading scikit-learn (2-6 s on a loaded machine, which a short time limit cannot
    afford). Ties: the first column."""
    counts = problem.counts.astype(np.float64)
    _, root = grow(ColumnTests(problem.X, counts), counts, np.arange(problem.n_distinct), max_depth,
                   prune=False)
    return problem.leaf_labels(Tree(root=root, classes=problem.classes))


#: rows from which :class:`ThresholdTests` sorts each column once for the whole tree and takes a
#: node's rows in that order (O(rows) a column), not a sort per node: on 10^6 x 10 rows CART at
#: depth 3 took 11 s with a sort per node
PRESORT_MIN_ROWS = 50_000


class ThresholdTests:
    """The midpoints between consecutive distinct values of the numeric ``columns`` of ``X`` as
    tests, scanned in chunks of at most ``max_cells`` (rows x features) floats; test ``k`` is
    ``(feature, threshold)`` of :attr:`found` (left: ``x[feature] <= threshold``).
    ``deadline.expired()`` is checked before each chunk and each class of it
    (:class:`~satdt.deadline.DeadlineExpired`), so a limit overruns by one chunk's work of one class at most (10^6
    rows: one column)."""

    def __init__(self, X: np.ndarray, onehot_y: np.ndarray, columns: np.ndarray, max_cells: float,
                 deadline=None):
        self.X, self.Y, self.columns = X, onehot_y, columns
        self.max_cells, self.deadline = max_cells, deadline
        self.found: list[tuple[int, float]] = []
        self._sorted: dict[int, tuple] = {}  # column -> all rows, values, classes in value order (tall data)

    def best(self, rows: np.ndarray, total: np.ndarray) -> int:
        n = len(rows)
        best = (-np.inf, -1, 0.0)
        if n >= PRESORT_MIN_ROWS and 8 * n >= self.X.shape[0]:  # a large part of tall data: no sort per node
            member = np.zeros(self.X.shape[0], dtype=bool)
            member[rows] = True
            for col in self.columns:
                self._expired()
                if col not in self._sorted:  # the rows, their values and classes in value order (the
                    order = np.argsort(self.X[:, col])  # order among equal values is immaterial)
                    self._sorted[col] = (order, self.X[order, col], np.ascontiguousarray(self.Y[order].T))
                order, values, classes = self._sorted[col]
                inside = member[order]  # the node's rows, in value order
                best = self._best_of(values[inside][None, :], None, np.array([col]), total, best,
                                     classes[:, inside])
            return self._keep(best)
        Yr = self.Y[rows]
        chunk = max(1, int(self.max_cells // max(1, n)))
        for start in range(0, len(self.columns), chunk):
            self._expired()
            cols = self.columns[start:start + chunk]
            V = np.ascontiguousarray(self.X[np.ix_(rows, cols)].T)  # (k, n): each feature's row contiguous
            order = np.argsort(V, axis=1)
            best = self._best_of(np.take_along_axis(V, order, axis=1), order, cols, total, best, Yr)
        return self._keep(best)

    def _best_of(self, Vs: np.ndarray, order: np.ndarray, cols: np.ndarray, total: np.ndarray,
                 best: tuple[float, int, float], Yr: np.ndarray | None = None) -> tuple[float, int, float]:
        """``best`` or the better first test among ``cols`` (their values sorted, ``Vs`` ``(k,
        n)``, and the rows of ``Yr`` (the node's classes) in that order, ``order``; None: ``Yr`` is
        ``(C, n)``, the classes already in the order of ``Vs``'s one column)."""
        Y = self.Y if Yr is None else Yr
        # class weights left of each position (the rows up to it in the feature's order), one
        # class at a time: the criterion is symmetric in its two sides (the same floats)
        left = (np.cumsum(Y[:, c][order] if order is not None else Y[c][None, :], axis=1, dtype=np.float64)[:, :-1]
                for c in range(Y.shape[1] if order is not None else Y.shape[0]) if not self._expired())
        score = gini_scores(left, total, keep=Vs[:, 1:] > Vs[:, :-1])  # no threshold between equal values
        j, k = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[j, k] > best[0]:
            best = (float(score[j, k]), int(cols[j]), float((Vs[j, k] + Vs[j, k + 1]) / 2.0))
        return best

    def _keep(self, best: tuple[float, int, float]) -> int:
        if best[1] < 0:
            return -1
        self.found.append((best[1], best[2]))
        return len(self.found) - 1

    def _expired(self) -> bool:
        """False, or :class:`~satdt.deadline.DeadlineExpired` when the deadline has passed."""
        if self.deadline is not None and self.deadline.expired():
            raise DeadlineExpired("CART's greedy tree")
        return False

    def goes_right(self, rows: np.ndarray, test: int) -> np.ndarray:
        feature, threshold = self.found[test]
        return self.X[rows, feature] > threshold

    def node(self, test: int, left: Node, right: Node) -> Node:
        feature, threshold = self.found[test]
        return Node.split(feature, threshold, left, right)


def cart_tree(data, max_depth: int | None, deadline=None, max_cells: float = 1e6) -> Tree | None:
    """CART's greedy tree (the split kept only when it lowers the errors) on the original numeric
    features of ``data`` (a :class:`~satdt.data.Dataset`), thresholds at the midpoints between
    consecutive distinct values (the ``all`` binarization's), without scikit-learn or a binarized
    problem (:class:`ThresholdTests`). Each row counts once (``data.weight`` is not read).
    Categorical columns are not split. Grows until pure when ``max_depth`` is None. Returns a
    :class:`~satdt.tree.Tree` with class counts, or None when ``deadline`` (a
    :class:`~satdt.deadline.Deadline`) passes.

    The reference point of a degraded run: whatever a limit cut, the answer is at least this tree.
    """
    X, y = data.X, data.y
    n_classes = len(data.classes)
    numeric = np.array([j not in data.schema.categories for j in range(X.shape[1])], dtype=bool)
    onehot = np.eye(n_classes, dtype=np.int32)[y]
    tests = ThresholdTests(X, onehot, np.flatnonzero(numeric), max_cells, deadline)
    try:
        _, root = grow(tests, onehot, np.arange(X.shape[0]), max_depth)
    except DeadlineExpired:
        return None
    tree = Tree(root, classes=data.classes, feature_names=list(data.feature_names))
    tree.fit_counts(X, y)
    return tree


#: seconds CART may take after a time limit struck before an engine started (within the
#: documented tolerance of a limit, max(1 s, 5 %), and before the ``satdt`` program's watchdog,
#: at half of it): 0.06-0.1 s on magic (15,216 x 10) at depth 4-6, 0.25-0.35 s on 200,000 x 3
CART_GRACE = 0.4


def timeout_answer(data, method: str, objective_name: str, runtime: float, lam: float | None = None,
                   step: str = "binarization", max_depth: int | None = None, grace: float | None = None):
    """:func:`satdt.result.timeout_result` (the majority leaf, or UNKNOWN for the consistent-tree
    objectives), with CART's tree of depth ``max_depth`` on the original features instead of the
    leaf when it is better (:func:`cart_tree`, at most ``grace`` seconds, default
    :data:`CART_GRACE`; not with missing values). ``stats["tree_source"]`` says which."""
    import time

    from ..deadline import Deadline
    from ..result import objective_value, timeout_result

    result = timeout_result(data, method, objective_name, runtime, lam=lam, step=step)
    depth_ok = isinstance(max_depth, (int, np.integer)) and not isinstance(max_depth, bool) and max_depth > 0
    if result.tree is None or not depth_ok or result.objective <= result.bound:
        return result
    start = time.perf_counter()
    try:
        cart = None if np.isnan(np.asarray(data.X, dtype=float)).any() else \
            cart_tree(data, int(max_depth), deadline=Deadline(CART_GRACE if grace is None else max(1e-3, grace)))
    except Exception:  # noqa: BLE001 - data CART cannot take: the leaf is the answer
        cart = None
    result.runtime += time.perf_counter() - start
    if cart is None:
        return result
    weight = getattr(data, "weight", None)
    if weight is not None:
        cart.fit_counts(data.X, data.y, weight)
    errors = int(cart.errors(data.X, data.y, weight))
    n = int(len(data.y) if weight is None else np.asarray(weight).sum())
    value = objective_value(objective_name, cart, errors, n, lam)
    if value < result.objective:
        result.tree, result.objective = cart, value
        result.stats.update(errors=errors, tree_source="greedy",
                            note=f"time limit reached during {step}; no engine ran: CART's tree")
    return result
