"""CP-SAT for the regularized objective errors / n + lam * leaves (OSDT/GOSDT [4, 5]).

Cross-checks against the brute-force enumerator in exact fractions on 300+ random instances,
the exactness of the integer scaling of lambda, OSDT's necessary conditions on every OPTIMAL
tree, the regularization path, time limits and bad parameters.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from satdt import OPTIMAL, FEASIBLE, UNKNOWN, Binarizer, load_dataset, bruteforce
from satdt.encodings.cpsat_regularized import (engine_lambda, farey_neighbours, build_model,
                                               set_objective, threshold_chains)
from satdt.solvers.cpsat import (improve_tree, solve_regularization_path, solve_regularized)
from satdt.tree import Node, Tree

from conftest import random_problem
from known_optima import known


# ---------------------------------------------------------------------- helpers

def exact_min_regularized(problem, lam, depth) -> Fraction:
    """bruteforce.min_regularized computed in exact fractions."""
    n = problem.n_rows
    lam = Fraction(lam)
    cost, _ = bruteforce.best_tree(problem, depth,
                                   lambda c: Fraction(int(c.sum() - c.max()), n) + lam,
                                   lambda c: Fraction(0))
    return cost


def exact_value(problem, result, lam) -> Fraction:
    tree = result.tree
    errors = int((tree.predict_index(problem.data.X) != problem.data.y).sum())
    return Fraction(errors, problem.n_rows) + Fraction(lam) * tree.n_leaves


def check_result(problem, result, lam, depth) -> Fraction:
    """Re-evaluate the returned tree and check the reported figures; returns its exact value."""
    tree = result.tree
    assert tree is not None
    assert result.objective_name == "regularized" and result.method == "cpsat"
    assert tree.depth() <= depth
    errors = int((tree.predict_index(problem.data.X) != problem.data.y).sum())
    assert errors == result.stats["errors"]
    assert tree.n_leaves == result.stats["leaves"]
    value = exact_value(problem, result, lam)
    assert result.objective == float(value)
    assert result.bound is not None and result.bound <= result.objective
    if result.status == OPTIMAL:
        assert result.bound == result.objective
        # the finalized tree's engine value equals CP-SAT's proven optimum
        p, q = map(int, result.stats["lam_engine"].split("/"))
        assert q * errors + p * problem.n_rows * tree.n_leaves == result.stats["engine_objective"]
    return value


def check_osdt_conditions(problem, tree: Tree, lam) -> None:
    """OSDT's necessary conditions for an optimal tree (Hu, Rudin, Seltzer 2019), exactly.

    3.3 every internal node's support >= 2 lam; 3.4 every split's incremental accuracy over its
    node as one leaf >= lam * (its leaves - 1) (for a parent of two leaves: >= lam); 3.5 every
    non-root leaf's correctly classified fraction >= lam; no two sibling leaves of one class.
    """
    lam = Fraction(lam)
    n = problem.n_rows
    tree = tree.copy().fit_counts(problem.data.X, problem.data.y)

    def correct(node: Node) -> int:
        if node.is_leaf:
            return int(node.counts[node.label])
        return correct(node.left) + correct(node.right)

    def leaves(node: Node) -> int:
        return 1 if node.is_leaf else leaves(node.left) + leaves(node.right)

    for node in tree.root.walk():
        support = Fraction(int(node.counts.sum()), n)
        if node.is_leaf:
            if node is not tree.root:
                assert Fraction(int(node.counts[node.label]), n) >= lam, "Theorem 3.5"
            continue
        assert support >= 2 * lam, "Theorem 3.3"
        gain = Fraction(correct(node) - int(node.counts.max()), n)
        assert gain >= lam * (leaves(node) - 1), "Theorem 3.4"
        if lam > 0 and node.left.is_leaf and node.right.is_leaf:
            assert node.left.label != node.right.label, "sibling leaves of one class"


# ---------------------------------------------------------------------- exact scaling

def _farey(order: int) -> list[Fraction]:
    return sorted({Fraction(a, b) for b in range(1, order + 1) for a in range(0, b + 1)})


@pytest.mark.parametrize("order", [1, 2, 5, 12, 30])
def test_farey_neighbours_brute_force(order):
    seq = _farey(order)
    rng = np.random.default_rng(order)
    for x in [Fraction(float(v)) for v in rng.random(200)] + [Fraction(1, order + 1)]:
        if x.denominator <= order or not 0 < x < 1:
            continue
        lo, hi = farey_neighbours(x, order)
        k = max(i for i, f in enumerate(seq) if f < x)
        assert (lo, hi) == (seq[k], seq[k + 1])


@pytest.mark.parametrize("n,max_leaves", [(7, 2), (10, 4), (9, 8), pytest.param(20, 2, marks=pytest.mark.slow)])
def test_engine_lambda_orders_every_pair_like_lambda(n, max_leaves):
    """sign(e1 - e2 + lam n (L1 - L2)) is the same with the engine's lambda for every pair:
    equivalently the engine's lambda is on the same side of (or equal to) every fraction of
    denominator <= n (max_leaves - 1)."""
    order = n * (max_leaves - 1)
    critical = _farey(order)
    rng = np.random.default_rng(n)
    lams = [float(v) for v in rng.random(30) * 0.6]
    chosen = rng.choice(len(critical), size=min(20, len(critical)), replace=False)
    picks = [critical[k] for k in chosen]
    lams += [float(r) for r in picks]                                   # ties (floats of them)
    lams += [float(np.nextafter(float(r), 0)) for r in picks]           # just below
    lams += [float(np.nextafter(float(r), 1)) for r in picks]           # just above
    lams += [0.0, 0.5, 1.0, 1.5, 1e9, 1e-12]
    for lam in lams:
        exact, eng = Fraction(lam), engine_lambda(lam, n, max_leaves)
        assert eng.denominator <= 2 * order + 1
        for r in critical:
            assert (exact > r) == (eng > r) and (exact == r) == (eng == r), (lam, r)
        if max_leaves == 2:   # the pairs themselves, directly
            for e1 in range(n + 1):
                for e2 in range(n + 1):
                    for dl in (-1, 0, 1):
                        a = (e1 - e2) + exact * n * dl
                        b = (e1 - e2) + eng * n * dl
                        assert (a > 0) == (b > 0) and (a == 0) == (b == 0)


def test_objective_is_integer_and_small():
    problem = random_problem(3, n_rows=30, n_features=4)
    enc = build_model(problem, 3)
    scaled = set_objective(enc, 0.01)
    assert isinstance(scaled.p, int) and isinstance(scaled.q, int)
    assert scaled.q <= 2 * problem.n_rows * 7 + 1
    assert Fraction(scaled.p, scaled.q) != Fraction(0.01)   # 0.01 is not a short fraction
    # ordering of (errors, leaves) pairs identical to the exact lambda
    pairs = [(e, l) for e in range(problem.n_rows + 1) for l in range(1, 9)]
    exact = sorted(pairs, key=lambda p: scaled.exact_value(*p))
    engine = sorted(pairs, key=lambda p: scaled.engine_value(*p))
    assert exact == engine


def test_threshold_chains_are_nested():
    problem = Binarizer("all").problem(load_dataset("car"))
    chains = threshold_chains(problem)
    assert sorted(np.concatenate(chains).tolist()) == list(range(problem.n_binary))
    for cols in chains:
        block = problem.X[:, cols].astype(int)
        assert np.all(np.diff(block, axis=1) <= 0)


# ---------------------------------------------------------------------- vs brute force

LAMS = [0.0, 0.01, 0.03, 0.05, 0.08, 0.1, 0.2, 1 / 15, 0.1 + 1e-17, np.nextafter(1 / 30, 1),
        np.nextafter(1 / 30, 0), 2 / 45]


@pytest.mark.parametrize("seed", [s if s < 2 else pytest.param(s, marks=pytest.mark.slow) for s in range(62)])
def test_matches_bruteforce_exactly(seed):
    """5 lambdas per instance: 310 instances with 2-4 classes, depth 1-3, some with repeats
    (seeds 0-1 in the fast subset)."""
    rng = np.random.default_rng(1000 + seed)
    problem = random_problem(seed, n_rows=int(rng.integers(8, 19)), n_features=3,
                             n_classes=2 + seed % 3, binary=seed % 4 == 0,
                             consistent=seed % 5 == 0)
    depth = 1 + seed % 3
    for lam in rng.choice(LAMS, size=5, replace=False):
        lam = float(lam)
        result = solve_regularized(problem, lam=lam, max_depth=depth, num_workers=1)
        assert result.status == OPTIMAL
        value = check_result(problem, result, lam, depth)
        assert value == exact_min_regularized(problem, lam, depth), (seed, lam, depth)
        check_osdt_conditions(problem, result.tree, lam)


@pytest.mark.parametrize("seed", range(8))
def test_without_hint_and_bounds_same_optimum(seed):
    problem = random_problem(500 + seed, n_rows=16, n_features=3, n_classes=2 + seed % 2)
    for lam in (0.02, 0.07):
        a = solve_regularized(problem, lam=lam, max_depth=2, warm_start=None, osdt_bounds=False,
                              num_workers=1)
        b = solve_regularized(problem, lam=lam, max_depth=2, num_workers=1)
        assert a.status == b.status == OPTIMAL
        assert exact_value(problem, a, lam) == exact_value(problem, b, lam) \
            == exact_min_regularized(problem, lam, 2)


@pytest.mark.parametrize("seed", range(10))
def test_lambda_zero_is_max_accuracy(seed):
    problem = random_problem(200 + seed, n_rows=18, n_features=3, n_classes=2 + seed % 2)
    depth = 1 + seed % 3
    result = solve_regularized(problem, lam=0.0, max_depth=depth, num_workers=1)
    assert result.status == OPTIMAL
    best, _ = bruteforce.min_errors(problem, depth)
    assert result.stats["errors"] == best
    assert result.objective == best / problem.n_rows


@pytest.mark.parametrize("seed", range(6))
def test_lambda_above_half_gives_single_leaf(seed):
    problem = random_problem(300 + seed, n_rows=20, n_features=4, n_classes=2 + seed % 3)
    for lam in (0.5000001, 0.75, 3.0):
        result = solve_regularized(problem, lam=lam, max_depth=3, num_workers=1)
        assert result.status == OPTIMAL
        assert result.tree.n_leaves == 1
        majority = int(problem.counts.sum(axis=0).max())
        assert result.stats["errors"] == problem.n_rows - majority


def test_multiclass_dataset_iris():
    problem = Binarizer("quantile", n_thresholds=3).problem(load_dataset("iris"))
    for lam in (0.01, 0.05):
        result = solve_regularized(problem, lam=lam, max_depth=2, num_workers=1)
        assert result.status == OPTIMAL
        value = check_result(problem, result, lam, 2)
        assert value == exact_min_regularized(problem, lam, 2)
        assert len(set(result.tree.predict(problem.data.X))) == 3
        check_osdt_conditions(problem, result.tree, lam)


def test_monk1_depth2_known_optimum():
    """monk1, lambda 0.025, depth <= 2: the optimum of tests/known_optima.py (brute force,
    confirmed by STreeD), with the optimal tree's errors and leaves."""
    row = known("regularized", "monk1", 2, 0.025)
    problem = Binarizer("all").problem(load_dataset("monk1"))
    result = solve_regularized(problem, lam=0.025, max_depth=2)
    assert result.status == OPTIMAL
    assert check_result(problem, result, 0.025, 2) == row.exact
    assert (result.stats["errors"], result.stats["leaves"]) == (row.errors, row.leaves)


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.01, 0.005])
def test_monk1_onehot_gosdt_optimum(lam):
    """GOSDT's objective on the one-hot monk1 at depth <= 5 (0.07 and 0.035: 7 leaves, 0 errors)."""
    row = known("regularized", "monk1-onehot", 5, lam)
    problem = Binarizer("all").problem(load_dataset("monk1-onehot"))
    result = solve_regularized(problem, lam=lam, max_depth=5, time_limit=300)
    assert result.status == OPTIMAL
    assert check_result(problem, result, lam, 5) == row.exact
    assert (result.stats["errors"], result.stats["leaves"]) == (row.errors, row.leaves)


