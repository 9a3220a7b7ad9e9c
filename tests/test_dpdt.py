"""satdt.heuristics.dpdt: DPDT (Kohler, Akrour & Preux) over a grid of alphas.

Checks: exhaustive tests = brute-force optimum of the DPDT objective (300 tiny instances);
Proposition 2 (never worse than CART's cost-complexity pruning path, every alpha); objectives
re-evaluated on the returned trees; the numpy CART against scikit-learn; budgets, time limits and
bad parameters.
"""

import re
import time

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from satdt import bruteforce, load_dataset, prepare
from satdt.result import FEASIBLE
import satdt.heuristics.dpdt.build as dpdt_build
import satdt.heuristics.dpdt.splits as dpdt_splits
from satdt.heuristics.dpdt import (best_split_errors, best_split_per_feature, cart_splits,
                                dpdt_objective, last_level_children, solve_dpdt)
from satdt.tree import Tree

from conftest import random_problem

slow = pytest.mark.slow

ALPHAS = np.array([0.0, 0.004, 0.02, 0.05, 0.1, 0.3])


def check_trees(res, data, alphas=None):
    """Every distinct tree's re-evaluated objective equals DPDT's value where it is chosen."""
    alphas = res.alphas if alphas is None else alphas
    for i, a in enumerate(alphas):
        tree = res.trees[res.tree_index_per_alpha[i]]
        assert dpdt_objective(tree, data, a) == pytest.approx(res.values[i], abs=1e-9)
        assert tree.depth() <= len(res.model.levels)


# ------------------------------------------------------------- exhaustive = brute force
@pytest.mark.parametrize("block", [0] + [pytest.param(b, marks=slow) for b in range(1, 10)])
def test_exhaustive_generator_equals_bruteforce(block):
    for seed in range(30 * block, 30 * block + 30):
        rng = np.random.default_rng(seed)
        p = random_problem(seed, n_rows=int(rng.integers(6, 12)), n_features=int(rng.integers(1, 4)),
                           n_classes=int(rng.integers(2, 4)), binary=bool(seed % 3 == 0))
        depth = 1 + seed % 3
        res = solve_dpdt(p.data, max_depth=depth, alphas=ALPHAS, generator="exhaustive")
        for i, a in enumerate(ALPHAS):
            assert res.values[i] == pytest.approx(bruteforce.min_dpdt(p, a, depth)[0], abs=1e-12), (seed, a)
        check_trees(res, p.data)


# ------------------------------------------------------------- Proposition 2
def cart_path_objectives(data, depth, alphas, random_state=0):
    """DPDT objective of every tree of CART's cost-complexity pruning path (depth ``depth``)."""
    base = DecisionTreeClassifier(max_depth=depth, random_state=random_state)
    path = base.cost_complexity_pruning_path(data.X, data.y)
    out = []
    for ca in np.unique(path.ccp_alphas):
        model = DecisionTreeClassifier(max_depth=depth, random_state=random_state, ccp_alpha=ca)
        tree = Tree.from_sklearn(model.fit(data.X, data.y))
        for node in tree.root.walk():
            node.label = int(np.searchsorted(data.classes, model.classes_[node.label]))
        out.append(np.array([dpdt_objective(tree, data, a) for a in alphas]))
    return np.array(out)


BUNDLED = ["iris", "monk1", "monk2", "monk3", "mouse", "wine", "balance-scale", "car", "zoo",
           "lung-cancer", "bmi", "monk1-onehot"]


@pytest.mark.parametrize("name", [n if n in ("iris", "monk3", "mouse", "lung-cancer") else pytest.param(n, marks=slow)
                                  for n in BUNDLED])
def test_proposition2_bundled(name):
    data = load_dataset(name)
    alphas = np.linspace(0, 0.1, 41)
    for depth, cart_depth, generator in ((2, 2, "sklearn"), (3, 4, "sklearn"), (3, 3, "cart"),
                                         (3, 3, "hybrid")):
        res = solve_dpdt(data, max_depth=depth, cart_depth=cart_depth, alphas=alphas,
                         generator=generator, exact_last=depth == 2)
        cart = cart_path_objectives(data, depth, alphas)
        assert (res.values <= cart.min(axis=0) + 1e-12).all()
        check_trees(res, data)


