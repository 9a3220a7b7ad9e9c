"""The DP / branch-and-bound engine (satdt.solvers.dp), max accuracy and the regularized objective,
against brute force (exact fractions), CP-SAT and known optima."""

from __future__ import annotations

import functools
from fractions import Fraction

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import load_dataset, prepare
from satdt.solvers.dp import solve_max_accuracy_dp, solve_regularized_dp

from conftest import ctrl_c_after, random_problem
from known_optima import known, min_depth_and_nodes, rows

slow = pytest.mark.slow


def _check(problem, res, depth):
    """Status, re-evaluation of the returned tree on the original rows, depth."""
    data = problem.data
    assert res.method == "dp" and res.objective_name == "errors"
    assert res.tree is not None
    assert res.objective == int((res.tree.predict_index(data.X) != data.y).sum())
    assert res.tree.depth() <= depth
    assert res.bound <= res.objective


# 100 seeds x 2 feature kinds x depths 1-3 (600 instances, both depth-2 solvers); seeds >= 10 slow
@pytest.mark.parametrize("seed", [s if s < 10 else pytest.param(s, marks=slow) for s in range(100)])
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


# tests/known_optima.py: the bundled datasets at depth 2 and 3 (compas at depth 3: slow)
KNOWN = [pytest.param(o.dataset, o.depth, int(o.value), marks=[slow] if o.dataset == "compas" and o.depth == 3 else [])
         for o in rows("errors", datasets=("iris", "monk1", "monk2", "monk3", "wine", "tic-tac-toe", "compas"))]


@pytest.mark.parametrize("name,depth,optimum", KNOWN)
def test_known_optima(name, depth, optimum):
    problem = Binarizer("all").problem(load_dataset(name))
    res = solve_max_accuracy_dp(problem, max_depth=depth, time_limit=60)
    _check(problem, res, depth)
    assert res.status == "OPTIMAL"
    assert res.objective == res.bound == optimum


@functools.lru_cache(maxsize=1)
def _hard_problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=3000) > 0).astype(int)
    return Binarizer("all").problem(prepare(X, y))


def test_time_limit_honoured():
    problem = _hard_problem()
    res = solve_max_accuracy_dp(problem, max_depth=4, time_limit=1.5)
    assert res.runtime <= 1.5 + 1.0   # docs/architecture.md, "Contracts": within max(1 s, 5 %)
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


# ---------------------------------------------------------------------- regularized objective

def _exact_min_regularized(problem, lam, depth) -> Fraction:
    """bruteforce.best_tree with exact Fraction costs: errors / n + lam per leaf."""
    n, lam = problem.n_rows, Fraction(lam)
    cost, _ = bruteforce.best_tree(problem, depth, lambda c: Fraction(int(c.sum() - c.max()), n) + lam,
                                   lambda c: Fraction(0))
    return cost


def _check_reg(problem, res, lam, depth) -> Fraction:
    """Re-evaluate the returned tree; check the reported figures; return its exact value."""
    data = problem.data
    assert res.method == "dp" and res.objective_name == "regularized"
    tree = res.tree
    assert tree is not None and tree.depth() <= depth
    errors = int((tree.predict_index(data.X) != data.y).sum())
    assert errors == res.stats["errors"] and tree.n_leaves == res.stats["leaves"]
    value = Fraction(errors, problem.n_rows) + Fraction(lam) * tree.n_leaves
    assert res.objective == float(value)
    assert res.bound is not None and res.bound <= res.objective
    if res.status == "OPTIMAL":
        assert res.bound == res.objective
        p, q = map(int, res.stats["lam_engine"].split("/"))
        assert q * errors + p * problem.n_rows * tree.n_leaves == res.stats["engine_objective"]
    return value


# the numpy reference with its node-local slot renumbering forced on: 50 numeric instances, depths 2-4
@pytest.mark.parametrize("seed", [s if s < 5 else pytest.param(s, marks=slow) for s in range(50)])
def test_reference_local_slots_equal_bruteforce(seed, monkeypatch):
    from satdt.solvers.dp import reference
    monkeypatch.setattr(reference, "_LOCAL_MARGIN", -10 ** 9)
    problem = random_problem(7000 + seed, n_rows=12 + seed % 14, n_features=2 + seed % 3,
                             n_classes=2 + seed % 3, binary=False)
    for depth in (2, 3, 4) if seed < 10 else (2, 3):
        ref = bruteforce.min_errors(problem, depth)[0]
        res = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=0.0, engine="reference")
        _check(problem, res, depth)
        assert res.status == "OPTIMAL" and res.objective == ref, (seed, depth)
    lam = 0.02
    ref = _exact_min_regularized(problem, lam, 3)
    res = solve_regularized_dp(problem, lam=lam, max_depth=3, pair_ops=0.0, engine="reference")
    assert res.status == "OPTIMAL" and _check_reg(problem, res, lam, 3) == ref, seed