# ---------------------------------------------------------------------- hints

def test_improve_tree_gives_valid_hint():
    problem = random_problem(11, n_rows=30, n_features=4)
    from satdt.warmstart import cart_binary_tree
    cart = cart_binary_tree(problem, 3)
    for lam in (0.0, 0.02, 0.1):
        better = improve_tree(problem, cart, lam)
        n = problem.n_rows
        v_cart = Fraction(problem.errors(cart), n) + Fraction(lam) * cart.n_leaves
        v_better = Fraction(problem.errors(better), n) + Fraction(lam) * better.n_leaves
        assert v_better <= v_cart and better.depth() <= 3


def test_tree_hint_and_bad_hint():
    problem = random_problem(12, n_rows=20, n_features=3)
    _, opt = bruteforce.min_regularized(problem, 0.05, 2)
    result = solve_regularized(problem, lam=0.05, max_depth=2, warm_start=problem.to_original(opt), num_workers=1)
    assert result.stats["hint_objective"] == result.objective   # the optimum as hint: nothing lost
    assert result.status == OPTIMAL
    assert check_result(problem, result, 0.05, 2) == exact_min_regularized(problem, 0.05, 2)
    deep = Tree(root=Node.split(0, 0.5, Node.split(1, 0.5, Node.leaf(0), Node.leaf(1)),
                                Node.leaf(1)), classes=problem.classes)
    with pytest.raises(ValueError, match="depth"):
        solve_regularized(problem, lam=0.05, max_depth=1, warm_start=deep)
    with pytest.raises(ValueError, match="warm start must be None, 'cart', 'dpdt' or a Tree"):
        solve_regularized(problem, lam=0.05, max_depth=1, warm_start="bogus")
    with pytest.raises(ValueError, match="warm start must be None, 'cart', 'dpdt' or a Tree"):
        solve_regularized(problem, lam=0.05, max_depth=1, warm_start=True)
    with pytest.warns(DeprecationWarning, match="warm_start"):   # the former keyword still works
        old = solve_regularized(problem, lam=0.05, max_depth=2, hint=problem.to_original(opt), num_workers=1)
    assert old.objective == result.objective


