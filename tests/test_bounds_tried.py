"""benchmarks/bounds_tried.py: the threshold-interval bound whose figures on the large sets are
quoted in benchmarks/results/anytime.md is a lower bound (never above the brute-force optimum)
and, refined to its end, the optimum itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from satdt import bruteforce
from satdt.deadline import Deadline
from satdt.solvers.dp.accuracy import new_search

from conftest import random_problem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bounds_tried import IntervalBound  # noqa: E402


@pytest.mark.parametrize("seed", range(12))
def test_the_interval_bound_rises_to_the_optimum_and_never_above_it(seed):
    problem = random_problem(seed, n_rows=30 + seed % 20, n_features=2 + seed % 3, n_classes=2 + seed % 2,
                             binary=False, max_value=6)
    d = 3 + seed % 2
    optimum, _ = bruteforce.min_errors(problem, d)
    bound = IntervalBound(new_search(problem, Deadline(None), None, n_jobs=1), d)
    last = 0.0
    for _ in range(100_000):
        if bound.root.exact:
            break
        bound.refine()
        assert last <= bound.root.lb <= optimum
        last = bound.root.lb
    assert bound.root.exact and bound.root.lb == optimum