LAMS = ((0.005, 0.05, 1 / 3), (0.02, 0.1, 0.0125))


# 60 seeds x 3 lambdas x depths 2-3 (360 instances, both depth-2 solvers at depth 2); seeds >= 10 slow
@pytest.mark.parametrize("seed", [s if s < 10 else pytest.param(s, marks=slow) for s in range(60)])
def test_regularized_equals_bruteforce(seed):
    problem = random_problem(3000 + seed, n_rows=8 + seed % 14, n_features=3 + seed % 2,
                             n_classes=2 + seed % 3, binary=seed % 2 == 0)
    for lam in LAMS[seed % 2]:
        for depth in (2, 3):
            ref = _exact_min_regularized(problem, lam, depth)
            for pair_ops in ((0.0, 1e12) if depth == 2 else (1e12,)):
                res = solve_regularized_dp(problem, lam=lam, max_depth=depth, pair_ops=pair_ops)
                assert res.status == "OPTIMAL"
                assert _check_reg(problem, res, lam, depth) == ref, (seed, lam, depth, pair_ops)


@pytest.mark.parametrize("seed", range(12))
def test_regularized_depth4_equals_bruteforce(seed):
    problem = random_problem(4000 + seed, n_rows=12 + seed % 8, n_features=3, n_classes=2 + seed % 2,
                             binary=seed % 3 == 0, consistent=seed % 2 == 0)
    for lam in (0.01, 0.04):
        res = solve_regularized_dp(problem, lam=lam, max_depth=4)
        assert res.status == "OPTIMAL"
        assert _check_reg(problem, res, lam, 4) == _exact_min_regularized(problem, lam, 4)


@pytest.mark.parametrize("seed", range(20))
def test_regularized_lambda_zero_is_max_accuracy(seed):
    problem = random_problem(5000 + seed, n_rows=10 + seed % 20, n_features=4, n_classes=2 + seed % 3,
                             binary=seed % 2 == 1)
    for depth in (0, 2, 3):
        res = solve_regularized_dp(problem, lam=0.0, max_depth=depth)
        acc = solve_max_accuracy_dp(problem, max_depth=depth)
        assert res.status == acc.status == "OPTIMAL"
        assert res.stats["errors"] == acc.objective == bruteforce.min_errors(problem, depth)[0]
        assert res.objective == acc.objective / problem.n_rows
        # one driver, the same cost (q = 1, no leaf cost): the same tree
        assert res.tree.to_dict()["root"] == acc.tree.to_dict()["root"]
        assert res.stats["lam_engine"] == "0/1" and res.stats["nodes"] == acc.stats["nodes"]


@pytest.mark.parametrize("seed", range(10))
def test_regularized_lambda_above_half_is_single_leaf(seed):
    problem = random_problem(6000 + seed, n_rows=20, n_features=4, n_classes=2 + seed % 3)
    for lam in (0.5000001, 0.75, 3.0):
        res = solve_regularized_dp(problem, lam=lam, max_depth=3)
        assert res.status == "OPTIMAL" and res.tree.n_nodes == 1
        _check_reg(problem, res, lam, 3)


@pytest.mark.parametrize("name,lam,depth", [("monk3", 0.01, 2), pytest.param("iris", 0.02, 2, marks=slow),
                                             pytest.param("monk1", 0.025, 2, marks=slow)])
def test_regularized_agrees_with_cpsat(name, lam, depth):
    from satdt.solvers.cpsat import solve_regularized
    problem = Binarizer("all").problem(load_dataset(name))
    a = solve_regularized_dp(problem, lam=lam, max_depth=depth, time_limit=30)
    b = solve_regularized(problem, lam=lam, max_depth=depth, time_limit=60)
    _check_reg(problem, a, lam, depth)
    assert a.status == b.status == "OPTIMAL"
    assert a.objective == b.objective


