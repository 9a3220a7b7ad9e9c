"""The DP / branch-and-bound max-accuracy engine (satdt.solvers.dp) against brute force and known optima."""

from __future__ import annotations

import time

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.solvers.dp import solve_max_accuracy_dp

from conftest import random_problem


def _check(problem, res, depth):
    """Status, re-evaluation of the returned tree on the original rows, depth."""
    data = problem.data
    assert res.method == "dp" and res.objective_name == "errors"
    assert res.tree is not None
    assert res.objective == int((res.tree.predict_index(data.X) != data.y).sum())
    assert res.tree.depth() <= depth
    assert res.bound <= res.objective


# 100 seeds x 2 feature kinds x depths 1-3 (600 instances, both depth-2 solvers)
@pytest.mark.parametrize("seed", range(100))
def test_random_equals_bruteforce(seed):
    binary = seed % 2 == 0
    problem = random_problem(seed, n_rows=10 + seed % 16, n_features=3 + seed % 3,
                             n_classes=2 + seed % 3, binary=binary)
    for depth in (1, 2, 3):
        ref = bruteforce.min_errors(problem, depth)[0]
        for pair_ops in (0.0, 1e12):   # root search only / pair-count solver at depth 2
            res = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=pair_ops)
            _check(problem, res, depth)
            assert res.status == "OPTIMAL"
            assert res.objective == res.bound == ref, (seed, depth, pair_ops)


@pytest.mark.parametrize("seed", range(40))
def test_random_depth4_and_consistent(seed):
    problem = random_problem(1000 + seed, n_rows=14 + seed % 8, n_features=3, n_classes=2 + seed % 2,
                             binary=seed % 3 == 0, consistent=seed % 2 == 0)
    for depth in (0, 4):
        ref = bruteforce.min_errors(problem, depth)[0]
        res = solve_max_accuracy_dp(problem, max_depth=depth)
        _check(problem, res, depth)
        assert res.status == "OPTIMAL" and res.objective == ref


def test_upper_bound_argument():
    problem = random_problem(7, n_rows=30, n_features=4, n_classes=3, binary=False)
    ref = bruteforce.min_errors(problem, 2)[0]
    for ub in (ref, ref + 3):           # achievable bounds
        res = solve_max_accuracy_dp(problem, max_depth=2, upper_bound=ub)
        assert res.status == "OPTIMAL" and res.objective == ref
    if ref > 0:                         # a wrong (too small) bound: search repeated without it
        res = solve_max_accuracy_dp(problem, max_depth=2, upper_bound=ref - 1)
        assert res.status == "OPTIMAL" and res.objective == ref


KNOWN = [("iris", 2, 6), ("iris", 3, 1), ("monk1", 2, 22), ("monk1", 3, 11), ("monk2", 2, 57),
         ("monk2", 3, 42), ("monk3", 2, 8), ("monk3", 3, 6), ("wine", 2, 6), ("wine", 3, 0),
         ("tic-tac-toe", 2, 282), ("tic-tac-toe", 3, 216), ("compas", 2, 2296)]


@pytest.mark.parametrize("name,depth,optimum", KNOWN)
def test_known_optima(name, depth, optimum):
    problem = Binarizer("all").problem(load_dataset(name))
    res = solve_max_accuracy_dp(problem, max_depth=depth, time_limit=60)
    _check(problem, res, depth)
    assert res.status == "OPTIMAL"
    assert res.objective == res.bound == optimum


def _hard_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=3000) > 0).astype(int)
    return Binarizer("all").problem(prepare(X, y))


def test_time_limit_honoured():
    problem = _hard_problem()
    t0 = time.perf_counter()
    res = solve_max_accuracy_dp(problem, max_depth=4, time_limit=1.5)
    elapsed = time.perf_counter() - t0
    assert elapsed < 1.5 + 1.5
    assert res.status == "FEASIBLE"
    _check(problem, res, 4)
    assert problem.min_errors <= res.bound < res.objective


def test_bad_parameters():
    problem = random_problem(0)
    for bad in (-1, 1.5, "2", None, True):
        with pytest.raises(ValueError, match="max_depth"):
            solve_max_accuracy_dp(problem, max_depth=bad)
    with pytest.raises(ValueError, match="time_limit"):
        solve_max_accuracy_dp(problem, max_depth=2, time_limit=0)
    with pytest.raises(ValueError, match="time_limit"):
        solve_max_accuracy_dp(problem, max_depth=2, time_limit=-3)
    with pytest.raises(ValueError, match="upper_bound"):
        solve_max_accuracy_dp(problem, max_depth=2, upper_bound=-1)
    with pytest.raises(ValueError, match="problem"):
        solve_max_accuracy_dp(np.zeros((3, 3)), max_depth=2)


def test_no_columns_gives_majority_leaf():
    problem = Binarizer("all").problem(prepare(np.ones((5, 2)), [0, 1, 1, 0, 1]))
    res = solve_max_accuracy_dp(problem, max_depth=3)
    assert res.status == "OPTIMAL" and res.objective == 2 and res.tree.n_nodes == 1