@pytest.mark.parametrize("seed", [s if s < 2 else pytest.param(s, marks=slow) for s in range(16)])
def test_proposition2_random(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(30, 200)), int(rng.integers(2, 6))
    X = rng.normal(size=(n, k)) if seed % 2 else rng.integers(0, 4, size=(n, k)).astype(float)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int) + (rng.random(n) < 0.2)
    data = prepare(X, y)
    alphas = np.linspace(0, 0.2, 21)
    depth = 2 + seed % 2
    for generator, exact_last in (("cart", False), ("cart", True), ("sklearn", False),
                                  ("hybrid", seed % 3 == 0)):
        res = solve_dpdt(data, max_depth=depth, cart_depth=3, alphas=alphas, generator=generator,
                         exact_last=exact_last, random_state=seed)
        cart = cart_path_objectives(data, depth, alphas, random_state=seed)
        assert (res.values <= cart.min(axis=0) + 1e-12).all()
        check_trees(res, data)


# ------------------------------------------------------------- the returned trees
def test_result_and_front_are_consistent():
    data = load_dataset("car")
    res = solve_dpdt(data, max_depth=3, cart_depth=4, alpha=0.01)
    r = res.result
    assert r.status == FEASIBLE and r.method == "dpdt" and r.objective_name == "dpdt"
    assert r.bound is None and r.tree is not None
    assert r.objective == pytest.approx(dpdt_objective(r.tree, data, 0.01))
    assert r.objective == pytest.approx(r.stats["dpdt_value"], abs=1e-12)
    assert len(res.alphas) == 1000 and len(res.tree_index_per_alpha) == 1000
    # every alpha of the grid has a tree, and every tree kept is the choice of some alpha
    assert sorted(set(res.tree_index_per_alpha.tolist())) == list(range(len(res.trees)))
    check_trees(res, data)
    # alpha = 0.01 lies between grid points: same value as a fresh induction at that alpha
    t = res.tree_for(0.01)
    assert dpdt_objective(t, data, 0.01) == pytest.approx(r.objective)
    # values are concave non-decreasing in alpha; the front trades accuracy for tests
    assert (np.diff(res.values) >= -1e-12).all()
    front = res.pareto_front
    assert [f["avg_tests"] for f in front] == sorted(f["avg_tests"] for f in front)
    assert all(a["accuracy"] < b["accuracy"] for a, b in zip(front, front[1:]))
    assert front[0]["n_nodes"] == 1 and res.trees[front[-1]["tree_index"]].depth() <= 3
    for f in front + res.pareto_front_nodes:
        tree = res.trees[f["tree_index"]]
        assert f["errors"] == int((tree.predict_index(data.X) != data.y).sum())
        assert f["alpha_min"] <= f["alpha_max"]
    # counts are fitted on the original rows
    assert r.tree.root.counts.sum() == data.n_rows


def test_exact_last_is_never_worse_and_per_depth_cart():
    data = load_dataset("balance-scale")
    alphas = np.linspace(0, 0.05, 11)
    for generator in ("sklearn", "cart"):
        plain = solve_dpdt(data, max_depth=3, cart_depth=3, alphas=alphas, generator=generator,
                           exact_last=False)
        exact = solve_dpdt(data, max_depth=3, cart_depth=3, alphas=alphas, generator=generator)
        assert (exact.values <= plain.values + 1e-12).all()
    deep = solve_dpdt(data, max_depth=4, cart_depth=[3, 2], alphas=alphas)
    assert deep.stats["cart_depth"] == [3, 2] and deep.stats["n_levels"] == 4
    assert max(t.depth() for t in deep.trees) <= 4
    assert deep.values[0] <= plain.values[0] + 1e-12
    check_trees(deep, data)


def _sklearn_splits(X, y, depth, random_state):
    """(feature, largest left value) of every split of scikit-learn's CART."""
    model = DecisionTreeClassifier(max_depth=depth, random_state=random_state).fit(X, y)
    t, path = model.tree_, model.decision_path(X).toarray().astype(bool)
    out = set()
    for v in np.flatnonzero(t.feature >= 0):
        col = X[path[:, v], t.feature[v]]
        out.add((int(t.feature[v]), float(col[col.astype(np.float32) <= t.threshold[v]].max())))
    return out