# GOSDT 1.0.4's regularized optima at depth <= 5 (tests/known_optima.py); tic-tac-toe slow
@pytest.mark.parametrize("row", [pytest.param(o, marks=[slow] if o.dataset == "tic-tac-toe" else [],
                                              id=f"{o.dataset}-{o.lam}") for o in rows("regularized", depths=(5,))])
def test_regularized_gosdt_optima(row):
    problem = Binarizer("all").problem(load_dataset(row.dataset))
    res = solve_regularized_dp(problem, lam=row.lam, max_depth=5, time_limit=120)
    assert res.status == "OPTIMAL"
    assert _check_reg(problem, res, row.lam, 5) == row.exact
    assert (res.stats["errors"], res.stats["leaves"]) == (row.errors, row.leaves)
    assert round(res.objective, 5) == round(row.value, 5)


def test_regularized_time_limit_honoured():
    problem = _hard_problem()
    res = solve_regularized_dp(problem, lam=0.001, max_depth=5, time_limit=1.5)
    assert res.runtime <= 1.5 + 1.0
    assert res.status == "FEASIBLE"
    _check_reg(problem, res, 0.001, 5)
    assert res.bound < res.objective


def test_regularized_bad_parameters():
    problem = random_problem(0)
    for bad in (-0.1, float("nan"), float("inf"), "0.1", None):
        with pytest.raises(ValueError, match="lam"):
            solve_regularized_dp(problem, lam=bad, max_depth=2)
    for bad in (-1, 1.5, None):
        with pytest.raises(ValueError, match="max_depth"):
            solve_regularized_dp(problem, lam=0.01, max_depth=bad)
    with pytest.raises(ValueError, match="time_limit"):
        solve_regularized_dp(problem, lam=0.01, max_depth=2, time_limit=0)


# ------------------------------------------------------------------ DT_depth / DT_size by DP
from satdt.result import FEASIBLE, INFEASIBLE, OPTIMAL, UNKNOWN  # noqa: E402
from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp  # noqa: E402
from satdt.solvers.sat import solve_min_depth, solve_min_size  # noqa: E402
# the consistent fallback (CART) imports scikit-learn on first use, inside the time limit (up to
# 12 s on a loaded machine): loaded here so that the time-limit test measures the search
import sklearn.tree  # noqa: E402,F401


def _consistent_instance(seed: int):
    """The small consistent problems of tests/test_sat.py (same generator, other seeds)."""
    rng = np.random.default_rng(20_000 + seed)
    return random_problem(seed, n_rows=int(rng.integers(6, 15)), n_features=int(rng.integers(3, 5)),
                          n_classes=int(rng.integers(2, 4)), consistent=True, binary=bool(seed % 2),
                          max_value=3)


def _check_consistent(problem, res, name):
    data = problem.data
    assert res.tree is not None and res.objective_name == name
    assert (res.tree.predict_index(data.X) == data.y).all()
    assert res.objective == (res.tree.depth() if name == "depth" else res.tree.n_nodes)


@pytest.mark.parametrize("algorithm", ["search", "boxes"])
@pytest.mark.parametrize("block", [0] + [pytest.param(b, marks=slow) for b in range(1, 12)])
def test_min_depth_and_size_dp_equal_bruteforce(block, algorithm):
    """300 random consistent instances: DT_depth and DT_size (at K = min depth and K + 1) by DP,
    with either algorithm, equal the brute-force minimum (block 0 in the fast subset)."""
    for seed in range(block * 25, block * 25 + 25):
        problem = _consistent_instance(seed)
        depth = bruteforce.min_depth(problem, limit=6)
        r = solve_min_depth_dp(problem, algorithm=algorithm)
        assert r.status == OPTIMAL and r.objective == depth == r.bound, seed
        assert r.stats["algorithm"] == algorithm
        _check_consistent(problem, r, "depth")
        s = solve_min_size_dp(problem, algorithm=algorithm)
        assert s.status == OPTIMAL and s.objective == bruteforce.min_nodes(problem, depth)[0] == s.bound, seed
        _check_consistent(problem, s, "nodes")
        if seed % 3 == 0:  # a smaller tree may need more depth
            s1 = solve_min_size_dp(problem, max_depth=depth + 1, algorithm=algorithm)
            assert s1.status == OPTIMAL and s1.objective == bruteforce.min_nodes(problem, depth + 1)[0], seed
            assert s1.tree.depth() <= depth + 1


