"""The box DP (satdt.solvers.dp.boxes) for DT_depth / DT_size: every level table against brute
force, against the branch-and-bound search, the known optima, limits and errors."""

from __future__ import annotations

import numpy as np
import pytest
# the consistent fallback (CART) imports scikit-learn on first use, inside the time limit: up to
# 12 s on a loaded machine; loaded here so that the time-limit test measures the engine
import sklearn.tree  # noqa: F401

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.result import FEASIBLE, INFEASIBLE, OPTIMAL
from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp
from satdt.solvers.dp.boxes import BoxLattice, box_count, box_work
from satdt.solvers.dp.chains import build_chains
from satdt.tree import Tree

from conftest import random_problem
from known_optima import min_depth_and_nodes


def _lattice(problem):
    return BoxLattice(build_chains(problem), problem.counts, lambda: None)


def _consistent(problem, tree):
    return (tree.predict_index(problem.data.X) == problem.data.y).all()


def test_box_count_and_work_by_hand():
    """One feature with 3 values (3 ranks, 6 intervals) and one binary feature (2 ranks, 3
    intervals): 18 boxes; a level costs 18/6 * (27 - 3)/6 + 18/3 * (8 - 2)/6 = 18 cell operations."""
    X = np.array([[0, 0], [1, 1], [2, 0], [2, 1]], dtype=float)
    problem = Binarizer("all").problem(prepare(X, np.array([0, 1, 0, 1])))
    chains = build_chains(problem)
    assert box_count(chains) == 18 and box_work(chains) == 18
    lattice = _lattice(problem)
    assert lattice.shape == (6, 3) and lattice.levels[0].shape == (6, 3)
    # the label is the binary feature: one split, two leaves
    assert lattice.value(0) is None and lattice.value(1) == 2


@pytest.mark.parametrize("block", [0] + [pytest.param(b, marks=pytest.mark.slow) for b in range(1, 8)])
def test_every_level_equals_bruteforce(block):
    """200 random consistent instances (block 0 in the fast subset) with small integer features (chains of 2-4 thresholds):
    the fewest leaves at every depth 0..4 equal the brute-force DT_size, and the tree read back
    has that many leaves, depth <= d and no error."""
    for seed in range(block * 25, block * 25 + 25):
        rng = np.random.default_rng(50_000 + seed)
        problem = random_problem(70_000 + seed, n_rows=int(rng.integers(6, 16)),
                                 n_features=int(rng.integers(2, 4)), n_classes=int(rng.integers(2, 4)),
                                 consistent=True, binary=False, max_value=int(rng.integers(3, 6)))
        lattice = _lattice(problem)
        for d in range(5):
            nodes, _ = bruteforce.min_nodes(problem, d)
            leaves = lattice.value(d)
            if nodes == float("inf"):
                assert leaves is None, (seed, d)
                continue
            assert 2 * leaves - 1 == nodes, (seed, d)
            tree = lattice.tree(d)
            t = Tree(root=tree, classes=problem.classes)
            assert t.n_leaves == leaves and t.depth() <= d, (seed, d)
            assert (t.predict_index(problem.X.astype(float)) == np.argmax(problem.counts, axis=1)).all()


@pytest.mark.parametrize("seed", [s if s < 6 else pytest.param(s, marks=pytest.mark.slow) for s in range(20)])
def test_boxes_equal_search(seed):
    """Larger instances than brute force can take (20-40 rows, 3 features with up to 7 values):
    both DP algorithms give the same minimum depth and the same DT_size at K and K + 1."""
    rng = np.random.default_rng(90_000 + seed)
    problem = random_problem(91_000 + seed, n_rows=int(rng.integers(20, 41)), n_features=3,
                             n_classes=int(rng.integers(2, 4)), consistent=True, binary=False, max_value=7)
    a = solve_min_depth_dp(problem, algorithm="boxes")
    b = solve_min_depth_dp(problem, algorithm="search")
    assert a.status == b.status == OPTIMAL and a.objective == b.objective
    assert a.stats["algorithm"] == "boxes" and b.stats["algorithm"] == "search"
    for K in (a.objective, a.objective + 1):
        s = solve_min_size_dp(problem, max_depth=K, algorithm="boxes")
        t = solve_min_size_dp(problem, max_depth=K, algorithm="search")
        assert s.status == t.status == OPTIMAL and s.objective == t.objective, (seed, K)
        assert _consistent(problem, s.tree) and s.tree.depth() <= K and s.tree.n_nodes == s.objective


@pytest.mark.parametrize("name", ["monk1", "monk2", "monk3", "car", "balance-scale",
                                  pytest.param("bmi", marks=pytest.mark.slow)])
def test_known_optima(name):
    """DT_depth / DT_size of tests/known_optima.py (car, balance-scale and BMI DT_size: regression
    values, first proven by the DP engines)."""
    depth, nodes = min_depth_and_nodes(name)
    problem = Binarizer("all").problem(load_dataset(name))
    s = solve_min_size_dp(problem)  # "auto" takes the boxes on these data
    assert s.stats["algorithm"] == "boxes"
    assert s.status == OPTIMAL and s.objective == nodes == s.bound and s.tree.depth() <= depth
    assert s.stats["size_depth"] == depth and s.stats["leaves_by_depth"][depth] == (nodes + 1) // 2
    assert _consistent(problem, s.tree)
    if name != "bmi":  # the same tables again: covered by the size call above
        r = solve_min_depth_dp(problem)
        assert r.status == OPTIMAL and r.objective == depth and _consistent(problem, r.tree)
        assert r.stats["leaves_by_depth"][depth - 1] is None


