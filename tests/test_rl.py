"""The reinforcement-learning tree builders: ADAPTTREE0 (SARSA) and Reinforced Decision Trees."""

import json

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from satdt.binarize import Binarizer
from satdt.cli import main
from satdt.data import load_dataset, prepare
from satdt.estimators import AdaptTreeClassifier, RDTClassifier
from satdt.heuristics.rl.adapttree import (TileCoder, attributes, count_tests, id3_tree, min_multiway_tests,
                                        paper_problem, paper_schedule, sarsa_update, solve_adapttree)
from satdt.heuristics.rl.rdt import ReinforcedDecisionTree, gaussian_toy, solve_rdt


def _single_split_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    y = np.where(X[:, 1] > 4.2, "hi", "lo")
    return X, y


# ------------------------------------------------------------------ ADAPTTREE0
def test_sarsa_update_matches_hand_computation():
    theta, trace = np.zeros(8), np.zeros(8)
    # tiles 1, 3, 3 (a hash collision counts twice): Q = 0; delta = -1 + 0.9 * (-0.5) - 0 = -1.45
    delta = sarsa_update(theta, trace, np.array([1, 3, 3]), -1.0, -0.5, step=0.1, gamma=0.9, lam=0.0)
    assert delta == pytest.approx(-1.45)
    assert theta[1] == pytest.approx(-0.145) and theta[3] == pytest.approx(-0.29)
    assert np.count_nonzero(theta) == 2
    # final state, traces decayed by gamma * lam = 0.45: Q = theta[3] = -0.29, delta = 0 - Q = 0.29
    delta = sarsa_update(theta, trace, np.array([3]), 0.0, None, step=0.1, gamma=0.9, lam=0.5)
    assert delta == pytest.approx(0.29)
    assert trace[1] == pytest.approx(0.45) and trace[3] == pytest.approx(1.9)
    assert theta[1] == pytest.approx(-0.145 + 0.1 * 0.29 * 0.45)
    assert theta[3] == pytest.approx(-0.29 + 0.1 * 0.29 * 1.9)


def test_tile_coding_is_deterministic_and_local():
    g = np.random.default_rng(1).uniform(size=(50, 4))
    a = TileCoder(4, n_layers=32, memory=512, resolution=4)
    b = TileCoder(4, n_layers=32, memory=512, resolution=4)
    idx = a.indices(g)
    assert idx.shape == (50, 32) and idx.min() >= 0 and idx.max() < 512
    assert np.array_equal(idx, b.indices(g))                           # same code in every instance
    assert np.array_equal(a.combine(a.partial(g[:, :2], [0, 1]), a.partial(g[:, 2:], [2, 3])), idx)
    assert np.allclose(a.features(g).sum(axis=1), 32)
    near = (a.indices(g[:1] + 0.01) == idx[:1]).mean()
    far = (a.indices(1.0 - g[:1]) == idx[:1]).mean()
    assert near > 0.8 and far < near


def test_paper_schedule():
    assert paper_schedule(0) == 1.0
    assert paper_schedule(1) == pytest.approx(0.5)
    assert paper_schedule(199) == pytest.approx(1 / (1 + np.log2(200)))


def test_adapttree_learns_a_single_split_exactly():
    X, y = _single_split_data()
    problem = Binarizer("all").problem(prepare(X, y))
    out = solve_adapttree(problem, n_episodes=20, random_state=0)
    tree = out.result.tree
    assert out.result.status == "FEASIBLE" and out.result.objective == 1.0
    assert tree.n_splits == 1 and tree.root.feature == 1 and 4.0 < tree.root.threshold < 4.5
    assert list(tree.predict(X)) == list(y)


def test_adapttree_is_deterministic_and_honours_costs():
    problem = paper_problem()
    a = solve_adapttree(problem, n_episodes=15, random_state=3)
    b = solve_adapttree(problem, n_episodes=15, random_state=3)
    assert [r["splits"] for r in a.curve] == [r["splits"] for r in b.curve]
    assert a.result.tree.to_dict() == b.result.tree.to_dict()
    costs = np.ones(7)
    costs[0] = 5.0
    c = solve_adapttree(problem, n_episodes=15, random_state=3, costs=costs)
    used = [n.feature for n in c.binary_tree.root.walk() if not n.is_leaf]
    assert c.result.stats["test_cost"] == pytest.approx(len(used) + 4 * used.count(0))
    with pytest.raises(ValueError, match="costs"):
        solve_adapttree(problem, n_episodes=2, costs=[1, 2])