@pytest.mark.parametrize("seed", [s if s < 10 else pytest.param(s, marks=slow) for s in range(40)])
def test_min_depth_and_size_dp_equal_sat(seed):
    """The DP and the SAT encodings answer the same two questions identically."""
    problem = _consistent_instance(1000 + seed)
    algorithm = ("search", "boxes")[seed % 2]
    d, s = solve_min_depth_dp(problem, algorithm=algorithm), solve_min_depth(problem)
    assert d.status == s.status == OPTIMAL and d.objective == s.objective
    K = d.objective + seed // 2 % 2
    a, b = solve_min_size_dp(problem, max_depth=K, algorithm=algorithm), solve_min_size(problem, max_depth=K)
    assert a.status == b.status == OPTIMAL and a.objective == b.objective


@pytest.mark.parametrize("name", ["iris", "monk1", "monk3", "mouse", "zoo", "lung-cancer"])
def test_min_depth_and_size_dp_known_optima(name):
    """DT_depth / DT_size optima of the InferDT datasets (tests/known_optima.py), by the search
    (the boxes: tests/test_boxdp.py)."""
    depth, nodes = min_depth_and_nodes(name)
    problem = Binarizer("all").problem(load_dataset(name))
    r = solve_min_depth_dp(problem, algorithm="search")
    assert r.status == OPTIMAL and r.objective == depth
    s = solve_min_size_dp(problem, algorithm="search")
    assert s.status == OPTIMAL and s.objective == nodes and s.tree.depth() <= depth
    _check_consistent(problem, s, "nodes")


@pytest.mark.parametrize("name, algorithm", [("iris", "search"), ("monk3", "boxes")])
def test_min_depth_and_size_dp_infeasible_below_minimum(name, algorithm):
    problem = Binarizer("all").problem(load_dataset(name))
    K = 3 if name == "iris" else 5
    assert solve_min_depth_dp(problem, max_depth=K, algorithm=algorithm).status == INFEASIBLE
    r = solve_min_size_dp(problem, max_depth=K, algorithm=algorithm)
    assert r.status == INFEASIBLE and r.tree is None and r.stats["algorithm"] == algorithm


def test_min_depth_and_size_dp_time_limit_keeps_a_consistent_tree():
    """bmi by the search: the minimum depth (7) takes the search about 0.8 s, the minimum size
    (115 nodes) over a minute; 0.1 s is not enough. A consistent CART tree comes back as FEASIBLE
    with a proven lower bound, within a second of the limit."""
    problem = Binarizer("all").problem(load_dataset("bmi"))
    for solve in (solve_min_depth_dp, solve_min_size_dp):
        r = solve(problem, time_limit=0.1, algorithm="search")
        assert r.runtime < 1.1
        assert r.status == FEASIBLE
        _check_consistent(problem, r, r.objective_name)
        assert r.bound < r.objective


def test_min_depth_dp_rejects_contradictory_rows():
    from satdt import ConflictError
    X = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    problem = Binarizer("all").problem(prepare(X, np.array([0, 1, 0])))
    for algorithm in ("search", "boxes"):
        with pytest.raises(ConflictError):
            solve_min_depth_dp(problem, algorithm=algorithm)
        with pytest.raises(ConflictError):
            solve_min_size_dp(problem, algorithm=algorithm)


def test_upper_bound_without_optimizing_above_it():
    """DT_depth's yes/no question: no 0-error tree at depth 2 on iris (optimum 6 errors)."""
    problem = Binarizer("all").problem(load_dataset("iris"))
    optimum = int(known("errors", "iris", 2).value)
    r = solve_max_accuracy_dp(problem, max_depth=2, upper_bound=0, optimize_above_bound=False)
    assert 1 <= r.bound <= optimum <= r.objective  # proven: no tree with 0 errors
    assert r.status == (OPTIMAL if r.bound == r.objective else FEASIBLE)
    full = solve_max_accuracy_dp(problem, max_depth=2, upper_bound=0)
    assert full.status == OPTIMAL and full.objective == optimum


