"""satdt.heuristics.greedy: CART's Gini-greedy tree, one statement for every Python caller and the
compiled DP core's greedy checked against it."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.deadline import Deadline
from satdt.heuristics.greedy import best_test, cart_tree, gini_scores, greedy_tree, grow, leaf_support
from satdt.tree import Tree

from conftest import random_problem


def _exact_score(right, total) -> Fraction:
    """The Gini criterion in rational arithmetic (no rounding: ties are ties)."""
    right = [int(r) for r in right]
    left = [int(t) - r for r, t in zip(right, total)]
    return Fraction(sum(r * r for r in right), sum(right)) + Fraction(sum(v * v for v in left), sum(left))


def _check_first_exact_best(node, rows, weights, sides):
    """At every split of ``node`` (on ``rows``, class weights ``weights`` (n, C)): no test scores
    more in exact arithmetic, and no earlier test scores as much. ``sides(rows)`` is the list of
    each candidate test's (key, goes-right mask); a node's key is ``(feature, threshold)``."""
    if node.is_leaf:
        return
    total = weights[rows].sum(0)
    scored = [(key, _exact_score(weights[rows][mask].sum(0), total)) for key, mask in sides(rows)
              if 0 < mask.sum() < len(rows) and 0 < weights[rows][mask].sum() < total.sum()]
    best = max(score for _, score in scored)
    chosen = (node.feature, node.threshold)
    first = next(key for key, score in scored if score == best)
    assert chosen == first, (chosen, first)
    mask = dict(sides(rows))[chosen]
    _check_first_exact_best(node.left, rows[~mask], weights, sides)
    _check_first_exact_best(node.right, rows[mask], weights, sides)


def _tied_data(seed: int):
    rng = np.random.default_rng(seed)
    m, p, C = int(rng.integers(6, 50)), int(rng.integers(1, 6)), int(rng.integers(2, 4))
    X = rng.integers(0, int(rng.integers(2, 6)), size=(m, p)).astype(float)
    y = rng.integers(0, C, size=m)
    y[:C] = np.arange(C)
    return prepare(X, y)


# the one rule, in rational arithmetic: the first test of best score. (The greedy trees written
# before this module ranked tests by float impurity, which on small integer data broke exact ties
# by rounding: 83 trees of 1,500 random instances differed, every one at an exact tie.)
@pytest.mark.parametrize("seed", range(40))
def test_greedy_tree_takes_the_first_test_of_best_exact_score(seed):
    problem = Binarizer("all").problem(_tied_data(seed))
    tree = greedy_tree(problem)
    weights = problem.counts.astype(np.int64)

    def sides(rows):
        return [((j, 0.5), problem.X[rows, j].astype(bool)) for j in range(problem.n_binary)]

    _check_first_exact_best(tree.root, np.arange(problem.n_distinct), weights, sides)
    conflicts = int((problem.counts > 0).sum() - problem.n_distinct)
    if conflicts == 0:  # grown until pure: consistent on consistent data
        assert problem.errors(tree) == 0


def _midpoint_sides(data):
    """The candidate tests of :func:`cart_tree` on a node's rows: every midpoint between consecutive
    distinct values of every feature, with the rows it sends right."""
    def sides(rows):
        out = []
        for f in range(data.X.shape[1]):
            v = np.unique(data.X[rows, f])
            out += [((f, float((a + b) / 2.0)), data.X[rows, f] > (a + b) / 2.0) for a, b in zip(v[:-1], v[1:])]
        return out
    return sides


@pytest.mark.parametrize("seed", range(40))
def test_cart_tree_takes_the_first_test_of_best_exact_score(seed):
    data = _tied_data(seed)
    onehot = np.eye(len(data.classes), dtype=np.int64)[data.y]

    sides = _midpoint_sides(data)

    for depth in (None, 1, 2, 3):
        tree = cart_tree(data, depth)
        _check_first_exact_best(tree.root, np.arange(data.n_rows), onehot, sides)
        assert depth is None or tree.depth() <= depth


@pytest.mark.parametrize("seed", range(20))
def test_cart_tree_presorted_path_gives_the_same_tree(seed, monkeypatch):
    """Tall data take each column's order once for the whole tree (``PRESORT_MIN_ROWS``): the same
    first test of best exact score at every node, so the same tree as the sort per node."""
    import satdt.heuristics.greedy as greedy

    data = _tied_data(seed)
    onehot = np.eye(len(data.classes), dtype=np.int64)[data.y]
    before = {depth: cart_tree(data, depth) for depth in (None, 2, 3)}
    monkeypatch.setattr(greedy, "PRESORT_MIN_ROWS", 1)

    sides = _midpoint_sides(data)

    for depth, tree in before.items():
        presorted = cart_tree(data, depth)
        _check_first_exact_best(presorted.root, np.arange(data.n_rows), onehot, sides)
        assert presorted.to_dict() == tree.to_dict()


def test_cart_tree_keeps_only_splits_that_lower_the_errors_and_stops_at_its_deadline():
    data = load_dataset("iris")
    tree = cart_tree(data, 3)

    def errors(node):  # training errors of the subtree (class counts at every node)
        if node.is_leaf:
            return int(node.counts.sum() - node.counts.max())
        return errors(node.left) + errors(node.right)

    splits = [node for node in tree.root.walk() if not node.is_leaf]
    assert splits and all(errors(node) < node.counts.sum() - node.counts.max() for node in splits)
    assert errors(tree.root) == int((tree.predict_index(data.X) != data.y).sum())
    assert cart_tree(data, 3, deadline=Deadline(1e-9)) is None


def test_gini_scores_best_test_and_leaf_support():
    right = np.array([[0, 2, 3, 1], [0, 1, 3, 2]])   # (C, K): test 0 sends nothing right, test 2 all
    total = np.array([3, 3])
    score = gini_scores(right, total)
    assert score[0] == -np.inf and score[2] == -np.inf   # an empty side
    assert score[1] == score[3] == pytest.approx((4 + 1) / 3 + (1 + 4) / 3)
    assert best_test(right, total) == 1                  # ties: the first
    assert best_test(right, total, keep=np.array([True, False, True, True])) == 3
    assert best_test(right[:, [0, 2]], total) == -1 and best_test(np.zeros((2, 0)), total) == -1
    # leaf support: with q = 1 and a leaf cost of 3, a side's best leaf must classify >= 3 rows
    assert leaf_support(np.array([[3, 2], [0, 1]]), np.array([6, 1]), 1.0, 3.0).tolist() == [True, False]


class _ChainTests:
    """The DP's candidate tests, read from its column chains (one column per distinct split of a
    chain), for :func:`grow`: the statement the compiled core's greedy must equal."""

    def __init__(self, search):
        self.search = search

    def best(self, rows, total):
        s = self.search
        F, present = s.column_counts(rows)
        right = F[:s.C].astype(np.float64)
        keep = present & leaf_support(right, total, s.q, s.lc) if s.lc > 0 else present
        return best_test(right, total, keep)

    def goes_right(self, rows, g):
        return self.search.goes_right(rows, g)

    def node(self, g, left, right):
        return self.search.split(g, left, right)