@pytest.mark.slow
@pytest.mark.parametrize("lam, depth", [(0.025, 3), (0.005, 2), (0.01, 2)])
def test_dpdt_tree_as_hint_keeps_its_value(lam, depth):
    """A DPDT tree (original features) is mapped by routing: the hint is worth exactly the tree's
    own regularized value (or better, after improve_tree), and the optimum is unchanged."""
    from satdt.heuristics.dpdt import solve_dpdt
    from satdt.verify import tree_value

    data = load_dataset("monk3")
    problem = Binarizer("all").problem(data)
    dpdt = solve_dpdt(data, max_depth=depth, cart_depth=5).tree
    value = tree_value(dpdt, data, "regularized", lam=lam)
    with_tree = solve_regularized(problem, lam=lam, max_depth=depth, warm_start=dpdt, num_workers=1, time_limit=120)
    with_front = solve_regularized(problem, lam=lam, max_depth=depth, warm_start="dpdt", num_workers=1,
                                   time_limit=120)
    plain = solve_regularized(problem, lam=lam, max_depth=depth, warm_start=None, num_workers=1, time_limit=120)
    assert with_tree.stats["hint_objective"] <= value + 1e-12
    assert with_front.stats["hint_objective"] <= with_tree.stats["hint_objective"] + 1e-12
    assert with_tree.status == with_front.status == plain.status == OPTIMAL
    assert with_tree.objective == with_front.objective == plain.objective


