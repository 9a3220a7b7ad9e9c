"""BinOCT and OCT (OR-tools MIP) against the brute-force enumerator and on their contracts."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import load_dataset
from satdt.encodings.mip_binoct import (build_binoct, feature_groups, threshold_bits,
                                        threshold_from_bits, threshold_tree)
from satdt.encodings.mip_oct import baseline_errors, build_oct
from satdt.solvers.mip import BACKENDS, solve_binoct, solve_oct
from satdt.warmstart import cart_binary_tree

from conftest import random_problem
from known_optima import known_errors


def _instance(seed: int):
    """Tiny random problem; numeric features on odd seeds (several thresholds per feature)."""
    rng = np.random.default_rng(10_000 + seed)
    return random_problem(seed, n_rows=int(rng.integers(6, 14)), n_features=int(rng.integers(2, 4)),
                          n_classes=2 + seed % 3 // 2, binary=seed % 2 == 0, max_value=4)


def _check(problem, result, depth: int) -> None:
    """Every returned tree: re-evaluated errors equal the objective, depth within the limit."""
    tree = result.tree
    assert tree is not None
    data = problem.data
    assert int((tree.predict_index(data.X) != data.y).sum()) == result.objective
    assert tree.depth() <= depth
    assert result.objective_name == "errors"


# ------------------------------------------------------------------ cross-check, 300 instances
@pytest.mark.parametrize("chunk", [0] + [pytest.param(c, marks=pytest.mark.slow) for c in range(1, 30)])
def test_agree_with_bruteforce(chunk):
    """BinOCT and OCT(alpha=0, N_min=1) give the brute-force minimum errors, proven (10 seeds each)."""
    for seed in range(chunk * 10, chunk * 10 + 10):
        problem = _instance(seed)
        depth = 1 + seed % 3
        best, _ = bruteforce.min_errors(problem, depth)
        for solve in (solve_binoct, solve_oct):
            res = solve(problem, max_depth=depth, warm_start=seed % 4 != 0)
            assert res.status == "OPTIMAL", (seed, solve.__name__, res.status)
            assert res.objective == best == res.bound, (seed, solve.__name__, res.objective, best)
            _check(problem, res, depth)


BACKEND_INTERFACES = [("scip", "mathopt"), ("scip", "pywraplp"), ("highs", "mathopt"),
                      ("highs", "pywraplp"), ("cbc", "pywraplp"), ("cpsat", "pywraplp")]


def test_every_backend_is_tested():
    """A backend added to BACKENDS without a row above is not silently untested."""
    assert set(BACKENDS) == {b for b, _ in BACKEND_INTERFACES}


@pytest.mark.parametrize("backend,interface", BACKEND_INTERFACES)
def test_every_backend(backend, interface):
    for seed in range(2):
        problem = _instance(seed + 7)
        depth = 1 + seed % 2
        best, _ = bruteforce.min_errors(problem, depth)
        for solve in (solve_binoct, solve_oct):
            res = solve(problem, max_depth=depth, backend=backend, interface=interface)
            assert res.status == "OPTIMAL" and res.objective == best, (backend, interface, seed)
            assert res.stats["interface"] == interface
            _check(problem, res, depth)


@pytest.mark.slow
def test_consistent_data_at_min_depth():
    """Where the data fits a tree of depth k: 0 errors at k, more than 0 at k-1."""
    seen = 0
    for seed in range(40):
        problem = random_problem(500 + seed, n_rows=10, n_features=3, consistent=True,
                                 binary=seed % 2 == 0)
        k = bruteforce.min_depth(problem, limit=3)
        if k is None or k < 1:
            continue
        seen += 1
        for solve in (solve_binoct, solve_oct):
            res = solve(problem, max_depth=k)
            assert res.status == "OPTIMAL" and res.objective == 0
            if k >= 2:
                res = solve(problem, max_depth=k - 1)
                assert res.status == "OPTIMAL" and res.objective > 0
    assert seen >= 10


# ------------------------------------------------------------------ OCT specifics
def test_oct_large_alpha_single_leaf():
    for seed in range(10):
        problem = _instance(seed)
        res = solve_oct(problem, max_depth=2, alpha=10.0)
        assert res.status == "OPTIMAL"
        assert res.tree.n_leaves == 1
        assert res.objective == baseline_errors(problem)
        assert res.stats["oct_objective"] == pytest.approx(baseline_errors(problem) / max(1, baseline_errors(problem)))


def test_oct_alpha_tradeoff_matches_bruteforce():
    """errors / L_hat + alpha * splits equals the brute-force optimum of that objective."""
    for seed in range(12):
        problem = _instance(seed)
        L_hat = max(1, baseline_errors(problem))
        alpha = 0.15
        cost, _ = bruteforce.best_tree(problem, 2, lambda c: float(c.sum() - c.max()) / L_hat,
                                       lambda c: alpha)
        res = solve_oct(problem, max_depth=2, alpha=alpha)
        assert res.status == "OPTIMAL"
        assert res.stats["oct_objective"] == pytest.approx(cost)
        _check(problem, res, 2)


def test_oct_min_leaf():
    """OCT with N_min: the fewest errors over trees whose every leaf holds >= N_min rows (brute
    force with an infinite cost on smaller leaves; splits with an empty side are not trees)."""
    n_min = 3
    for seed in range(10):
        problem = _instance(seed)
        res = solve_oct(problem, max_depth=2, min_leaf=n_min)
        assert res.status == "OPTIMAL"
        sizes = [leaf.counts.sum() for leaf in res.tree.root.walk() if leaf.is_leaf]
        assert min(sizes) >= n_min
        best, _ = bruteforce.best_tree(problem, 2, lambda c: float(c.sum() - c.max()) if c.sum() >= n_min
                                       else float("inf"))
        assert res.objective == best, seed
        _check(problem, res, 2)


# ------------------------------------------------------------------ encodings
def test_threshold_search_tree_roundtrip():
    for K in range(1, 20):
        n_bits = int(np.ceil(np.log2(K))) if K > 1 else 0
        assert len(threshold_tree(K)) == K - 1
        for k in range(K):
            assert threshold_from_bits(K, threshold_bits(K, k, n_bits)) == k


def test_groups_and_hints_feasible():
    problem = Binarizer("all").problem(load_dataset("iris"))
    groups = feature_groups(problem)
    assert len(groups) == 4 and sum(len(g) for g in groups) == problem.n_binary
    for g in groups:
        thr = [problem.tests[j].threshold for j in g]
        assert thr == sorted(thr) and len({problem.tests[j].feature for j in g}) == 1
    for depth in (1, 2):
        cart = cart_binary_tree(problem, depth)
        bm = build_binoct(problem, depth)
        x = bm.hint(problem, cart)
        assert bm.mip.check(x)
        assert x[bm.e].sum() == problem.errors(cart)
        om = build_oct(problem, depth)
        y = om.hint(problem, cart)
        assert om.mip.check(y)
        assert problem.errors(bm.decode(x, problem.classes)) == problem.errors(cart)
        assert problem.errors(om.decode(y, problem.classes)) == problem.errors(cart)


# ------------------------------------------------------------------ time limits, bad parameters
@pytest.mark.parametrize("solve", [solve_binoct, solve_oct])
def test_time_limit(solve):
    problem = Binarizer("all").problem(load_dataset("tic-tac-toe"))
    res = solve(problem, max_depth=3, time_limit=2.0)
    assert res.runtime <= 2.0 + 1.0      # docs/architecture.md, "Contracts": within max(1 s, 5 %)
    assert res.status == "FEASIBLE"      # the CART warm start at least; the optimum is not proven in 2 s
    _check(problem, res, 3)
    assert problem.min_errors <= res.bound <= known_errors("tic-tac-toe", 3) <= res.objective


def test_time_limit_without_warm_start_gives_tree_or_unknown():
    problem = Binarizer("all").problem(load_dataset("tic-tac-toe"))
    res = solve_binoct(problem, max_depth=3, time_limit=0.5, warm_start=False)
    assert res.runtime <= 0.5 + 1.0
    assert res.status in ("FEASIBLE", "UNKNOWN")
    if res.status == "UNKNOWN":
        assert res.tree is None and res.objective is None
    else:
        _check(problem, res, 3)
        assert res.bound <= known_errors("tic-tac-toe", 3) <= res.objective


def test_bad_parameters():
    problem = _instance(1)
    for solve in (solve_binoct, solve_oct):
        for bad in (0, -1, 1.5):
            with pytest.raises(ValueError, match="max_depth"):
                solve(problem, max_depth=bad)
        with pytest.raises(ValueError, match="highs, scip, cbc, cpsat"):
            solve(problem, max_depth=2, backend="gurobi")
        with pytest.raises(ValueError, match="interface"):
            solve(problem, max_depth=2, interface="pulp")
        with pytest.raises(ValueError, match="CBC"):
            solve(problem, max_depth=2, backend="cbc", interface="mathopt")
        with pytest.raises(ValueError, match="time_limit"):
            solve(problem, max_depth=2, time_limit=-1)
    with pytest.raises(ValueError, match="alpha"):
        solve_oct(problem, max_depth=2, alpha=-0.1)
    with pytest.raises(ValueError, match="min_leaf"):
        solve_oct(problem, max_depth=2, min_leaf=0)


# ------------------------------------------------------------------ warm starts from any tree
@pytest.mark.slow
def test_warm_start_from_a_dpdt_tree_or_front():
    """A tree over the original features (here DPDT's) is the fallback on a time limit with its
    own errors, and on a full solve the optimum is unchanged."""
    from satdt.heuristics.dpdt import solve_dpdt
    from satdt.solvers.maxsat import solve_max_accuracy

    data = load_dataset("tic-tac-toe")
    problem = Binarizer("all").problem(data)
    dpdt = solve_dpdt(data, max_depth=3, cart_depth=5).tree
    dpdt_errors = int((dpdt.predict_index(data.X) != data.y).sum())
    res = solve_binoct(problem, max_depth=3, time_limit=1.0, warm_start=dpdt)
    assert res.tree is not None and res.objective <= dpdt_errors
    _check(problem, res, 3)
    timed = solve_max_accuracy(problem, max_depth=3, time_limit=0.5, warm_start=dpdt)
    assert timed.tree is not None and timed.objective <= dpdt_errors
    small = Binarizer("all").problem(load_dataset("monk3"))
    for warm in ("dpdt", solve_dpdt(small.data, max_depth=2).tree):
        for solve in (solve_binoct, solve_oct):
            full = solve(small, max_depth=2, warm_start=warm)
            assert full.status == "OPTIMAL" and full.objective == known_errors("monk3", 2)
    with pytest.raises(ValueError, match="warm start"):
        solve_binoct(small, max_depth=2, warm_start="bogus")
    with pytest.raises(ValueError, match="depth"):
        solve_binoct(small, max_depth=1, warm_start=dpdt_tree_of(small, 3))


def dpdt_tree_of(problem, depth):
    from satdt.heuristics.dpdt import solve_dpdt
    return solve_dpdt(problem.data, max_depth=depth).tree


@pytest.mark.parametrize("name", ["iris", "wine", "tic-tac-toe"])
def test_cart_on_original_features_for_large_matrices(name, monkeypatch):
    """Above CART_MAX_CELLS the CART warm start is fitted on the original features and mapped by
    routing (scikit-learn would otherwise copy the binary matrix as floats: 17 GB on htru): the
    mapped tree makes exactly the original CART's training errors."""
    from sklearn.tree import DecisionTreeClassifier
    from satdt import warmstart

    data = load_dataset(name)
    problem = Binarizer("all").problem(data)
    monkeypatch.setattr(warmstart, "CART_MAX_CELLS", 0)
    for depth in (1, 2, 3):
        tree = cart_binary_tree(problem, depth)
        assert tree.depth() <= depth
        assert all(0 <= nd.feature < problem.n_binary for nd in tree.root.walk() if not nd.is_leaf)
        cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(data.X, data.y)
        # tie-free comparison: the mapped tree routes every row as the float64 tree of CART
        from satdt.tree import Tree
        original = Tree.from_sklearn(cart)
        original_errors = int((original.predict_index(data.X) != data.y).sum())
        assert problem.errors(tree) == original_errors