# ----------------------------------------------------------------- compiled core vs numpy reference
def _weighted_problem(seed: int):
    """Numeric rows with many duplicates (merged into weights up to ~40) and 2-5 classes."""
    rng = np.random.default_rng(seed)
    n, f, C = 60 + seed % 80, 2 + seed % 3, 2 + seed % 4
    X = rng.integers(0, 3 + seed % 5, size=(n, f)).astype(float)
    X = np.repeat(X, rng.integers(1, 8, size=n), axis=0)
    y = rng.integers(0, C, size=X.shape[0])
    y[:C] = np.arange(C)
    return Binarizer("all").problem(prepare(X, y))


# 150 instances (multi-class, weighted rows, ties), depths 1-4, every depth-two path of the core
# (the first 30 in the fast subset)
@pytest.mark.parametrize("seed", [s if s < 30 else pytest.param(s, marks=pytest.mark.slow) for s in range(150)])
def test_core_equals_reference(seed):
    problem = _weighted_problem(seed) if seed % 3 == 0 else random_problem(
        5000 + seed, n_rows=15 + seed % 40, n_features=2 + seed % 4, n_classes=2 + seed % 4,
        binary=seed % 3 == 1, max_value=3 + seed % 6)
    assert problem.weights.max() > 1 or seed % 3 != 0
    for depth in (1, 2, 3) if seed % 5 else (1, 2, 3, 4):
        ref = solve_max_accuracy_dp(problem, max_depth=depth, engine="reference")
        for pair_ops in (None, 0.0, 1e15):  # the core's own rule / root search / pair solver
            res = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=pair_ops)
            _check(problem, res, depth)
            assert res.stats["engine"] == "dp-core"
            assert res.status == ref.status == "OPTIMAL"
            assert res.objective == ref.objective, (seed, depth, pair_ops)
    lam = (0.004, 0.02, 0.07)[seed % 3]
    ref = solve_regularized_dp(problem, lam=lam, max_depth=3, engine="reference")
    for pair_ops in (None, 0.0, 1e15):
        res = solve_regularized_dp(problem, lam=lam, max_depth=3, pair_ops=pair_ops)
        assert res.status == ref.status == "OPTIMAL"
        assert res.objective == ref.objective and res.stats["engine_objective"] == ref.stats["engine_objective"]


# the incumbent: the core's Gini-greedy tree equals the numpy statement's (SearchBase.greedy)
# node for node, on multi-class, weighted and tied instances, with and without a leaf cost
@pytest.mark.parametrize("seed", range(60))
def test_core_greedy_equals_numpy_greedy(seed):
    from satdt.deadline import Deadline
    from satdt.solvers.dp.search import CoreSearch, SearchBase
    from satdt.tree import Tree

    problem = _weighted_problem(seed) if seed % 3 == 0 else random_problem(
        7000 + seed, n_rows=15 + seed % 40, n_features=2 + seed % 4, n_classes=2 + seed % 4,
        binary=seed % 3 == 1, max_value=3 + seed % 6)
    rows = np.arange(problem.n_distinct)
    for leaf_cost in (0, 1 + seed % 7):
        search = CoreSearch(problem, Deadline(None), -1.0, 1, leaf_cost)
        for depth in (1, 2, 3, 6):
            cost, node = search.greedy(rows, depth)
            ref_cost, ref_node = SearchBase.greedy(search, rows, depth)
            tree, ref_tree = (Tree(root=n, classes=problem.classes) for n in (node, ref_node))
            assert tree.to_dict() == ref_tree.to_dict(), (seed, leaf_cost, depth)
            assert cost == ref_cost == search.binary_cost(tree)


def test_core_greedy_on_a_subset_and_out_of_time():
    """A row subset takes the numpy statement; an expired deadline raises SearchTimeout."""
    from satdt.deadline import Deadline
    from satdt.solvers.dp.search import CoreSearch, SearchBase, SearchTimeout

    problem = Binarizer("all").problem(load_dataset("monk2"))
    search = CoreSearch(problem, Deadline(None), -1.0)
    subset = np.arange(0, problem.n_distinct, 2)
    assert search.greedy(subset, 3)[0] == SearchBase.greedy(search, subset, 3)[0]
    expired = CoreSearch(problem, Deadline(1e-9), -1.0)
    with pytest.raises(SearchTimeout):
        expired.greedy(np.arange(problem.n_distinct), 3)


