"""satdt.result: the one assembly of a SolveResult from an engine's outcome (engine_result), the
value of a tree for an objective, the bound every tree meets."""

from fractions import Fraction

import numpy as np
import pytest

from satdt.data import prepare
from satdt.deadline import Deadline
from satdt.result import (FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN, engine_result, objective_value, timeout_result,
                          trivial_bound)
from satdt.tree import Node, Tree


def _tree() -> Tree:
    return Tree(Node.split(0, 0.5, Node.leaf(0), Node.split(1, 0.5, Node.leaf(1), Node.leaf(0))),
                classes=np.array([0, 1]))


def _make(tree, objective, **kw):
    return engine_result(tree, objective, method="m", objective_name="errors", runtime=1.5, **kw)


def test_status_and_bound_are_derived_one_way():
    t = _tree()
    # proven (flag or the engine's OPTIMAL): the bound is the objective
    for kw in ({"proven": True}, {"status": OPTIMAL}, {"status": OPTIMAL, "bound": 1}):
        r = _make(t, 4, **kw)
        assert (r.status, r.objective, r.bound, r.gap) == (OPTIMAL, 4, 4, 0)
    # a proven bound that reaches the tree's value is a proof
    assert (_make(t, 4, bound=4).status, _make(t, 4, bound=4, status=FEASIBLE).status) == (OPTIMAL, OPTIMAL)
    # otherwise FEASIBLE, whatever the engine's word (UNKNOWN with a tree is FEASIBLE)
    r = _make(t, 4, bound=2, status=UNKNOWN)
    assert (r.status, r.bound, r.gap) == (FEASIBLE, 2, 2)
    r = _make(t, 4)
    assert (r.status, r.bound, r.gap) == (FEASIBLE, None, None)
    # no tree: UNKNOWN with the engine's bound, or the engine's proof that none exists
    r = _make(None, 3, bound=2, status=FEASIBLE)
    assert (r.status, r.objective, r.bound, r.tree) == (UNKNOWN, None, 2, None)
    r = _make(None, None, status=INFEASIBLE, bound=5)
    assert (r.status, r.bound, r.proven) == (INFEASIBLE, 5, True)
    with pytest.raises(ValueError, match="INFEASIBLE result has no tree"):
        _make(t, 4, status=INFEASIBLE)


def test_exact_values_compare_exactly_and_become_floats():
    t = _tree()
    third, below = Fraction(1, 3), Fraction(1, 3) - Fraction(1, 10 ** 30)   # equal as floats
    assert float(third) == float(below)
    r = engine_result(t, third, bound=below, method="m", objective_name="regularized", runtime=0.0)
    assert r.status == FEASIBLE and isinstance(r.objective, float) and isinstance(r.bound, float)
    r = engine_result(t, third, bound=third, method="m", objective_name="regularized", runtime=0.0)
    assert r.status == OPTIMAL and r.bound == r.objective == float(third)


def test_runtime_from_the_call_deadline():
    clock = Deadline(None)
    clock.start -= 2.0
    r = engine_result(None, None, method="m", objective_name="depth", runtime=clock)
    assert 2.0 <= r.runtime < 10.0 and r.stats == {}


def test_objective_value_and_trivial_bound():
    t = _tree()
    X = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])
    assert objective_value("errors", t, 3, 10) == 3.0
    assert objective_value("regularized", t, 3, 10, lam=0.5) == pytest.approx(0.3 + 1.5)
    assert objective_value("dpdt", t, 3, 10, alpha=0.25, X=X) == pytest.approx(0.3 + 0.25 * 7 / 4)
    assert (objective_value("depth", t, 3, 10), objective_value("nodes", t, 3, 10)) == (2.0, 5.0)
    with pytest.raises(ValueError, match="no value for the objective 'splits'"):
        objective_value("splits", t, 3, 10)
    assert (trivial_bound("errors"), trivial_bound("regularized", 0.01), trivial_bound("depth")) == (0.0, 0.01, None)


def test_timeout_result_is_the_leaf_or_nothing():
    data = prepare(np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 0, 0, 1]))
    r = timeout_result(data, "dp", "errors", 0.5)
    assert (r.status, r.objective, r.bound, r.tree.n_leaves) == (FEASIBLE, 1.0, 0.0, 1)
    r = timeout_result(data, "cpsat", "regularized", 0.5, lam=0.1)
    assert (r.status, r.objective, r.bound) == (FEASIBLE, pytest.approx(0.35), 0.1)
    pure = prepare(np.array([[0.0], [1.0]]), np.array([1, 1]), require_two_classes=False)
    assert timeout_result(pure, "dp", "errors", 0.5).status == OPTIMAL   # the leaf meets the bound
    r = timeout_result(data, "sat-depth", "depth", 0.5)
    assert (r.status, r.tree, r.objective) == (UNKNOWN, None, None)