def test_adapttree_max_depth_and_errors():
    problem = paper_problem()
    out = solve_adapttree(problem, n_episodes=10, max_depth=2, random_state=0)
    assert out.result.tree.depth() <= 2 and out.result.stats["errors"] > 0
    data = problem.data
    assert out.result.stats["errors"] == int((out.result.tree.predict_index(data.X) != data.y).sum())


def test_paper_experiment_id3_and_adapttree():
    """Preda's experiment: ID3 12 internal nodes / 13 leaves; ADAPTTREE0 11 / 12, the optimum."""
    problem = paper_problem()
    assert problem.n_rows == 128 and problem.n_binary == 7
    id3 = id3_tree(problem)
    assert (id3.n_splits, id3.n_leaves) == (12, 13)
    assert problem.errors(id3) == 0
    out = solve_adapttree(problem, n_episodes=200, gamma=0.9, n_layers=32, memory=512, random_state=0)
    assert len(out.curve) == 200 and out.curve[0]["epsilon"] == 1.0
    assert out.result.objective == 11 and out.result.tree.n_leaves == 12 and out.result.stats["errors"] == 0
    from satdt.solvers.dp import solve_min_size_dp
    exact = solve_min_size_dp(problem, max_depth=7)  # 7 Boolean attributes: depth 7 bounds every tree
    assert exact.status == "OPTIMAL" and exact.objective == 2 * 11 + 1


def _categorical_data(seed=0, n=90):
    """x0 in {red, green, blue} decides the class (3 classes); x1 is numeric noise."""
    rng = np.random.default_rng(seed)
    colours = np.array(["red", "green", "blue"])
    c = rng.integers(0, 3, size=n)
    import pandas as pd
    X = pd.DataFrame({"colour": colours[c], "noise": rng.uniform(0, 1, size=n)})
    y = np.array(["r", "g", "b"])[c]
    return X, y


@pytest.mark.slow
def test_multiway_split_of_a_categorical_feature():
    """ID3's multiway split: one test by the 3-valued colour (a chain of 2 binary == tests)."""
    X, y = _categorical_data()
    data = prepare(X, y)
    problem = Binarizer("all").problem(data)
    attrs = attributes(problem)
    assert attrs.multiway_features == {0} and attrs.multi.sum() == 1
    out = solve_adapttree(problem, n_episodes=20, random_state=0)
    tree = out.result.tree
    assert out.result.objective == 1 and out.result.objective_name == "tests"
    assert out.result.stats["binary_splits"] == tree.n_splits == 2 and out.result.stats["errors"] == 0
    root = tree.root
    assert root.feature == 0 and root.category is not None and root.right.feature == 0   # the chain
    assert count_tests(tree, {0}) == 1 and count_tests(tree) == 2
    assert list(tree.predict(data.X)) == list(y)
    # binary tests only: the same partition costs two tests
    flat = solve_adapttree(problem, n_episodes=20, multiway="none", random_state=0)
    assert flat.result.objective == 2 and flat.result.stats["errors"] == 0
    assert min_multiway_tests(problem, multiway="categorical") == 1
    assert min_multiway_tests(problem, multiway="none") == 2
    id3 = problem.to_original(id3_tree(problem))
    assert count_tests(id3, {0}) == 1 and id3.n_splits == 2


