"""satdt.bruteforce: the reference itself, checked by enumerating trees explicitly."""

import itertools

import numpy as np
import pytest

from satdt import bruteforce
from satdt.tree import Node, Tree


def all_trees(n_features: int, depth: int, n_classes: int):
    """Every tree over binary columns up to ``depth`` (explicit, no memoization)."""
    yield from (Node.leaf(c) for c in range(n_classes))
    if depth == 0:
        return
    subtrees = list(all_trees(n_features, depth - 1, n_classes))
    for j in range(n_features):
        for left, right in itertools.product(subtrees, repeat=2):
            yield Node.split(j, 0.5, left, right)


@pytest.mark.parametrize("seed", range(12))
def test_memoized_search_equals_explicit_enumeration(make_problem, seed):
    p = make_problem(seed, n_rows=10, n_features=3, n_classes=2)
    Xf = p.X.astype(float)
    for depth in (1, 2):
        explicit = min(p.errors(Tree(root, p.classes)) for root in all_trees(p.n_binary, depth, 2))
        errors, tree = bruteforce.min_errors(p, depth)
        assert errors == explicit
        assert p.errors(tree) == errors and tree.depth() <= depth
        lam = 0.05
        reg = min(p.errors(Tree(r, p.classes)) / p.n_rows + lam * Tree(r, p.classes).n_leaves
                  for r in all_trees(p.n_binary, depth, 2))
        assert bruteforce.min_regularized(p, lam, depth)[0] == pytest.approx(reg)
        alpha = 0.1
        dp = min(p.errors(Tree(r, p.classes)) / p.n_rows
                 + alpha * np.average(Tree(r, p.classes).tests_per_row(Xf), weights=p.weights)
                 for r in all_trees(p.n_binary, depth, 2))
        assert bruteforce.min_dpdt(p, alpha, depth)[0] == pytest.approx(dp)


@pytest.mark.parametrize("seed", range(8))
def test_min_cost_with_negative_costs_equals_explicit_enumeration(make_problem, seed):
    # the memoized search prunes on partial sums: costs < 0 (a reward for a right answer) once
    # gave a larger minimum than the enumeration
    p = make_problem(seed, n_rows=10, n_features=3, n_classes=2)
    C = np.random.default_rng(seed).integers(-4, 5, size=(2, 2)).astype(float)
    C[0, 0], C[1, 1] = -3.0, -2.0
    for depth in (1, 2):
        explicit = float("inf")
        for root in all_trees(p.n_binary, depth, 2):
            tree = Tree(root, p.classes)
            value = sum(float((p.counts[rows].sum(axis=0) @ C).min()) for _, rows in p.route(tree))
            explicit = min(explicit, value)
        cost, tree = bruteforce.min_cost(p, C, depth)
        assert cost == pytest.approx(explicit)
        counts = [p.counts[rows].sum(axis=0) for _, rows in p.route(tree)]
        assert sum(float(c @ C[:, leaf.label]) for (leaf, _), c in zip(p.route(tree), counts)) == pytest.approx(cost)


def test_min_depth_and_nodes_on_xor():
    from satdt.binarize import Binarizer
    from satdt.data import prepare

    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    p = Binarizer().problem(prepare(X, [0, 1, 1, 0]))
    assert bruteforce.min_depth(p) == 2
    assert bruteforce.min_nodes(p, 2)[0] == 7
    assert bruteforce.min_nodes(p, 1)[0] == float("inf")