def test_numpy_cart_matches_sklearn_up_to_ties():
    """The numpy CART's splits are scikit-learn's: with random_state=0 on most instances, and on
    every instance with some random_state. scikit-learn breaks ties between equally good splits
    by a random feature order, the numpy CART by the lowest feature: an instance that no
    feature order reproduces is a real difference, not a tie."""
    rng = np.random.default_rng(1)
    agree = 0
    for i in range(40):
        n, C, p, depth = int(rng.integers(30, 300)), int(rng.integers(2, 4)), int(rng.integers(2, 6)), int(rng.integers(1, 6))
        X = rng.normal(size=(n, p))
        y = rng.integers(0, C, n)
        y[:C] = np.arange(C)
        order = np.argsort(X, axis=0, kind="stable").T.copy()
        f, lo = cart_splits(X, np.eye(C)[y], order, depth)
        ours = set(zip(f.tolist(), lo.tolist()))
        agree += ours == _sklearn_splits(X, y, depth, 0)
        assert any(ours == _sklearn_splits(X, y, depth, rs) for rs in range(200)), i
    assert agree >= 30


def test_trivial_data():
    data = prepare(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 0, 1, 1])
    res = solve_dpdt(data, max_depth=2, alphas=[0.0, 0.4, 0.6])
    assert res.values.tolist() == pytest.approx([0.0, 0.4, 0.5])
    assert res.trees[res.tree_index_per_alpha[2]].n_nodes == 1
    pure_left = prepare(np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]), [1, 1, 0])
    assert solve_dpdt(pure_left, max_depth=3).result.objective == 0.0


# ------------------------------------------------------------- limits and parameters
def test_state_budget():
    data = load_dataset("car")
    with pytest.raises(ValueError, match="max_states"):
        solve_dpdt(data, max_depth=3, cart_depth=5, max_states=100)


def test_time_limit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6000, 12))
    y = (X[:, :3].sum(axis=1) + rng.normal(size=6000) > 0).astype(int)
    data = prepare(X, y)
    res = solve_dpdt(data, max_depth=4, cart_depth=5, time_limit=0.5)
    assert res.result.runtime <= 0.5 + 1.0   # docs/architecture.md, "Contracts": within max(1 s, 5 %)
    assert res.result.status == FEASIBLE and res.stats["truncated"]
    assert res.result.objective == pytest.approx(dpdt_objective(res.tree, data, 0.0))


@pytest.mark.parametrize("kwargs", [
    {"max_depth": 0}, {"max_depth": -1}, {"max_depth": 2.5}, {"max_depth": True},
    {"cart_depth": 0}, {"cart_depth": []}, {"cart_depth": [3, 0]}, {"cart_depth": "deep"},
    {"alphas": [-0.1, 0.2]}, {"alphas": []}, {"alphas": [np.nan]}, {"alpha": -1.0},
    {"alpha": float("inf")}, {"alpha": "x"}, {"max_states": 0}, {"generator": "random"},
    {"time_limit": 0}, {"time_limit": -3},
])
def test_bad_parameters(kwargs):
    """The error names the parameter (and the generator choices for an unknown one)."""
    (name, _), = kwargs.items()
    match = "hybrid, sklearn, cart, exhaustive" if name == "generator" else rf"^{re.escape(name)} "
    with pytest.raises(ValueError, match=match):
        solve_dpdt(load_dataset("iris"), **kwargs)


# ------------------------------------------------------------- the batched last level
def _state(seed):
    rng = np.random.default_rng(seed)
    m, p, C = int(rng.integers(2, 60)), int(rng.integers(1, 5)), int(rng.integers(2, 5))
    X = rng.integers(0, int(rng.integers(2, 8)), size=(m, p)).astype(float)
    Wc = np.zeros((m, C))
    Wc[np.arange(m), rng.integers(0, C, m)] = rng.integers(1, 4, m)
    order = np.argsort(X, axis=0, kind="stable").T.astype(np.int32).copy()
    return rng, X, Wc, order