# the core is built without -fwrapv (setup.py): it refuses what could overflow its int64 sums
# (types.h, MAX_COST): class counts of total >= 2**63, costs q * weight + leaf_cost * leaves above
# 2**53 at the depth asked, q < 1; an upper bound outside [0, 2**62] gives the answer of the nearest
def test_core_refuses_counts_and_costs_that_could_overflow():
    from satdt.solvers.dp import _core

    def core(counts, q=1, leaf_cost=0):
        return _core.Search(np.array([[0], [1]], np.int32), np.array([0], np.int32), np.array([1], np.int32),
                            np.array(counts, np.int64), q, leaf_cost, -1.0)

    with pytest.raises(ValueError, match="total exceeds"):
        core([[2 ** 62, 0], [2 ** 62, 1]])
    with pytest.raises(ValueError, match="q must be"):
        core([[3, 1], [1, 3]], q=0)
    big = core([[2 ** 52, 1], [1, 2 ** 52]])  # total weight 2**53 + 2
    for call in (lambda: big.solve(1, 2 ** 62, 1e9), lambda: big.greedy(1, 1e9)):
        with pytest.raises(ValueError, match="exceeds 2\\^53"):
            call()
    fits = core([[2 ** 51, 1], [1, 2 ** 51]])  # total 2**52 + 2: the stump on x0 errs twice
    assert fits.solve(1, 2 ** 62, 1e9)["value"] == 2 == fits.greedy(1, 1e9)[0]
    for ub in (-2 ** 63, -1, 0):  # a fresh memo; no tree costs < 0: the bound 2 (the leaf-conflict bound)
        assert core([[2 ** 51, 1], [1, 2 ** 51]]).solve(1, ub, 1e9) == {"finished": True, "value": 2, "tree": None}
    assert core([[2 ** 51, 1], [1, 2 ** 51]]).solve(1, 2 ** 63 - 1, 1e9)["value"] == 2
    leafy = core([[3, 1], [1, 3]], leaf_cost=2 ** 52)  # two leaves cost 2**53 + 2
    with pytest.raises(ValueError, match="exceeds 2\\^53"):
        leafy.solve(1, 2 ** 62, 1e9)
    assert core([[3, 1], [1, 3]], leaf_cost=2 ** 51).solve(1, 2 ** 62, 1e9)["value"] == 2 ** 51 + 4  # the leaf

def test_core_time_limit_keeps_best_tree_and_valid_bound():
    """A search cut by its limit: the tree is re-evaluated, the bound is below the optimum."""
    data = load_dataset("tic-tac-toe")
    problem = Binarizer("all").problem(data)
    optimum = solve_max_accuracy_dp(problem, max_depth=4).objective
    res = solve_max_accuracy_dp(problem, max_depth=4, time_limit=0.02)
    assert res.runtime < 1.0
    _check(problem, res, 4)
    assert res.bound <= optimum <= res.objective
    assert res.status == ("OPTIMAL" if res.bound == res.objective else "FEASIBLE")


def test_engine_name_is_checked():
    problem = random_problem(1)
    with pytest.raises(ValueError, match="engine must be one of 'core', 'reference'"):
        solve_max_accuracy_dp(problem, max_depth=2, engine="numba")


# ---------------------------------------------------------------- progress and interruption
def _events_are_consistent(events, res, kinds_seen):
    assert [e.kind for e in events][0] == "start" and events[-1].kind == "done"
    assert {e.kind for e in events} >= kinds_seen
    times = [e.elapsed for e in events]
    assert times == sorted(times)
    incumbents = [e.incumbent for e in events if e.incumbent is not None]
    assert incumbents == sorted(incumbents, reverse=True)  # minimisation: never worse
    assert events[-1].incumbent == pytest.approx(res.objective)
    assert events[-1].bound == pytest.approx(res.bound)
    assert all(e.bound is None or e.incumbent is None or e.bound <= e.incumbent + 1e-12 for e in events)


@pytest.mark.parametrize("lam", [None, 0.005])
def test_progress_events_of_the_search(lam):
    from satdt.solvers.dp import solve_dp

    problem = Binarizer("all").problem(load_dataset("compas"))
    events = []
    res = solve_dp(problem, max_depth=3, lam=lam, progress=events.append)
    assert res.status == "OPTIMAL"
    _events_are_consistent(events, res, {"start", "incumbent", "done"})
    assert all(e.engine == "dp" for e in events)