# ---------------------------------------------------------------------- path

def test_regularization_path_matches_single_solves():
    problem = random_problem(21, n_rows=20, n_features=4, n_classes=2)
    lams = [0.1, 0.0, 0.02, 0.05, 0.02, 0.3]
    path = solve_regularization_path(problem, lams=lams, max_depth=3)
    assert len(path) == len(lams)
    for lam, res in zip(lams, path):
        assert res.status == OPTIMAL
        assert res.stats["lam"] == lam
        assert check_result(problem, res, lam, 3) == exact_min_regularized(problem, lam, 3)
        check_osdt_conditions(problem, res.tree, lam)
    distinct = path.distinct_trees()
    assert sum(len(ls) for ls, _ in distinct) == len(lams)
    leaves = [r.tree.n_leaves for _, r in distinct]
    assert leaves == sorted(leaves, reverse=True)     # fewer leaves as lambda grows


# ---------------------------------------------------------------------- limits and errors

def test_time_limit_returns_promptly():
    problem = Binarizer("all").problem(load_dataset("tic-tac-toe"))
    result = solve_regularized(problem, lam=0.001, max_depth=4, time_limit=1.0)
    assert result.runtime <= 1.0 + 1.0   # docs/architecture.md, "Contracts": within max(1 s, 5 %)
    assert result.status in (FEASIBLE, UNKNOWN)
    if result.status == FEASIBLE:
        check_result(problem, result, 0.001, 4)
        assert result.bound <= result.objective


