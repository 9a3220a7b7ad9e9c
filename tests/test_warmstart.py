"""Starting trees (satdt.warmstart): CART within the caller's deadline, routing, validation."""

from __future__ import annotations

import time

import numpy as np
import pytest

from satdt import warmstart
from satdt.binarize import Binarizer
from satdt.data import load_dataset
from satdt.deadline import Deadline
from satdt.warmstart import best_start_tree, cart_binary_tree, tree_on_columns, warm_start_trees


@pytest.fixture(scope="module")
def wine():
    return Binarizer("all").problem(load_dataset("wine"))


def _same(a, b) -> bool:
    return a.to_dict()["root"] == b.to_dict()["root"]


def test_generous_deadline_gives_the_same_tree(wine):
    """A deadline with time to spare changes nothing: the same CART as without one."""
    for depth in (1, 2, 3):
        assert _same(cart_binary_tree(wine, depth), cart_binary_tree(wine, depth, deadline=Deadline(600)))


def test_short_deadline_degrades_to_original_features(wine, monkeypatch):
    """When the fit on the binary columns would not fit the share of the time left, CART is
    fitted on the original features and mapped by routing: the same errors as that CART."""
    from sklearn.tree import DecisionTreeClassifier

    data = wine.data
    cells = wine.n_distinct * wine.n_binary
    # a fit of this many cells per level needs 1 s: the binary matrix does not fit 25 % of 2 s,
    # the original features (13 columns) do
    monkeypatch.setattr(warmstart, "CART_SECONDS_PER_CELL", 1.0 / cells)
    assert warmstart.cart_seconds(wine.n_distinct, wine.n_binary, 2) > warmstart.TIME_SHARE * 2
    assert warmstart.cart_seconds(data.n_rows, data.X.shape[1], 2) < warmstart.TIME_SHARE * 2
    tree = cart_binary_tree(wine, 2, deadline=Deadline(2.0))
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(data.X, data.y)
    assert wine.errors(tree) == int((cart.predict(data.X) != data.y).sum())


def test_no_time_for_cart_gives_the_single_leaf(wine, monkeypatch):
    """Without time for CART, the start tree is the majority leaf (a tree of every depth)."""
    monkeypatch.setattr(warmstart, "CART_SECONDS_PER_CELL", 1.0)
    assert cart_binary_tree(wine, 2, deadline=Deadline(5.0)) is None
    (leaf,) = warm_start_trees(wine, "cart", 2, Deadline(5.0))
    assert leaf.n_leaves == 1 and wine.errors(leaf) == wine.n_rows - wine.counts.sum(axis=0).max()
    assert best_start_tree(wine, True, 2, wine.errors, Deadline(5.0)).n_leaves == 1
    assert cart_binary_tree(wine, 2).n_leaves > 1    # no deadline: always CART


def test_a_slow_fit_is_abandoned_at_its_share(wine, monkeypatch):
    """scikit-learn cannot be interrupted: a fit still running when its share of the time left
    is spent is abandoned, so the call never waits past the deadline."""
    from sklearn.tree import DecisionTreeClassifier

    def slow_fit(self, *args, **kwargs):
        time.sleep(1.5)
        return self

    monkeypatch.setattr(DecisionTreeClassifier, "fit", slow_fit)
    deadline = Deadline(0.8)
    assert cart_binary_tree(wine, 2, deadline=deadline) is None
    assert deadline.elapsed() < 0.8   # abandoned after its share (TIME_SHARE) of the time left


def test_binoct_with_a_tiny_limit_keeps_it(wine, monkeypatch):
    """An engine whose CART would take longer than its limit still returns within the limit."""
    from satdt.solvers.mip import solve_binoct

    monkeypatch.setattr(warmstart, "CART_SECONDS_PER_CELL", 1.0)
    result = solve_binoct(wine, max_depth=2, time_limit=0.5)
    assert result.runtime <= 0.5 + 1.0
    assert result.tree is not None and result.status == "FEASIBLE"   # at worst the single leaf


def test_tree_on_columns_and_validation(wine):
    cart = cart_binary_tree(wine, 2)
    original = wine.to_original(cart)
    again = tree_on_columns(wine, original, 2)
    assert wine.errors(again) == wine.errors(cart)
    with pytest.raises(ValueError, match="depth 2 > max_depth 1"):
        tree_on_columns(wine, original, 1)
    with pytest.raises(ValueError, match="warm start must be None, True/False, 'cart', 'dpdt' or a Tree"):
        warm_start_trees(wine, "bogus", 2)
    assert warm_start_trees(wine, None, 2) == [] and warm_start_trees(wine, False, 2) == []
    assert len(warm_start_trees(wine, original, 2)) == 1
    assert np.isfinite(wine.errors(best_start_tree(wine, "cart", 2, wine.errors)))