@pytest.mark.parametrize("algorithm", ["search", "boxes"])
def test_progress_events_of_min_depth_and_size(algorithm):
    from satdt.solvers.dp import solve_min_depth_dp, solve_min_size_dp

    problem = Binarizer("all").problem(load_dataset("monk1"))
    for solve, engine in [(solve_min_depth_dp, "dp-depth"), (solve_min_size_dp, "dp-size")]:
        events = []
        res = solve(problem, algorithm=algorithm, progress=events.append)
        assert res.status == "OPTIMAL"
        _events_are_consistent(events, res, {"start", "done"})
        assert {e.engine for e in events} == {engine}
    depth_bounds = [e.bound for e in events if e.bound is not None]
    assert depth_bounds == sorted(depth_bounds)


def test_progress_callback_error_stops_the_compiled_search():
    """An exception raised by the callback inside the compiled search reaches the caller."""
    from satdt.solvers.dp import solve_dp

    class Stop(Exception):
        pass

    def stop_in_search(event):
        if event.kind == "incumbent" and event.nodes is not None:  # reported from inside the core
            raise Stop

    problem = Binarizer("all").problem(load_dataset("compas"))
    with pytest.raises(Stop):
        solve_dp(problem, max_depth=4, progress=stop_in_search, time_limit=60)


def test_ctrl_c_interrupts_the_compiled_search():
    """The core polls Python's signals: a SIGINT stops a long search within a fraction of a second."""
    import time

    from satdt.solvers.dp import solve_dp

    problem = Binarizer("all").problem(load_dataset("compas"))
    t0 = time.perf_counter()
    with ctrl_c_after(0.3):
        solve_dp(problem, max_depth=5, time_limit=60)  # ~20 s to the proof
    assert time.perf_counter() - t0 < 5


@pytest.mark.parametrize("seed", [s if s < 12 else pytest.param(s, marks=slow) for s in range(60)])
def test_core_depth_two_scan_equals_reference(seed):
    """Continuous features (long chains: the core's depth-two scan, with its block sums for two
    classes), merged duplicate rows with other labels, two and three classes."""
    rng = np.random.default_rng(7000 + seed)
    n, f, C = int(rng.integers(20, 70)), int(rng.integers(1, 4)), 2 if seed % 3 else 3
    X = rng.normal(size=(n, f)).round(1 + seed % 2)
    if seed % 4 == 0:
        X = np.vstack([X, X[: n // 3]])
    y = rng.integers(0, C, size=len(X))
    y[:C] = np.arange(C)
    problem = Binarizer("all").problem(prepare(X, y))
    scans = 0
    for depth in (2, 3):
        ref = solve_max_accuracy_dp(problem, max_depth=depth, engine="reference")
        res = solve_max_accuracy_dp(problem, max_depth=depth)
        _check(problem, res, depth)
        scans += res.stats["depth2_scans"]
        assert res.status == ref.status == "OPTIMAL" and res.objective == ref.objective
    ref = solve_regularized_dp(problem, lam=0.01, max_depth=3, engine="reference")
    res = solve_regularized_dp(problem, lam=0.01, max_depth=3)
    assert res.objective == ref.objective and res.stats["engine_objective"] == ref.stats["engine_objective"]
    assert scans + res.stats["depth2_scans"] > 0  # the instance reached the scan


@pytest.mark.parametrize("name", ["iris", "compas", "car"])
def test_problem_from_codes_and_from_matrix_give_the_same_optimum(name):
    """The chains read from the features' codes (no binary matrix) and the chains checked
    against the binary matrix give the same search and the same optimum."""
    from satdt.binarize import BinaryProblem

    data = load_dataset(name)
    b = Binarizer("all").fit(data)
    lazy = b.problem(data, fit=False)
    dense = BinaryProblem.build(b.transform(data.X), data, list(b.tests_), "all")
    assert dense.codes is None and lazy.codes is not None
    for depth in (2, 3):
        a = solve_max_accuracy_dp(lazy, max_depth=depth)
        c = solve_max_accuracy_dp(dense, max_depth=depth)
        assert a.status == c.status == "OPTIMAL" and a.objective == c.objective
        assert a.stats["nodes"] == c.stats["nodes"]
    assert not lazy.has_matrix  # the DP never built it