def test_time_limit_inside_cpsat():
    """A model that builds quickly but is not solved in 2 s: CP-SAT's own limit stops it."""
    problem = Binarizer("all").problem(load_dataset("monk2"))
    result = solve_regularized(problem, lam=0.001, max_depth=5, time_limit=2.0)
    assert result.runtime <= 2.0 + 1.0
    assert result.status in (FEASIBLE, UNKNOWN)
    if result.tree is not None:
        check_result(problem, result, 0.001, 5)
        assert 0 < result.bound <= result.objective


def test_num_workers_capped():
    problem = random_problem(5, n_rows=12, n_features=3)
    result = solve_regularized(problem, lam=0.05, max_depth=2, num_workers=64)
    from satdt.solvers.common import n_cores
    assert result.stats["num_workers"] == min(64, n_cores())


@pytest.mark.parametrize("kwargs,match", [
    (dict(lam=-0.1, max_depth=2), "lam"),
    (dict(lam=float("nan"), max_depth=2), "lam"),
    (dict(lam=0.1, max_depth=-1), "max_depth"),
    (dict(lam=0.1, max_depth=2.5), "max_depth"),
    (dict(lam=0.1, max_depth=2, time_limit=0), "time_limit"),
    (dict(lam=0.1, max_depth=2, num_workers=0), "num_workers"),
])
def test_bad_parameters(kwargs, match):
    problem = random_problem(1, n_rows=10, n_features=2)
    with pytest.raises(ValueError, match=match):
        solve_regularized(problem, **kwargs)
    rest = {k: v for k, v in kwargs.items() if k != "lam"}
    with pytest.raises(ValueError, match=match):
        solve_regularization_path(problem, lams=[kwargs["lam"]], **rest)


def test_path_needs_lambdas():
    with pytest.raises(ValueError, match="lams"):
        solve_regularization_path(random_problem(1), lams=[], max_depth=2)
