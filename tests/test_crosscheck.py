"""Every formulation of "fewest errors at depth <= d" must give the same optimum.

Beyond the brute-force-sized instances of each engine's own tests: larger random instances and
bundled datasets, where the engines check each other (DP, MaxSAT, BinOCT, OCT with alpha = 0,
CP-SAT with lambda = 0), and DT_depth's minimum depth is where they reach 0 errors.
"""

import numpy as np
import pytest

from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.solvers import cpsat, dp, maxsat, mip, sat

from known_optima import known_errors

slow = pytest.mark.slow


def engines(problem, depth):
    n = problem.n_rows
    reg = cpsat.solve_regularized(problem, lam=0.0, max_depth=depth, time_limit=60)
    out = {
        "dp": dp.solve_max_accuracy_dp(problem, max_depth=depth, time_limit=60),
        "maxsat": maxsat.solve_max_accuracy(problem, max_depth=depth, time_limit=60),
        "binoct": mip.solve_binoct(problem, max_depth=depth, time_limit=60),
        "oct": mip.solve_oct(problem, max_depth=depth, time_limit=60),
    }
    values = {name: res.objective for name, res in out.items()}
    values["cpsat"] = round(reg.objective * n)
    statuses = {name: res.status for name, res in out.items()} | {"cpsat": reg.status}
    return values, statuses


@slow
@pytest.mark.parametrize("seed", range(12))
def test_engines_agree_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(40, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] * rng.integers(0, 2) > 5).astype(int) ^ (rng.random(40) < 0.2)
    problem = Binarizer("all").problem(prepare(X, y))
    values, statuses = engines(problem, 2)
    assert set(statuses.values()) == {"OPTIMAL"}, statuses
    assert len(set(values.values())) == 1, values


@pytest.mark.parametrize("name, depth", [pytest.param("iris", 2, marks=slow), ("monk3", 2), ("mouse", 2),
                                         pytest.param("monk1", 2, marks=slow)])
def test_engines_agree_on_bundled_data(name, depth):
    """Every engine proves the optimum of tests/known_optima.py."""
    optimum = known_errors(name, depth)
    problem = Binarizer("all").problem(load_dataset(name))
    values, statuses = engines(problem, depth)
    assert set(statuses.values()) == {"OPTIMAL"}, statuses
    assert set(values.values()) == {optimum}, values


@pytest.mark.parametrize("name", ["mouse", "lung-cancer"])
def test_zero_errors_exactly_from_the_minimum_depth(name):
    problem = Binarizer("all").problem(load_dataset(name))
    depth = sat.solve_min_depth(problem)
    assert depth.status == "OPTIMAL"
    k = depth.objective
    at_k = dp.solve_max_accuracy_dp(problem, max_depth=k)
    assert at_k.status == "OPTIMAL" and at_k.objective == 0
    below = dp.solve_max_accuracy_dp(problem, max_depth=k - 1)
    assert below.status == "OPTIMAL" and below.objective > 0
    assert maxsat.solve_max_accuracy(problem, max_depth=k - 1).objective == below.objective