def _problem(seed: int):
    if seed % 3 == 0:  # many duplicate rows merged into weights
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 3 + seed % 5, size=(60 + seed % 80, 2 + seed % 3)).astype(float)
        X = np.repeat(X, rng.integers(1, 8, size=X.shape[0]), axis=0)
        y = rng.integers(0, 2 + seed % 4, size=X.shape[0])
        y[:2 + seed % 4] = np.arange(2 + seed % 4)
        return Binarizer("all").problem(prepare(X, y))
    return random_problem(9000 + seed, n_rows=15 + seed % 40, n_features=2 + seed % 4, n_classes=2 + seed % 4,
                          binary=seed % 3 == 1, max_value=3 + seed % 6)


# the compiled core's greedy (Search::greedy_node, bound as _core.Search.greedy) and the numpy
# statement of the DP (SearchBase.greedy) against this module's recursion, node for node, with and
# without a leaf cost, on multi-class, weighted and tied instances
@pytest.mark.parametrize("seed", range(40))
def test_core_greedy_equals_the_python_greedy(seed):
    from satdt.solvers.dp.search import CoreSearch, SearchBase

    problem = _problem(seed)
    rows = np.arange(problem.n_distinct)
    for leaf_cost in (0, 1 + seed % 7):
        search = CoreSearch(problem, Deadline(None), -1.0, 1, leaf_cost)
        for depth in (1, 2, 3, 6):
            cost, node = grow(_ChainTests(search), search.counts, rows, depth, search.q, search.lc)
            core_cost, core_node = search.greedy(rows, depth)
            numpy_cost, numpy_node = SearchBase.greedy(search, rows, depth)
            trees = [Tree(root=n, classes=problem.classes).to_dict() for n in (node, core_node, numpy_node)]
            assert trees[0] == trees[1] == trees[2], (seed, leaf_cost, depth)
            assert cost == core_cost == numpy_cost == search.binary_cost(Tree(root=node, classes=problem.classes))



# class weights whose squares overflow an int64 (satdt/weights.py keeps exact integer weights up to
# a total of 2**40): the three greedies score in doubles. In int64 (as the core and SearchBase did)
# x0's score wraps to 6.6e7 against x1's -3.8e7, x0 was chosen; in doubles x1 scores 4.37e10 > 3.82e10
def test_greedies_score_class_weights_whose_squares_overflow_int64():
    from satdt.solvers.dp.search import CoreSearch, SearchBase

    counts = [[2320940284, 12395075302], [9025518535, 5329914838], [8346587910, 15281284634],
              [16046745416, 6146874674]]  # (x0, x1) = (0, 0), (0, 1), (1, 0), (1, 1); classes 0 and 1
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2, dtype=float)
    y = np.repeat([0, 1], 4)
    data = dataclasses.replace(prepare(X, y), weight=np.array(counts, dtype=np.int64).T.ravel())
    problem = Binarizer("all").problem(data)
    assert int(problem.counts.max()) ** 2 > np.iinfo(np.int64).max
    search = CoreSearch(problem, Deadline(None), -1.0)
    rows = np.arange(problem.n_distinct)
    for depth in (1, 2):
        cost, node = grow(_ChainTests(search), search.counts, rows, depth, search.q, search.lc)
        trees = [Tree(root=n, classes=problem.classes).to_dict()
                 for n in (node, search.greedy(rows, depth)[1], SearchBase.greedy(search, rows, depth)[1])]
        assert trees[0] == trees[1] == trees[2], depth
        assert trees[0]["root"]["feature"] == 1, trees[0]

def test_greedy_tree_of_a_depth_and_the_sat_incumbent():
    """``max_depth`` stops the tree; the SAT search's incumbent is this greedy tree."""
    from satdt.solvers.sat import incumbent

    problem = Binarizer("all").problem(load_dataset("monk1"))
    assert incumbent.greedy_tree is greedy_tree
    full, short = greedy_tree(problem), greedy_tree(problem, max_depth=2)
    assert problem.errors(full) == 0 and short.depth() <= 2 < full.depth()