def test_multiway_split_of_an_integer_coded_feature():
    """``multiway="discrete"``: an integer feature with 4 values splits into 4 children (a chain
    of 3 threshold tests, one test); by thresholds alone it takes 3 tests."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.integers(0, 4, size=80), rng.integers(0, 2, size=80)].astype(float)
    y = np.array(["a", "b", "c", "d"])[X[:, 0].astype(int)]
    problem = Binarizer("all").problem(prepare(X, y))
    out = solve_adapttree(problem, n_episodes=20, multiway="discrete", random_state=0)
    assert out.result.objective == 1 and out.result.stats["binary_splits"] == 3
    assert out.result.stats["multiway_features"] == [0] and out.result.stats["errors"] == 0
    assert list(out.result.tree.predict(X)) == list(y)
    binary = solve_adapttree(problem, n_episodes=20, random_state=0)       # numeric: thresholds
    assert binary.result.objective == 3 == binary.result.tree.n_splits
    assert min_multiway_tests(problem, multiway="discrete") == 1
    assert min_multiway_tests(problem, multiway="none") == 3
    # a feature with more than max_arity values stays binary
    assert attributes(problem, "discrete", max_arity=3).multiway_features == frozenset()
    with pytest.raises(ValueError, match="multiway"):
        attributes(problem, "all")


def test_min_multiway_tests_agrees_with_the_exact_engine_on_booleans():
    """Over Boolean attributes a multiway split is a binary split: the reference search and the
    DP's DT_size must agree (Preda's concept: 11; and small random concepts)."""
    from satdt.solvers.dp import solve_min_size_dp

    assert min_multiway_tests(paper_problem()) == 11
    rng = np.random.default_rng(5)
    sizes = set()
    for _ in range(4):
        X = rng.integers(0, 2, size=(24, 4)).astype(float)
        truth = rng.integers(0, 2, size=16)                 # a random Boolean concept: no conflicts
        y = truth[X.astype(int) @ np.array([8, 4, 2, 1])]
        problem = Binarizer("all").problem(prepare(X, np.where(y > 0, "p", "n")))
        exact = solve_min_size_dp(problem, max_depth=4)     # 4 attributes: depth 4 bounds every tree
        assert exact.status == "OPTIMAL"
        assert min_multiway_tests(problem) == (exact.objective - 1) / 2
        sizes.add(exact.objective)
    assert len(sizes) > 1


def test_time_limits_return_a_tree():
    problem = Binarizer("all").problem(load_dataset("tic-tac-toe"))
    out = solve_adapttree(problem, n_episodes=1000, time_limit=0.3)
    assert out.result.runtime < 1.3 and out.result.tree is not None
    assert out.result.stats["errors"] == int((out.result.tree.predict_index(problem.data.X) != problem.data.y).sum())
    res, _ = solve_rdt(problem, depth=3, epochs=1000, time_limit=0.3)
    assert res.runtime < 1.3 and res.tree is not None


# ------------------------------------------------------------------ Reinforced Decision Trees


def _small_rdt(loss="squared", width=3, depth=2, seed=0):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((7, 3)), rng.integers(0, 3, size=7)
    model = ReinforcedDecisionTree(width=width, depth=depth, loss=loss)
    model.mean_, model.scale_ = np.zeros(3), np.ones(3)
    model.init(3, 3, rng)
    model.theta = [t + rng.standard_normal(t.shape) for t in model.theta]   # away from uniform
    model.alpha = rng.standard_normal(model.alpha.shape)
    return model, model._augment(X), y


@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_policy_gradient_matches_finite_differences(loss):
    """E over paths of Delta * grad log pi (and grad_alpha Delta) = the gradient of E Delta."""
    model, Xt, y = _small_rdt(loss)
    g_theta, g_alpha = model.exact_gradient(Xt, y)
    eps = 1e-6
    for level, (t, g) in enumerate(zip(model.theta, g_theta)):
        for index in [(0, 0, 0), (0, 1, 2), (t.shape[0] - 1, 2, 3)]:
            old = t[index]
            t[index] = old + eps
            up = model.expected_loss(Xt, y)
            t[index] = old - eps
            down = model.expected_loss(Xt, y)
            t[index] = old
            assert g[index] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)
    for index in [(0, 0), (4, 2), (8, 1)]:
        old = model.alpha[index]
        model.alpha[index] = old + eps
        up = model.expected_loss(Xt, y)
        model.alpha[index] = old - eps
        down = model.expected_loss(Xt, y)
        model.alpha[index] = old
        assert g_alpha[index] == pytest.approx((up - down) / (2 * eps), rel=1e-4, abs=1e-7)


def test_monte_carlo_gradient_is_unbiased():
    model, Xt, y = _small_rdt(width=2, depth=2, seed=1)
    g_theta, _ = model.exact_gradient(Xt, y)
    rng = np.random.default_rng(0)
    M = 20000
    rows = np.repeat(np.arange(len(y)), M)
    choices = np.zeros((len(rows), 2), dtype=np.int64)
    nodes = np.zeros(len(rows), dtype=np.int64)
    from satdt.heuristics.rl.rdt import _sample
    for level in range(2):
        c = _sample(model.node_probs(Xt[rows], level, nodes), rng)
        choices[:, level], nodes = c, nodes * 2 + c
    _, mc, _ = model.path_gradients(Xt[rows], y[rows], choices, np.full(len(rows), 1.0 / len(rows)))
    assert np.allclose(mc[0], g_theta[0], atol=0.05 * np.abs(g_theta[0]).max() + 1e-3)


def test_leave_one_out_baseline_keeps_the_gradient_unbiased():
    """baseline="loo": each trajectory's weight is Delta minus the mean Delta of the example's
    other M - 1 trajectories; the Monte-Carlo mean still estimates the exact gradient."""
    from satdt.heuristics.rl.rdt import _loss, _sample

    model, Xt, y = _small_rdt(width=2, depth=2, seed=1)
    g_theta, _ = model.exact_gradient(Xt, y)
    rng = np.random.default_rng(0)
    M = 8
    rows = np.repeat(np.tile(np.arange(len(y)), 2500), M)      # runs of M copies of one example
    choices = np.zeros((len(rows), 2), dtype=np.int64)
    nodes = np.zeros(len(rows), dtype=np.int64)
    for level in range(2):
        c = _sample(model.node_probs(Xt[rows], level, nodes), rng)
        choices[:, level], nodes = c, nodes * 2 + c
    d = _loss(model.alpha[nodes], y[rows], "squared")[0].reshape(-1, M)
    b = ((d.sum(axis=1, keepdims=True) - d) / (M - 1)).ravel()
    _, mc, _ = model.path_gradients(Xt[rows], y[rows], choices, np.full(len(rows), 1.0 / len(rows)), baseline=b)
    assert np.allclose(mc[0], g_theta[0], atol=0.05 * np.abs(g_theta[0]).max() + 1e-3)
    assert np.allclose(mc[1], g_theta[1], atol=0.05 * np.abs(g_theta[1]).max() + 1e-3)
    # a wrong (biased) baseline, one that depends on the trajectory's own loss, is caught
    _, bad, _ = model.path_gradients(Xt[rows], y[rows], choices, np.full(len(rows), 1.0 / len(rows)),
                                     baseline=d.ravel())
    assert not np.allclose(bad[0], g_theta[0], atol=0.05 * np.abs(g_theta[0]).max() + 1e-3)


def test_rdt_learns_a_single_split_exactly():
    rng = np.random.default_rng(0)
    # softmax-linear nodes, numeric feature with a margin
    X = np.c_[rng.uniform(0, 10, 80), np.r_[rng.uniform(0, 3, 40), rng.uniform(6, 10, 40)]]
    y = np.where(X[:, 1] > 4.5, "hi", "lo")
    problem = Binarizer("all").problem(prepare(X, y))
    res, model = solve_rdt(problem, depth=1, axis_aligned=False, epochs=30, random_state=0)
    assert res.objective == 0 and res.tree is None
    # axis-aligned nodes over Boolean attributes: the hardened tree is the single split
    Xb = rng.integers(0, 2, size=(64, 6)).astype(float)
    yb = np.where(Xb[:, 2] > 0, "hi", "lo")
    problem = Binarizer("all").problem(prepare(Xb, yb))
    res, model = solve_rdt(problem, depth=1, epochs=20, random_state=0)
    assert res.status == "FEASIBLE" and res.objective == 0
    assert res.tree.n_splits == 1 and res.tree.root.feature == 2
    assert list(res.tree.predict(Xb)) == list(yb)


def test_rdt_deterministic_and_options():
    X, y, Xt, yt = gaussian_toy(4, n_per_class=20, random_state=0)
    a = ReinforcedDecisionTree(width=2, depth=2, epochs=5, random_state=1).fit(X, y)
    b = ReinforcedDecisionTree(width=2, depth=2, epochs=5, random_state=1).fit(X, y)
    assert np.array_equal(a.alpha, b.alpha) and a.history_ == b.history_
    rt = ReinforcedDecisionTree(width=2, depth=2, epochs=5, random_leaves=True, random_state=1).fit(X, y)
    assert set(np.unique(rt.alpha)) <= {0.0, 1.0} and np.allclose(rt.alpha.sum(axis=1), 1)
    bal = ReinforcedDecisionTree(width=3, depth=2, epochs=1, random_leaves="balanced", random_state=1).fit(X, y)
    per_class = bal.alpha.sum(axis=0)                      # 9 leaves over 4 classes: 3, 2, 2, 2
    assert sorted(per_class) == [2, 2, 2, 3]
    loo = ReinforcedDecisionTree(width=2, depth=2, epochs=3, baseline="loo", random_state=1).fit(X, y)
    assert loo.history_ and np.isfinite(loo.alpha).all()
    with pytest.raises(ValueError, match="baseline"):
        ReinforcedDecisionTree(baseline="mean")
    with pytest.raises(ValueError, match="n_samples"):
        ReinforcedDecisionTree(baseline="loo", n_samples=1)
    h = ReinforcedDecisionTree(width=3, depth=2, epochs=5, loss="hinge", predict="expected").fit(X, y)
    assert h.decision_function(Xt).shape == (len(yt), 4)
    with pytest.raises(ValueError, match="loss"):
        ReinforcedDecisionTree(loss="absolute")
    with pytest.raises(ValueError, match="width"):
        ReinforcedDecisionTree(width=1)


# ------------------------------------------------------------------ estimators and CLI


def _rl_expected_failures(estimator):
    out = {"check_class_weight_classifiers": "class weight 0.0001 is not a whole number: refused by the "
                                             "heuristics, which read weights as repeated rows (documented)"}
    if isinstance(estimator, RDTClassifier):   # whole weights = repeated rows in the same order: tests/test_weights.py
        out["check_sample_weight_equivalence_on_dense_data"] = (
            "the check shuffles the weighted rows; RDT's stochastic gradient steps depend on the order of the rows")
    return out


@parametrize_with_checks([AdaptTreeClassifier(n_episodes=5, max_depth=3, binarization="quantile", n_thresholds=3),
                          RDTClassifier(depth=2, epochs=5, binarization="quantile", n_thresholds=3),
                          RDTClassifier(axis_aligned=False, depth=2, epochs=5)],
                         expected_failed_checks=_rl_expected_failures)
def test_rl_estimators_sklearn_compatible(estimator, check):
    check(estimator)


def test_rl_estimators_on_a_dataset():
    data = load_dataset("monk1")
    ada = AdaptTreeClassifier(n_episodes=20, max_depth=3, random_state=0).fit(data.X, data.labels)
    assert ada.result_.status == "FEASIBLE" and ada.tree_.depth() <= 3 and len(ada.learning_curve_) == 20
    assert ada.result_.objective == ada.tree_.n_splits
    rdt = RDTClassifier(depth=3, random_state=0).fit(data.X, data.labels)
    errors = int((rdt.predict(data.X) != data.labels).sum())
    assert rdt.tree_.depth() <= 3 and rdt.result_.objective == errors
    lin = RDTClassifier(axis_aligned=False, width=3, depth=2, epochs=10).fit(data.X, data.labels)
    assert lin.tree_ is None and lin.model_ is not None
    assert lin.predict_proba(data.X).shape == (data.n_rows, 2)
    with pytest.raises(ValueError, match="width"):
        RDTClassifier(width=3).fit(data.X, data.labels)
    with pytest.raises(ValueError, match="n_episodes"):
        AdaptTreeClassifier(n_episodes=0).fit(data.X, data.labels)


@pytest.mark.parametrize("method", ["adapttree", "rdt"])
def test_cli_rl_methods(method, capsys):
    args = ["solve", "iris", "--method", method, "--json"]
    assert main(args + (["--max-depth", "3"] if method == "rdt" else [])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == method and out["status"] == "FEASIBLE" and out["bound"] is None
    assert 0 <= out["train_accuracy"] <= 1 and out["n_nodes"] == 2 * out["n_leaves"] - 1
    if method == "adapttree":
        assert out["errors"] == 0 and out["objective"] == out["n_leaves"] - 1   # splits of a consistent tree
    else:
        assert out["depth"] <= 3 and out["objective"] == out["errors"]


@pytest.mark.parametrize("column", [1.0, np.nan])
def test_rdt_without_any_test_is_the_majority_leaf(column):
    # constant or all-missing features leave no binary column: the hardened tree picked column 0
    X, y = np.full((6, 2), column), np.array([0, 1, 1] * 2)
    model = RDTClassifier(depth=2, epochs=2).fit(X, y)
    assert model.tree_.n_leaves == 1 and (model.predict(X) == 1).all() and model.result_.objective == 2


def test_adapttree_costs_are_per_user_feature_with_missing_values():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(30, 3)).astype(float)
    y = (X[:, 0] > 1).astype(int)
    X[::5, 1] = np.nan                      # feature 1: two internal copies, one cost
    model = AdaptTreeClassifier(n_episodes=5, costs=[2.0, 1.0, 1.0]).fit(X, y)
    tests = [node.feature for node in model.tree_.root.walk() if not node.is_leaf]
    assert 1 in tests and model.result_.stats["test_cost"] == sum([2.0, 1.0, 1.0][j] for j in tests)
    for costs, got in (([1.0, 1.0], r"shape \(2,\)"), (["a", "b", "c"], "not numbers"), ([1.0, 0.0, 1.0], "positive")):
        with pytest.raises(ValueError, match=got) as err:
            AdaptTreeClassifier(n_episodes=5, costs=costs).fit(X, y)
        assert "\n" not in str(err.value) and "3 positive finite numbers" in str(err.value)