def test_deeper_limit_and_fixpoint():
    """A depth limit far above the minimum stops at the first level equal to the one before
    (all later levels are equal) and answers DT_size for that limit; a limit below the minimum
    is INFEASIBLE."""
    problem = Binarizer("all").problem(load_dataset("monk1"))
    s = solve_min_size_dp(problem, max_depth=20, algorithm="boxes")
    assert s.status == OPTIMAL and s.tree.depth() <= 20
    # monk1's tables stop changing at depth 5: no deeper tree is smaller (the search agrees at 6)
    assert s.objective == 15 == solve_min_size_dp(problem, max_depth=6, algorithm="search").objective
    assert len(s.stats["leaves_by_depth"]) < 21
    lattice = _lattice(problem)
    lattice.value(20)
    assert lattice.fixed and lattice.depth_done() < 20
    assert lattice.value(20) == lattice.value(lattice.depth_done())
    assert solve_min_size_dp(problem, max_depth=4, algorithm="boxes").status == INFEASIBLE
    assert solve_min_depth_dp(problem, max_depth=4, algorithm="boxes").status == INFEASIBLE


def test_time_limit_returns_a_consistent_tree():
    """BMI's tables take seconds per level: 0.5 s gives the consistent CART tree, FEASIBLE,
    within a second of the limit, with a bound not above the optimum (depth 7, 115 nodes)."""
    problem = Binarizer("all").problem(load_dataset("bmi"))
    for solve, optimum in zip((solve_min_depth_dp, solve_min_size_dp), min_depth_and_nodes("bmi")):
        r = solve(problem, time_limit=0.5, algorithm="boxes")
        assert r.runtime <= 0.5 + 1.0   # docs/architecture.md, "Contracts": within max(1 s, 5 %)
        assert r.status == FEASIBLE and _consistent(problem, r.tree) and r.bound <= optimum <= r.objective
    # below the minimum depth of 6 classes (3): INFEASIBLE at once, no table built
    r = solve_min_depth_dp(problem, max_depth=2, time_limit=0.05, algorithm="boxes")
    assert r.status == INFEASIBLE and not r.stats.get("leaves_by_depth")


def test_algorithm_errors_and_auto_choice():
    problem = Binarizer("all").problem(load_dataset("wine"))
    with pytest.raises(ValueError, match="algorithm must be one of"):
        solve_min_size_dp(problem, algorithm="box")
    with pytest.raises(ValueError, match="boxes"):
        solve_min_depth_dp(problem, algorithm="boxes")
    r = solve_min_depth_dp(problem)  # 1.5e47 boxes: auto takes the search
    assert r.stats["algorithm"] == "search" and r.status == OPTIMAL
    assert r.objective == min_depth_and_nodes("wine")[0]



@pytest.mark.parametrize("n_classes", [9, 17])
def test_many_classes_equal_search(n_classes):
    """Class masks wider than 8 bits (uint16, uint32): same answers as the search."""
    problem = random_problem(4242 + n_classes, n_rows=4 * n_classes + 10, n_features=2, n_classes=n_classes,
                             consistent=True, binary=False, max_value=8)
    for K in (None, 6):
        a = solve_min_size_dp(problem, max_depth=K, algorithm="boxes")
        b = solve_min_size_dp(problem, max_depth=K, algorithm="search")
        assert a.status == b.status == OPTIMAL and a.objective == b.objective
        assert _consistent(problem, a.tree)


def test_no_columns_and_one_class():
    """No binary column: one box holding every row (a depth-0 leaf); one class: a leaf, and the
    algorithm name is still checked."""
    problem = Binarizer("all").problem(prepare(np.zeros((5, 2)), np.zeros(5, int), require_two_classes=False))
    r = solve_min_depth_dp(problem, algorithm="boxes")
    assert r.status == OPTIMAL and r.objective == 0 and r.stats["algorithm"] == "boxes"
    s = solve_min_size_dp(problem, algorithm="boxes")
    assert s.status == OPTIMAL and s.objective == 1
    with pytest.raises(ValueError, match="algorithm must be one of"):
        solve_min_size_dp(problem, algorithm="bogus")


def test_leaf_counts_above_uint16_range_of_the_old_marker():
    """Parity of 12 bits: the only consistent tree is the full one (4096 leaves); the tables'
    "no tree" marker is above every real count (one leaf per distinct row at most)."""
    import itertools
    X = np.array(list(itertools.product([0, 1], repeat=12)), dtype=float)
    problem = Binarizer("all").problem(prepare(X, X.sum(axis=1).astype(int) % 2))
    lattice = _lattice(problem)
    assert lattice.inf == 4097 and lattice.levels[0].dtype == np.uint16
    assert lattice.value(11) is None and lattice.value(12) == 4096


def test_box_dp_with_a_single_binary_column():
    """Found by tests/test_fuzz.py (issue 22): one chain of rank 2 made the level's target a
    numpy scalar ("return arrays must be of ArrayType")."""
    import numpy as np

    from satdt.binarize import Binarizer
    from satdt.data import prepare
    from satdt.solvers.dp import solve_min_size_dp

    problem = Binarizer("all").problem(prepare(np.array([[1.0], [0.0]]), np.array([0, 1])))
    result = solve_min_size_dp(problem, max_depth=3, algorithm="boxes")
    assert result.status == "OPTIMAL" and result.objective == 3
