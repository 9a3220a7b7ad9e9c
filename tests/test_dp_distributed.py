"""The exact DP with the top node's tests split into tasks (satdt.solvers.dp.distributed): every
part's answer and the whole against brute force, on processes and on a Dask LocalCluster."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import bruteforce
from satdt.deadline import Deadline
from satdt.result import FEASIBLE, OPTIMAL
from satdt.solvers.dp import solve_max_accuracy_dp
from satdt.solvers.dp.accuracy import new_search
from satdt.solvers.dp.chains import build_chains
from satdt.solvers.dp.distributed import root_parts, solve_max_accuracy_dp_tasks
from satdt.data import load_dataset
from satdt.binarize import Binarizer

from conftest import random_problem

slow = pytest.mark.slow
BIG = 2 ** 40


def _instance(seed: int):
    return random_problem(seed, n_rows=18 + seed % 20, n_features=3 + seed % 3, n_classes=2 + seed % 3,
                          binary=seed % 2 == 0, max_value=5)


def _check_tree(problem, r, depth: int) -> None:
    """The returned tree re-evaluated on the original rows, its depth, the bound below it."""
    data = problem.data
    assert r.objective == int((r.tree.predict_index(data.X) != data.y).sum())
    assert r.tree.depth() <= depth and r.bound <= r.objective


def _best_with_root_in(problem, columns: set[int], depth: int) -> float:
    """Brute force: the best tree whose root tests a column of ``columns`` (problem.X order), or
    the leaf."""
    best = bruteforce.min_errors(problem, 0)[0]
    X = problem.X.astype(bool)
    for j in columns:
        right = X[:, j]
        sides = []
        for mask in (~right, right):
            sub = bruteforce.min_errors(_reweighted(problem, mask), depth - 1)[0]
            sides.append(sub)
        best = min(best, sum(sides))
    return best


def _reweighted(problem, keep: np.ndarray):
    import copy
    sub = copy.copy(problem)
    sub.counts = np.where(keep[:, None], problem.counts, 0)
    return sub


def test_root_parts_cover_every_column_once_by_whole_chains():
    problem = Binarizer("all").problem(load_dataset("iris"))
    chains = build_chains(problem)
    for n in (1, 2, 3, 7, 50):
        parts = root_parts(chains, n)
        cols = np.concatenate(parts)
        assert np.array_equal(np.sort(cols), np.arange(chains.chain.size))
        assert len(parts) <= n
        owners = {}
        for k, part in enumerate(parts):
            for c in np.unique(chains.chain[part]):
                assert owners.setdefault(int(c), k) == k  # a chain is never split
    with pytest.raises(ValueError):
        root_parts(chains, 0)


@pytest.mark.parametrize("seed", [s if s < 12 else pytest.param(s, marks=slow) for s in range(24)])
def test_each_part_is_the_best_tree_with_its_roots(seed):
    problem = _instance(seed)
    chains = build_chains(problem)
    search = new_search(problem, Deadline(None), None, chains=chains)
    for part in root_parts(chains, 2 + seed % 3):
        out = search.run(3, BIG, roots=part)
        assert out.finished and out.node is not None
        expected = _best_with_root_in(problem, {int(chains.orig[g]) for g in part}, 3)
        assert out.cost == expected, (seed, part)
    # the parts never wrote the top node's answer into the memo: the whole search is still exact
    assert search.run(3, BIG).cost == bruteforce.min_errors(problem, 3)[0]


@pytest.mark.parametrize("seed", [s if s < 12 else pytest.param(s, marks=slow) for s in range(30)])
def test_tasks_give_the_optimum(seed):
    problem = _instance(1000 + seed)
    depth = 3 + seed % 2
    optimum = bruteforce.min_errors(problem, depth)[0]
    r = solve_max_accuracy_dp_tasks(problem, max_depth=depth, n_tasks=1 + seed % 4, n_jobs=1)
    assert r.status == OPTIMAL and r.objective == optimum == r.bound
    _check_tree(problem, r, depth)


def test_roots_are_refused_below_depth_three_and_out_of_range():
    problem = _instance(5)
    search = new_search(problem, Deadline(None), None)
    with pytest.raises(ValueError):
        search.run(2, BIG, roots=np.array([0]))
    with pytest.raises(ValueError):
        search.run(3, BIG, roots=np.array([search.B]))
    with pytest.raises(ValueError):
        search.run(3, BIG, roots=np.array([0]), width=2)


def test_same_answer_as_one_process_on_a_bundled_set():
    problem = Binarizer("all").problem(load_dataset("monk2"))
    one = solve_max_accuracy_dp(problem, max_depth=3)
    for n_tasks in (2, 5):
        split = solve_max_accuracy_dp_tasks(problem, max_depth=3, n_tasks=n_tasks, n_jobs=2)
        assert split.status == OPTIMAL and split.objective == one.objective
        _check_tree(problem, split, 3)
        assert len(split.stats["tasks"]) <= n_tasks
    again = solve_max_accuracy_dp_tasks(problem, max_depth=3, n_tasks=5, n_jobs=1)
    assert again.tree.to_dict() == split.tree.to_dict()  # deterministic for a given n_tasks


def test_time_limit_gives_a_feasible_tree_and_a_valid_bound():
    problem = Binarizer("all").problem(load_dataset("compas"))
    r = solve_max_accuracy_dp_tasks(problem, max_depth=6, time_limit=1.0, n_tasks=2, n_jobs=2)
    assert r.status == FEASIBLE
    assert r.runtime <= 1.0 + 1.0  # the documented tolerance of a time limit: max(1 s, 5 %)
    assert problem.min_errors <= r.bound <= r.objective
    _check_tree(problem, r, 6)
    greedy = new_search(problem, Deadline(None), None).greedy(np.arange(problem.n_distinct), 6)[0]
    assert r.objective <= greedy  # never worse than CART's tree, the tasks' common upper bound


def test_on_a_dask_local_cluster():
    distributed = pytest.importorskip("dask.distributed")
    import joblib

    problem = _instance(7)
    optimum = bruteforce.min_errors(problem, 3)[0]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        with joblib.parallel_config(backend="dask"):
            r = solve_max_accuracy_dp_tasks(problem, max_depth=3, n_tasks=3)
    assert r.status == OPTIMAL and r.objective == optimum
    _check_tree(problem, r, 3)
    assert len(r.stats["tasks"]) == 3