@pytest.mark.parametrize("block", range(4))
def test_last_level_children_match_state_by_state(block):
    """Each child's best split (errors, threshold, leaves) from the batch equals the per-state
    scan on the child's own rows (300 random states, several tests each)."""
    for seed in range(75 * block, 75 * block + 75):
        rng, X, Wc, order = _state(seed)
        m, p = X.shape
        K = int(rng.integers(1, 6))
        L = X[:, rng.integers(0, p, K)] <= rng.integers(0, 4, K)[None, :]
        keep = L.any(axis=0) & ~L.all(axis=0)
        if not keep.any():
            continue
        L = L[:, keep]
        ch = last_level_children(X, Wc, order, L)
        for j in range(2 * L.shape[1]):
            rows = np.flatnonzero(L[:, j // 2] != bool(j % 2))
            cw = Wc[rows].sum(axis=0)
            assert ch.weight[j] == cw.sum() and ch.err[j] == cw.sum() - cw.max()
            sub_order = np.argsort(X[rows], axis=0, kind="stable").T.copy()
            f, lo, e = best_split_errors(X[rows], Wc[rows], sub_order)
            improves = f >= 0 and e < ch.err[j]
            assert bool(ch.has[j]) == bool(improves), (seed, j)
            if improves:
                assert ch.left_err[j] + ch.right_err[j] == e
                assert ch.feature[j] == f   # same tie-breaking: lowest feature, then threshold
                left = X[rows, ch.feature[j]] <= ch.threshold[j]
                assert (left == (X[rows, f] <= lo)).all()
                lw, rw = Wc[rows][left].sum(axis=0), Wc[rows][~left].sum(axis=0)
                assert ch.left_err[j] == lw.sum() - lw.max() and ch.right_err[j] == rw.sum() - rw.max()
                assert lw[ch.left_label[j]] == lw.max() and rw[ch.right_label[j]] == rw.max()


def test_best_split_per_feature_is_each_features_best():
    for seed in range(100):
        rng, X, Wc, order = _state(seed)
        feat, lo = best_split_per_feature(X, Wc, order)
        for f in range(X.shape[1]):
            vals = np.unique(X[:, f])[:-1]
            if len(vals) == 0:
                assert f not in feat
                continue
            errs = []
            for v in vals:
                lw, rw = Wc[X[:, f] <= v].sum(axis=0), Wc[X[:, f] > v].sum(axis=0)
                errs.append(lw.sum() - lw.max() + rw.sum() - rw.max())
            k = int(np.flatnonzero(feat == f)[0])
            assert lo[k] == vals[int(np.argmin(errs))]


@pytest.mark.parametrize("generator", [pytest.param("hybrid", marks=slow), pytest.param("sklearn", marks=slow),
                                       "cart", "exhaustive"])
def test_batched_last_level_equals_state_by_state(generator, monkeypatch):
    """The batched last level gives the same values for every alpha as building its states one
    by one (with identical states merged)."""
    names = ["iris", "balance-scale", "wine"] if generator != "exhaustive" else []
    datas = [load_dataset(n) for n in names]
    for seed in range(5):
        rng = np.random.default_rng(seed)
        n = 12 if generator == "exhaustive" else 150
        X = rng.integers(0, 5, size=(n, 3)).astype(float)
        datas.append(prepare(X, (X[:, 0] + rng.integers(0, 3, n) > 3).astype(int) + (rng.random(n) < 0.2)))
    alphas = np.linspace(0, 0.1, 11)
    for data in datas:
        for depth in (2, 3):
            fast = solve_dpdt(data, max_depth=depth, cart_depth=3, alphas=alphas, generator=generator)
            monkeypatch.setattr(dpdt_build, "_BATCH_LAST", False)
            slow = solve_dpdt(data, max_depth=depth, cart_depth=3, alphas=alphas, generator=generator)
            monkeypatch.setattr(dpdt_build, "_BATCH_LAST", True)
            assert fast.values == pytest.approx(slow.values, abs=1e-12)
            check_trees(fast, data)


def test_default_is_hybrid_and_superset_at_root():
    data = load_dataset("wine")
    res = solve_dpdt(data, max_depth=2, alphas=[0.0, 0.01])
    assert res.stats["generator"] == "hybrid" and res.stats["exact_last"]
    # at depth 2 the hybrid root tests include every feature's best split and CART's: never
    # worse than the plain CART generator
    plain = solve_dpdt(data, max_depth=2, alphas=[0.0, 0.01], generator="sklearn")
    assert (res.values <= plain.values + 1e-12).all()
    check_trees(res, data)


def test_last_level_children_stop_at_deadline(monkeypatch):
    """An expired deadline stops the batch between blocks: the remaining children keep their
    weights and labels but get no test."""
    from satdt.solvers.common import Deadline

    rng, X, Wc, order = _state(3)
    L = X[:, [0] * 6] <= np.array([0, 1, 2, 3, 4, 5])[None, :]
    L = L[:, L.any(axis=0) & ~L.all(axis=0)]
    full = last_level_children(X, Wc, order, L)
    monkeypatch.setattr(dpdt_splits, "_BATCH", 1)    # one test per block
    deadline = Deadline(1e-6)
    time.sleep(0.01)
    cut = last_level_children(X, Wc, order, L, deadline)
    assert not cut.complete and full.complete
    assert (cut.weight == full.weight).all() and (cut.err == full.err).all()
    assert (cut.label == full.label).all()
    assert (cut.has[:2] == full.has[:2]).all() and not cut.has[2:].any()
