"""Max-accuracy trees of depth d with weighted MaxSAT (RC2) against the brute-force enumerator."""

from __future__ import annotations

import time

import numpy as np
import pytest

from satdt import load_dataset
from satdt.binarize import Binarizer
from satdt.bruteforce import min_errors
from satdt.encodings.maxsat import MaxSatEncoding
from satdt.result import FEASIBLE, OPTIMAL, UNKNOWN
from satdt.solvers.maxsat import MAXSAT_SOLVERS, solve_max_accuracy
from satdt.solvers.sat import solve_min_depth

from conftest import random_problem


def _instance(seed: int):
    """Small, often conflicting problems: 8-16 rows, 3-4 features, 2-3 classes."""
    rng = np.random.default_rng(20_000 + seed)
    return random_problem(seed, n_rows=int(rng.integers(8, 17)), n_features=int(rng.integers(3, 5)),
                          n_classes=int(rng.integers(2, 4)), consistent=False, binary=bool(seed % 2),
                          max_value=3)


def _check(problem, result):
    data = problem.data
    assert result.tree is not None
    assert result.objective == int((result.tree.predict_index(data.X) != data.y).sum())


@pytest.mark.parametrize("block", range(4))
def test_matches_bruteforce_depths_1_to_3(block):
    """100 instances x depths 1, 2, 3 = 300 cross-checks."""
    for seed in range(block * 25, block * 25 + 25):
        problem = _instance(seed)
        for depth in (1, 2, 3):
            r = solve_max_accuracy(problem, max_depth=depth, stratified=bool(seed % 2),
                                   warm_start=bool(seed % 3), phases=seed % 4 == 1)
            assert (r.stats.get("phases", 0) > 0) == (seed % 4 == 1 and seed % 3 != 0
                                                     and "maxsat_time_s" in r.stats)
            best, _ = min_errors(problem, depth)
            assert r.status == OPTIMAL and r.objective == best == r.bound, (seed, depth)
            assert r.tree.depth() <= depth
            _check(problem, r)


def test_agrees_with_dt_depth():
    """Where DT_depth says consistent at k: 0 errors at depth k, more than 0 at k - 1."""
    for seed in range(300, 340):
        problem = random_problem(seed, n_rows=14, n_features=4, n_classes=2, consistent=True)
        k = solve_min_depth(problem).objective
        assert solve_max_accuracy(problem, max_depth=k).objective == 0
        if k > 0:
            assert solve_max_accuracy(problem, max_depth=k - 1).objective > 0


@pytest.mark.parametrize("backend", MAXSAT_SOLVERS)
def test_every_oracle_agrees(backend):
    for seed in range(400, 405):
        problem = _instance(seed)
        r = solve_max_accuracy(problem, max_depth=2, solver=backend, time_limit=60)
        assert r.objective == min_errors(problem, 2)[0] and r.status == OPTIMAL


def test_depth_zero_and_conflicts():
    problem = _instance(5)
    r = solve_max_accuracy(problem, max_depth=0)
    assert r.status == OPTIMAL and r.tree.n_nodes == 1 and r.objective == min_errors(problem, 0)[0]


@pytest.mark.parametrize("name, depth, errors", [("iris", 2, 6), ("iris", 3, 1), ("monk1", 2, 22)])
def test_known_optima(name, depth, errors):
    problem = Binarizer("all").problem(load_dataset(name))
    r = solve_max_accuracy(problem, max_depth=depth, time_limit=120)
    assert (r.status, r.objective) == (OPTIMAL, errors)
    _check(problem, r)


def test_time_limit_is_honoured():
    problem = Binarizer("all").problem(load_dataset("monk2"))
    t0 = time.perf_counter()
    r = solve_max_accuracy(problem, max_depth=4, time_limit=1.0)
    assert time.perf_counter() - t0 < 2.0
    assert r.status in (FEASIBLE, UNKNOWN)
    if r.tree is not None:
        _check(problem, r)
        assert r.bound <= r.objective


@pytest.mark.parametrize("kwargs, message", [
    ({"max_depth": -1}, "max_depth"), ({"max_depth": None}, "max_depth"),
    ({"max_depth": 2, "solver": "nosuch"}, "glucose4"), ({"max_depth": 2, "time_limit": 0}, "time_limit"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve_max_accuracy(_instance(1), **kwargs)


def test_soft_clauses_carry_counts():
    problem = _instance(2)
    enc = MaxSatEncoding(problem.X, problem.counts, 2)
    enc.hard_clauses()
    lits, weights = enc.soft_clauses()
    assert weights.sum() == problem.n_rows and lits.size == (problem.counts > 0).sum()
