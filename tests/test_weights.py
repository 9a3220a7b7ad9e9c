"""sample_weight, class_weight, balanced accuracy and cost matrices (satdt.weights) in every engine:
weighted optima against the optima on rows duplicated by the weights, against brute force, and
the refusals."""

import math
from fractions import Fraction

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import DataError, Dataset, FeatureSchema, prepare
from satdt.estimators import (AdaptTreeClassifier, BinOCTClassifier, ConsistentTreeClassifier, CPSATTreeClassifier,
                              DPDTClassifier, DPTreeClassifier, MaxSATTreeClassifier, OCTClassifier,
                              RDTClassifier)
from satdt.solvers.dp import solve_max_accuracy_dp
from satdt.weights import plan_weights


def _instance(seed, n=14, p=3, k=3, values=4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, p)).astype(float)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)                   # every class present
    return X, y, rng


def _problem(X, y, weight=None):
    data = Dataset(X=X, y=np.asarray(y, dtype=np.int64), classes=np.unique(y),
                   schema=FeatureSchema([f"x{j}" for j in range(X.shape[1])]), weight=weight)
    return Binarizer("all").problem(data)


# ------------------------------------------------------------ the integer scheme


def test_plan_integer_and_fraction_weights_are_exact():
    X, y, _ = _instance(0)
    data = prepare(X, y)
    plan = plan_weights(data, np.full(len(y), 0.1))
    assert plan.exact and plan.scale == Fraction(10) and (plan.data.weight == 1).all()
    w = np.array([0.5, 0.25, 1.5, 2.0] * 3 + [0.0, 3.0])
    plan = plan_weights(data, w)
    assert plan.exact and plan.scale == Fraction(4)
    assert list(plan.data.weight) == [int(v * 4) for v in w if v > 0]
    assert len(plan.rows) == len(y) - 1                     # the zero-weight row dropped
    bal = plan_weights(data, None, class_weight="balanced")
    sizes = np.bincount(y)
    # integer weights proportional to 1 / n_c, the smallest such
    per_class = {c: bal.data.weight[bal.data.y == c][0] for c in range(3)}
    ratios = {c: Fraction(int(per_class[c]) * int(sizes[c])) for c in range(3)}
    assert len(set(ratios.values())) == 1


def test_plan_rounds_with_a_stated_bound_when_no_small_denominator():
    X, y, rng = _instance(1)
    w = rng.random(len(y)) * np.pi
    plan = plan_weights(prepare(X, y), w)
    assert not plan.exact and 0 < plan.rounding_bound < 1e-6
    scaled = plan.data.weight / float(plan.scale)
    assert np.abs(scaled - w).max() <= 0.5 / float(plan.scale) + 1e-12


def test_bad_weights_and_options_are_refused():
    X, y, _ = _instance(2)
    with pytest.raises(DataError, match="Negative"):
        DPTreeClassifier(max_depth=1).fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(DataError, match="shape"):
        DPTreeClassifier(max_depth=1).fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(DataError, match="every weight is zero"):
        DPTreeClassifier(max_depth=1).fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(DataError, match="NaN"):
        DPTreeClassifier(max_depth=1).fit(X, y, sample_weight=np.full(len(y), np.nan))
    with pytest.raises(DataError, match="already weighs"):
        DPTreeClassifier(max_depth=1, class_weight="balanced", objective="balanced_accuracy").fit(X, y)
    with pytest.raises(DataError, match="shape"):
        DPTreeClassifier(max_depth=1, costs=np.ones((2, 2))).fit(X, y)
    with pytest.raises(DataError, match="not a class"):
        DPTreeClassifier(max_depth=1, class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="objective must be"):
        DPTreeClassifier(max_depth=1, objective="f1").fit(X, y)
    with pytest.raises(ValueError, match="class_weight must be"):
        DPTreeClassifier(max_depth=1, class_weight="auto").fit(X, y)
    general = np.array([[0, 1, 5], [2, 0, 1], [1, 3, 0]])
    for model in (OCTClassifier(max_depth=1), CPSATTreeClassifier(max_depth=1, time_limit=5),
                  DPTreeClassifier(max_depth=1, lam=0.01)):
        with pytest.raises(ValueError, match="accuracy objective only: DPTreeClassifier"):
            model.set_params(costs=general).fit(X, y)


# ------------------------------------------------ weighted optima = optima on duplicated rows

ENGINES = {
    "dp": lambda: DPTreeClassifier(max_depth=2),
    "dp-lam": lambda: DPTreeClassifier(max_depth=2, lam=0.02),
    "maxsat": lambda: MaxSATTreeClassifier(max_depth=2),
    "binoct": lambda: BinOCTClassifier(max_depth=2, time_limit=60),
    "oct": lambda: OCTClassifier(max_depth=2, alpha=0.01, time_limit=60),
    "cpsat": lambda: CPSATTreeClassifier(lam=0.02, max_depth=2, num_workers=1, time_limit=60),
}
SEEDS = {"dp": 40, "dp-lam": 30, "maxsat": 15, "binoct": 6, "oct": 6, "cpsat": 8}


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_integer_weights_equal_duplicated_rows(engine):
    for seed in range(SEEDS[engine]):
        X, y, rng = _instance(100 + seed, n=12)
        w = rng.integers(0, 4, size=len(y))
        w[:3] = 1 + rng.integers(0, 3, size=3)                  # every class keeps a row
        weighted = ENGINES[engine]().fit(X, y, sample_weight=w)
        repeated = ENGINES[engine]().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
        assert weighted.result_.status == repeated.result_.status == "OPTIMAL", (engine, seed)
        assert weighted.result_.objective == pytest.approx(repeated.result_.objective, abs=1e-9), (engine, seed)
        if engine in ("dp", "maxsat", "binoct"):
            wrong = weighted.predict(X) != y
            assert weighted.result_.objective == pytest.approx(float(w[wrong].sum()))


def test_dp_weighted_optimum_matches_brute_force_both_searches():
    for seed in range(60):
        X, y, rng = _instance(300 + seed, n=16, k=2 + seed % 3)
        w = rng.integers(0, 6, size=len(y))
        w[: len(np.unique(y))] += 1
        problem = _problem(X[w > 0], y[w > 0], weight=w[w > 0].astype(np.int64))
        for depth in (1, 2, 3):
            best, _ = bruteforce.min_errors(problem, depth)
            for search in ("core", "reference"):
                res = solve_max_accuracy_dp(problem, max_depth=depth, engine=search)
                assert res.status == "OPTIMAL" and res.objective == best, (seed, depth, search)


def test_real_valued_weights_exact_fractions_and_rounded():
    for seed in range(25):
        X, y, rng = _instance(500 + seed, n=14)
        frac = rng.choice([0.1, 0.25, 0.5, 1.5, 2.0], size=len(y))
        model = DPTreeClassifier(max_depth=2).fit(X, y, sample_weight=frac)
        assert model.result_.stats["weight_exact"] and model.result_.status == "OPTIMAL"
        problem = _problem(X, y)
        problem.counts = np.zeros(problem.counts.shape)
        np.add.at(problem.counts, (problem.row_of, problem.data.y), frac)
        best, _ = bruteforce.best_tree(problem, 2, lambda c: float(c.sum() - c.max()))
        assert model.result_.objective == pytest.approx(best, abs=1e-9)
        real = rng.random(len(y)) * 3 + 0.01
        model = DPTreeClassifier(max_depth=2).fit(X, y, sample_weight=real)
        bound = model.result_.stats["weight_rounding_bound"]
        assert not model.result_.stats["weight_exact"] and bound < 1e-6
        problem.counts = np.zeros(problem.counts.shape)
        np.add.at(problem.counts, (problem.row_of, problem.data.y), real)
        best, _ = bruteforce.best_tree(problem, 2, lambda c: float(c.sum() - c.max()))
        assert best - 1e-9 <= model.result_.objective <= best + bound + 1e-9


def test_class_weight_dict_and_balanced_equal_their_sample_weights():
    for seed in range(15):
        X, y, rng = _instance(700 + seed, n=15)
        cw = {0: 1.0, 1: 3.0, 2: 0.5}
        a = DPTreeClassifier(max_depth=2, class_weight=cw).fit(X, y)
        b = DPTreeClassifier(max_depth=2).fit(X, y, sample_weight=np.array([cw[c] for c in y]))
        assert a.result_.objective == pytest.approx(b.result_.objective)
        sizes = np.bincount(y)
        bal = DPTreeClassifier(max_depth=2, class_weight="balanced").fit(X, y)
        sw = len(y) / (3 * sizes[y])
        c = DPTreeClassifier(max_depth=2).fit(X, y, sample_weight=sw)
        assert bal.result_.objective == pytest.approx(c.result_.objective)


# ------------------------------------------------------ balanced accuracy and cost matrices


def _balanced_accuracy(y, pred, w=None):
    w = np.ones(len(y)) if w is None else w
    return np.mean([w[(y == c) & (pred == c)].sum() / w[y == c].sum() for c in np.unique(y)])


def test_balanced_accuracy_matches_brute_force_many_instances():
    for seed in range(150):
        k = 2 + seed % 3
        X, y, rng = _instance(900 + seed, n=10 + seed % 9, k=k, values=3 + seed % 3)
        if seed % 4 == 0:                                           # imbalanced, with ties
            y = np.where(rng.random(len(y)) < 0.8, 0, y)
            y[:k] = np.arange(k)
        depth = 1 + seed % 3
        best, _ = bruteforce.min_balanced(_problem(X, y), depth)
        model = DPTreeClassifier(max_depth=depth, objective="balanced_accuracy").fit(X, y)
        res = model.result_
        assert res.status == "OPTIMAL" and res.objective == pytest.approx(best, abs=1e-9), seed
        bacc = _balanced_accuracy(y, model.predict(X))
        assert res.stats["balanced_accuracy"] == pytest.approx(bacc) == pytest.approx(1 - best / k)


@pytest.mark.parametrize("engine", ["maxsat", "binoct", "dp-reference"])
def test_balanced_accuracy_other_engines(engine):
    for seed in range(6 if engine == "binoct" else 20):
        X, y, rng = _instance(1200 + seed, n=12, k=2 + seed % 2)
        best, _ = bruteforce.min_balanced(_problem(X, y), 2)
        if engine == "dp-reference":
            plan = plan_weights(prepare(X, y), objective="balanced_accuracy")
            res = solve_max_accuracy_dp(Binarizer("all").problem(plan.data), max_depth=2, engine="reference")
            value = plan.user_value(res.objective)
        else:
            cls = MaxSATTreeClassifier if engine == "maxsat" else BinOCTClassifier
            value = cls(max_depth=2, objective="balanced_accuracy").fit(X, y).result_.objective
        assert value == pytest.approx(best, abs=1e-9), (engine, seed)


def _costs(rng, k, kind):
    if kind == "int":
        return rng.integers(0, 6, size=(k, k)).astype(float)
    if kind == "real":
        return np.round(rng.random((k, k)) * 4, 2)
    c = rng.integers(1, 5, size=k).astype(float)                   # class weights in disguise
    return np.where(np.eye(k) > 0, 0.0, c[:, None])


def test_costs_match_brute_force_many_instances():
    for seed in range(200):
        k = 2 + seed % 3
        X, y, rng = _instance(1500 + seed, n=10 + seed % 7, k=k)
        C = _costs(rng, k, ("int", "real", "classweight")[seed % 3])
        sw = None if seed % 2 else rng.integers(1, 4, size=len(y))
        problem = _problem(X, y, weight=None if sw is None else sw.astype(np.int64))
        depth = 1 + seed % 3
        best, _ = bruteforce.min_cost(problem, C, depth)
        model = DPTreeClassifier(max_depth=depth, costs=C).fit(X, y, sample_weight=sw)
        res = model.result_
        assert res.status == "OPTIMAL" and res.objective == pytest.approx(best, abs=1e-9), seed
        w = np.ones(len(y)) if sw is None else sw
        assert res.objective == pytest.approx(float((w * C[y, model.tree_.predict_index(X)]).sum()))
        # each leaf predicts a least-cost class of its rows
        for leaf, rows in model.tree_.apply(X):
            per_class = np.bincount(y[rows], weights=w[rows], minlength=k) @ C
            assert per_class[leaf.label] == pytest.approx(per_class.min())


@pytest.mark.parametrize("engine", ["maxsat", "binoct", "dp-lam-classweight", "cpsat-classweight"])
def test_costs_other_engines(engine):
    for seed in range(5 if engine.startswith(("binoct", "cpsat")) else 20):
        k = 2 + seed % 2
        X, y, rng = _instance(1800 + seed, n=11, k=k)
        C = _costs(rng, k, "classweight" if "classweight" in engine else ("int", "real")[seed % 2])
        if engine in ("maxsat", "binoct"):
            best, _ = bruteforce.min_cost(_problem(X, y), C, 2)
            cls = MaxSATTreeClassifier if engine == "maxsat" else BinOCTClassifier
            assert cls(max_depth=2, costs=C).fit(X, y).result_.objective == pytest.approx(best, abs=1e-9)
        else:   # regularized: costs of the true class only are class weights
            cw = {c: float(C[c].max()) for c in range(k)}
            model = (DPTreeClassifier(max_depth=2, lam=0.05) if engine.startswith("dp")
                     else CPSATTreeClassifier(lam=0.05, max_depth=2, num_workers=1, time_limit=60))
            a = model.set_params(costs=C).fit(X, y).result_.objective
            b = model.set_params(costs=None, class_weight=cw).fit(X, y).result_.objective
            assert a == pytest.approx(b, abs=1e-9)


# --------------------------------------------------- consistent trees and the heuristics


def test_consistent_ignores_positive_weights_and_drops_zero_weight_rows():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [3.0, 1.0]])   # (one feature alone on two
    y = np.array([0, 1, 0, 1])                                         # rows hits a box-DP bug on main)
    full = ConsistentTreeClassifier().fit(X, y)
    heavy = ConsistentTreeClassifier().fit(X, y, sample_weight=[5, 1, 2.5, 1])
    assert full.tree_.depth() == heavy.tree_.depth() == 2
    dropped = ConsistentTreeClassifier(engine="sat").fit(X, y, sample_weight=[1, 1, 0, 0])
    assert dropped.tree_.depth() == 1
    assert ConsistentTreeClassifier(class_weight="balanced").fit(X, y).tree_.depth() == 2


def test_consistent_checks_the_class_weight_it_ignores_and_complex_weights_are_refused():
    X, y = np.arange(6, dtype=float).reshape(-1, 1), np.array(["a", "b", "c"] * 2)
    for objective in ("depth", "size"):
        for cw, message in (({"zz": 2.0}, "not a class of y"), ({"a": -1.0}, "finite number >= 0"),
                            ({"a": "x"}, "finite number >= 0")):
            with pytest.raises(DataError, match=message):
                ConsistentTreeClassifier(objective=objective, class_weight=cw).fit(X, y)
    with pytest.raises(DataError, match="real numbers, got ndarray of complex128"):
        DPTreeClassifier(max_depth=1).fit(X, y, sample_weight=np.ones(6) * 1j)


def test_estimators_proof_refuses_the_weight_options_by_name(tmp_path):
    """proof= certifies the unweighted objective on complete data: each option in use is named in
    the one-line refusal (missing values: refused as data the checker cannot read), before any
    solve, and no certificate directory is made."""
    X, y, _ = _instance(2001, n=30, k=3)
    Xm = X.copy()
    Xm[::5, 0] = np.nan
    cases = [(dict(), dict(sample_weight=np.arange(1.0, 31.0)), X, ["sample_weight"]),
             (dict(class_weight="balanced"), dict(), X, ["class_weight"]),
             (dict(objective="balanced_accuracy"), dict(), X, ["objective='balanced_accuracy'"]),
             (dict(costs=np.ones((3, 3)) - np.eye(3), class_weight=None), dict(sample_weight=np.ones(30)), X,
              ["sample_weight", "costs"]),
             (dict(), dict(), Xm, None)]
    for i, (params, fit_kw, data_X, named) in enumerate(cases):
        out = tmp_path / f"c{i}"
        with pytest.raises(ValueError) as err:
            DPTreeClassifier(max_depth=2, proof=str(out), **params).fit(data_X, y, **fit_kw)
        message = str(err.value)
        expected = ("no certificate with " + " / ".join(named) if named else
                    "certificates need every feature value present: the data has missing values")
        assert "\n" not in message and expected in message, message
        assert not out.exists()


@pytest.mark.parametrize("cls", [DPDTClassifier, AdaptTreeClassifier, RDTClassifier])
def test_heuristics_take_whole_weights_as_repeated_rows_and_refuse_others(cls):
    X, y, rng = _instance(2000, n=20, k=2)
    w = rng.integers(0, 3, size=len(y))
    w[:2] = 1
    kwargs = {"max_depth": 2} if cls is not RDTClassifier else {"depth": 2, "epochs": 3}
    if cls is AdaptTreeClassifier:
        kwargs["n_episodes"] = 5
    a = cls(**kwargs).fit(X, y, sample_weight=w)
    b = cls(**kwargs).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert a.tree_.to_dict() == b.tree_.to_dict()
    with pytest.raises(ValueError, match="whole-number weights"):
        cls(**kwargs).fit(X, y, sample_weight=np.full(len(y), 0.5))


# ------------------------------------------------------------------------------ the CLI


def test_cli_class_weight_objective_and_costs(capsys, tmp_path):
    import json

    from satdt.cli import main
    from satdt.data import load_dataset

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    data = load_dataset("iris")
    code, out, _ = run("solve", "iris", "--method", "dp", "--max-depth", "2", "--objective", "balanced-accuracy",
                       "--json")
    got = json.loads(out)
    model = DPTreeClassifier(max_depth=2, objective="balanced_accuracy").fit(data.X, data.labels)
    assert code == 0 and got["objective_name"] == "balanced_errors"
    assert got["objective"] == pytest.approx(model.result_.objective)
    costs = tmp_path / "costs.csv"
    costs.write_text("0,1,1\n5,0,1\n5,1,0\n")
    code, out, _ = run("solve", "iris", "--method", "dp", "--max-depth", "2", "--costs", str(costs), "--json")
    got = json.loads(out)
    C = np.array([[0, 1, 1], [5, 0, 1], [5, 1, 0]])
    best, _ = bruteforce.min_cost(Binarizer("all").problem(data), C, 2)
    assert code == 0 and got["objective_name"] == "cost" and got["objective"] == pytest.approx(best)
    code, out, _ = run("solve", "iris", "--method", "binoct", "--max-depth", "1", "--class-weight", "balanced",
                       "--json")
    assert code == 0 and json.loads(out)["objective_name"] == "weighted_errors"
    code, _, err = run("solve", "iris", "--method", "sat-depth", "--class-weight", "balanced")
    assert code == 2 and "--class-weight does not apply to sat-depth (it applies to: maxsat, dp, binoct, oct, cpsat)" in err
    costs.write_text("0,1\n1,0\n")
    code, _, err = run("solve", "iris", "--method", "dp", "--costs", str(costs))
    assert code == 1 and "costs has shape (2, 2), expected (3, 3)" in err and err.count("\n") == 1


def test_cli_fallback_answers_are_in_the_terms_of_the_weight_options(capsys, tmp_path):
    """A time limit that leaves no time for the estimator: the command's own answer (the majority
    leaf, CART's floor) is relabelled and valued as the estimator would report it (it was the
    unweighted errors' leaf)."""
    import json

    from satdt.cli import main
    from satdt.weights import relabel_for_options
    from satdt.tree import Node, Tree

    rng = np.random.default_rng(5)
    X = rng.integers(0, 5, size=(40, 3)).astype(float)
    y = np.where(X[:, 0] > 2, "yes", np.where(X[:, 1] > 2, "maybe", "no"))
    y[:25] = "no"                                              # "no" the majority class
    csv = tmp_path / "data.csv"
    csv.write_text("a,b,c,label\n" + "".join(",".join(f"{v:g}" for v in r) + f",{l}\n" for r, l in zip(X, y)))
    costs = tmp_path / "costs.csv"
    costs.write_text("0,1,1\n1,0,1\n9,9,0\n")                # classes sorted: maybe, no, yes
    C = np.array([[0, 1, 1], [1, 0, 1], [9, 9, 0]], dtype=float)
    sizes = np.array([(y == c).sum() for c in ("maybe", "no", "yes")])
    for method in ("dp", "maxsat", "binoct"):
        assert main(["solve", str(csv), "--method", method, "--max-depth", "2", "--costs", str(costs),
                     "--time-limit", "0.001", "--json"]) == 0
        got = json.loads(capsys.readouterr().out)
        assert got["status"] == "FEASIBLE" and got["objective_name"] == "cost" and got["bound"] == 0.0
        pred = Tree.from_dict(got["tree"]).predict(X)
        index = {c: i for i, c in enumerate(("maybe", "no", "yes"))}
        assert got["objective"] == pytest.approx(sum(C[index[t], index[p]] for t, p in zip(y, pred)))
        assert got["objective"] <= (sizes @ C).min()
    assert main(["solve", str(csv), "--method", "cpsat", "--max-depth", "2", "--objective", "balanced-accuracy",
                 "--time-limit", "0.001", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["objective_name"] == "regularized" and got["objective"] == pytest.approx(2 / 3 + 0.01)
    # relabel_for_options on the majority leaf against the estimator's terms
    data = prepare(X, y)
    leaf = Tree(Node.leaf(1), classes=data.classes)
    assert relabel_for_options(leaf, data, costs=C) == (float(sizes @ C[:, 2]), 0.0, "cost")
    assert leaf.root.label == 2                                # "yes": the least-cost class
    value, bound, name = relabel_for_options(leaf, data, objective="balanced_accuracy")
    assert (value, bound, name) == (pytest.approx(2.0), 0.0, "balanced_errors")
    with pytest.raises(DataError, match="accuracy objective only"):
        relabel_for_options(leaf, data, costs=[[0, 1, 5], [2, 0, 1], [1, 3, 0]], lam=0.01)


# --------------------------------------------------------------- against STreeD (a peer)


def test_costs_and_balanced_accuracy_equal_streeds_optima():
    pytest.importorskip("pystreed")
    from pystreed import STreeDClassifier
    from pystreed.cost_sensitive_classification import STreeDCostSensitiveClassifier
    from pystreed.data import CostSpecifier, FeatureCostSpecifier

    rng = np.random.default_rng(24)
    for seed in range(30):
        k = 2 + seed % 2
        X = rng.integers(0, 2, size=(30 + seed, 5))
        y = rng.integers(0, k, size=len(X))
        y[:k] = np.arange(k)
        depth = 1 + seed % 3
        C = rng.integers(0, 6, size=(k, k)).astype(float)
        np.fill_diagonal(C, 0)
        spec = CostSpecifier(C.tolist(), [FeatureCostSpecifier(0.0, 0.0, "", 0, 0) for _ in range(X.shape[1])])
        peer = STreeDCostSensitiveClassifier(max_depth=depth).fit(X, y, spec)
        peer_cost = float(C[y, np.asarray(peer.predict(X)).astype(int)].sum())
        ours = DPTreeClassifier(max_depth=depth, costs=C).fit(X.astype(float), y).result_
        assert ours.status == "OPTIMAL" and ours.objective == pytest.approx(peer_cost), seed
        if k == 2:          # STreeD's balanced-accuracy task is for two classes
            peer = STreeDClassifier(optimization_task="balanced-accuracy", max_depth=depth).fit(X, y)
            pred = np.asarray(peer.predict(X)).astype(int)
            peer_bacc = np.mean([(pred[y == c] == c).mean() for c in range(k)])
            ours = DPTreeClassifier(max_depth=depth, objective="balanced_accuracy").fit(X.astype(float), y).result_
            assert ours.stats["balanced_accuracy"] == pytest.approx(peer_bacc), seed


def test_leaf_counts_are_the_users_weights():
    X, y, rng = _instance(2400, n=20)
    w = rng.integers(1, 4, size=len(y)).astype(float)
    cw = {0: 2.0, 1: 1.0, 2: 0.5}
    model = DPTreeClassifier(max_depth=2, class_weight=cw).fit(X, y, sample_weight=w)
    f = w * np.array([cw[c] for c in y])
    for leaf, rows in model.tree_.apply(X):
        assert np.allclose(leaf.counts, np.bincount(y[rows], weights=f[rows], minlength=3))
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1)
    # costs: the leaves count the sample weights of the true classes (not the pseudo rows)
    C = np.array([[0, 1, 4], [2, 0, 1], [3, 3, 0]])
    model = DPTreeClassifier(max_depth=2, costs=C).fit(X, y, sample_weight=w)
    for leaf, rows in model.tree_.apply(X):
        assert np.allclose(leaf.counts, np.bincount(y[rows], weights=w[rows], minlength=3))


def test_balanced_objective_in_the_regularized_and_oct_engines():
    for seed in range(4):
        X, y, rng = _instance(2600 + seed, n=12, k=2)
        y = np.where(rng.random(len(y)) < 0.75, 0, y)
        y[:2] = [0, 1]
        dp = DPTreeClassifier(max_depth=2, lam=0.05, objective="balanced_accuracy").fit(X, y).result_
        cp = CPSATTreeClassifier(lam=0.05, max_depth=2, objective="balanced_accuracy", num_workers=1,
                                 time_limit=60).fit(X, y).result_
        assert cp.status == dp.status == "OPTIMAL" and cp.objective == pytest.approx(dp.objective, abs=1e-9)
        best, _ = bruteforce.min_balanced(_problem(X, y), 2)
        oct_ = OCTClassifier(max_depth=2, alpha=0.0, objective="balanced_accuracy", time_limit=60).fit(X, y)
        pred = oct_.predict(X)
        assert oct_.result_.status == "OPTIMAL"
        assert 2 * (1 - _balanced_accuracy(y, pred)) == pytest.approx(best, abs=1e-9)
        C = np.array([[0.0, 1.0], [4.0, 0.0]])                      # true-class costs: class weights
        a = OCTClassifier(max_depth=2, alpha=0.0, costs=C, time_limit=60).fit(X, y)
        best_c, _ = bruteforce.min_cost(_problem(X, y), C, 2)
        assert float(C[y, a.tree_.predict_index(X)].sum()) == pytest.approx(best_c)


@pytest.mark.parametrize("pair_ops", [0.0, 1e12])
def test_core_bitset_counts_with_class_weight_factors(pair_ops):
    """Weights with a large factor per class (as balanced accuracy's, scaled to integers) times a
    small multiplicity: the compiled core's bit-planes hold each class's weight over its gcd
    (core/search.cpp, unit_) and multiply the popcounts back. Its optimum (the bitset pair solver
    with pair_ops=1e12, the root search by bitsets with 0) equals brute force, and the trees'
    weighted errors agree."""
    for seed in range(40):
        X, y, rng = _instance(4000 + seed, n=16 + seed % 6, p=3, k=2 + seed % 2, values=2 + seed % 3)
        factor = rng.integers(200, 1200, size=int(y.max()) + 1)
        weight = (factor[y] * rng.integers(1, 4, size=len(y))).astype(np.int64)
        problem = _problem(X, y, weight)
        for depth in (2, 3):
            best = bruteforce.min_errors(problem, depth)[0]
            res = solve_max_accuracy_dp(problem, max_depth=depth, pair_ops=pair_ops, n_jobs=1)
            assert res.status == "OPTIMAL" and res.objective == best, (seed, depth)
            assert float(weight[res.tree.predict_index(X) != y].sum()) == best


def _table_search(problem, n_jobs, row_sums=False):
    """The compiled search with the pair solver at every depth-two node; the byte tables for
    weights with many bits (``row_sums=False``) or the row sums where the CPU has them."""
    from satdt.deadline import Deadline
    from satdt.solvers.dp.search import CoreSearch

    search = CoreSearch(problem, Deadline(None), 1e12, n_jobs=n_jobs)  # the pair solver at depth two
    search._core.set_row_sums(row_sums)
    if n_jobs > 1:
        search._core.set_thread_work(0, 0)  # every pair solve on the threads
    return search


@pytest.mark.parametrize("n_jobs, seeds", [(1, range(8)), pytest.param(1, range(8, 24), marks=pytest.mark.slow),
                                           pytest.param(2, range(24), marks=pytest.mark.slow)])
def test_core_pair_counts_by_byte_tables_match_brute_force(n_jobs, seeds):
    """Weights with many bits (whole weights up to 2^20 or 2^30; float sample weights scaled to
    2^32 give 20-odd bits): the compiled pair solver counts a pair's rows by byte tables of the rows' weights
    instead of 20 bit-planes per class (core/depth2.cpp, PairWeights). Its optimum equals brute
    force (with and without the threads), the tree's weighted errors agree, and the tables were
    used (stats pair_tables)."""
    tables = 0
    for seed in seeds:
        X, y, rng = _instance(6100 + seed, n=int(24 + seed % 17), p=3 + seed % 2, k=2 + (seed % 5 == 4),
                              values=7 + seed % 4)
        # up to 2^20 (32-bit table entries; two classes with totals below 2^32: one word for
        # both) or up to 2^30 (64-bit entries, two words)
        weight = rng.integers(1, 2 ** (12 + seed % 9 if seed % 4 else 30), size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        for depth in (2, 3) if seed % 3 == 0 else (2,):
            best = bruteforce.min_errors(problem, depth)[0]
            search = _table_search(problem, n_jobs)
            res = solve_max_accuracy_dp(problem, max_depth=depth, _search=search)
            assert res.status == "OPTIMAL" and res.objective == best, (seed, depth)
            assert float(weight[res.tree.predict_index(X) != y].sum()) == best
            tables += search.stats["pair_tables"]
    assert tables > len(seeds)


def _core_has_row_sums():
    from satdt.solvers.dp import _core

    return bool(_core.has_row_sums)


row_sums = pytest.mark.skipif(not _core_has_row_sums(), reason="the row sums need AVX-512 (F, BW) or AVX2")


@row_sums
@pytest.mark.parametrize("n_jobs, seeds", [(1, range(8)), pytest.param(1, range(8, 30), marks=pytest.mark.slow),
                                           pytest.param(2, range(16), marks=pytest.mark.slow)])
def test_core_pair_row_sums_match_brute_force_and_the_tables(n_jobs, seeds):
    """The pair solver's row sums (core/depth2.cpp, PairWeights::count_root: per root, each of
    its rows' weight added into the 16-column blocks of the columns holding it) for weights with
    many bits: two or three classes, rows merged with weights in several classes (duplicated
    rows with other labels), whole weights up to 2^27 (class totals up to 2^31; the sums are
    32-bit), ties (small weight ranges). The optimum equals brute force, the tree is the byte
    tables' tree (the same counts met in the same order), the weighted errors re-counted agree,
    and the row sums ran (not the tables)."""
    solves = 0
    for seed in seeds:
        X, y, rng = _instance(6500 + seed, n=int(24 + seed % 13), p=4 + seed % 3, k=2 + (seed % 4 == 3),
                              values=4 + seed % 4)
        if seed % 3 == 1:                                   # duplicated rows with another label
            X = np.vstack([X, X[:8]])
            y = np.concatenate([y, (y[:8] + 1) % (int(y.max()) + 1)])
        top = 2 ** (27 if seed % 5 == 0 else 18 + seed % 9)
        lo = top - 3 if seed % 7 == 2 else 1                # seed % 7 == 2: near-equal weights, ties
        weight = rng.integers(lo, top, size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        for depth in (2, 3) if seed % 2 == 0 else (2,):
            best = bruteforce.min_errors(problem, depth)[0]
            rs = _table_search(problem, n_jobs, row_sums=True)
            res = solve_max_accuracy_dp(problem, max_depth=depth, _search=rs)
            assert res.status == "OPTIMAL" and res.objective == best, (seed, depth)
            assert float(weight[res.tree.predict_index(X) != y].sum()) == best
            tb = _table_search(problem, n_jobs, row_sums=False)
            ref = solve_max_accuracy_dp(problem, max_depth=depth, _search=tb)
            assert str(ref.tree) == str(res.tree), (seed, depth)
            assert tb._core.row_sum_solves == 0
            if n_jobs == 1:  # the row sums where the tables were (the threads' clones count apart)
                assert rs.stats["pair_tables"] == 0 and rs._core.row_sum_solves == tb.stats["pair_tables"]
            solves += rs._core.row_sum_solves
    assert solves >= len(seeds) // 2  # n_jobs=2: the depth-3 pair solves run on the clones


@row_sums
@pytest.mark.parametrize("n_jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_core_pair_row_sums_wide_nodes_and_large_totals(n_jobs):
    """Row sums on nodes of 17 to 150 binary columns (one, several and a partial last block of
    16 columns; over 128 columns: two groups of 8 blocks), against the byte tables (the same
    tree) with the weights' errors re-counted; and class totals of 2^32 or more (the 32-bit
    sums would wrap): the tables instead, the same optimum."""
    for seed, p in enumerate((17, 33, 64, 70, 129, 150)):
        rng = np.random.default_rng(6700 + seed)
        n = 90 + 10 * seed
        X = (rng.random((n, p)) < rng.uniform(0.2, 0.8, size=p)).astype(float)
        y = (X[:, :3].sum(axis=1) + rng.integers(0, 2, size=n)) % 2
        weight = rng.integers(1, 2 ** 24, size=n).astype(np.int64)
        problem = _problem(X, y, weight)
        rs = _table_search(problem, n_jobs, row_sums=True)
        res = solve_max_accuracy_dp(problem, max_depth=2, _search=rs)
        tb = _table_search(problem, n_jobs, row_sums=False)
        ref = solve_max_accuracy_dp(problem, max_depth=2, _search=tb)
        assert res.status == ref.status == "OPTIMAL"
        assert res.objective == ref.objective and str(res.tree) == str(ref.tree), p
        assert float(weight[res.tree.predict_index(X) != y].sum()) == res.objective
        assert rs._core.row_sum_solves > 0 and tb.stats["pair_tables"] > 0
    for seed in range(4):                                  # class totals >= 2^32: the tables
        X, y, rng = _instance(6800 + seed, n=30, p=4, k=2, values=5)
        weight = rng.integers(2 ** 28, 2 ** 29, size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        assert max(weight[y == c].sum() for c in (0, 1)) >= 2 ** 32
        best = bruteforce.min_errors(problem, 2)[0]
        rs = _table_search(problem, n_jobs, row_sums=True)
        res = solve_max_accuracy_dp(problem, max_depth=2, _search=rs)
        assert res.objective == best and rs._core.row_sum_solves == 0 and rs.stats["pair_tables"] > 0


@pytest.mark.parametrize("seeds", [range(6), pytest.param(range(6, 24), marks=pytest.mark.slow)])
def test_core_root_search_counts_with_many_weight_planes(seeds):
    """The root search's counts by bitsets (core/view.cpp, count_bits) with weights of many bits
    (over two planes a class: the vector sums of count_planes_avx512 where the CPU has them, the
    column in registers up to 1,024 rows): binary data at depth 3, the pair solver below it
    (pair_ops=1e12) or the root search down to depth one (pair_ops=0), two and three classes,
    merged rows with several classes, against brute force and the numpy reference engine."""
    for seed in seeds:
        X, y, rng = _instance(6900 + seed, n=int(20 + 7 * seed % 50), p=4 + seed % 3, k=2 + (seed % 3 == 2), values=2)
        if seed % 2:                                        # duplicated rows with another label
            X = np.vstack([X, X[:6]])
            y = np.concatenate([y, (y[:6] + 1) % (int(y.max()) + 1)])
        weight = rng.integers(1, 2 ** (8 + 3 * (seed % 7)), size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        best = bruteforce.min_errors(problem, 3)[0]
        for pair_ops in (0.0, 1e12):
            res = solve_max_accuracy_dp(problem, max_depth=3, pair_ops=pair_ops, n_jobs=1)
            assert res.status == "OPTIMAL" and res.objective == best, (seed, pair_ops)
            assert float(weight[res.tree.predict_index(X) != y].sum()) == best
        ref = solve_max_accuracy_dp(problem, max_depth=3, engine="reference")
        assert ref.objective == best


def test_core_root_search_counts_with_many_weight_planes_over_1024_rows():
    """count_bits' vector sums over more than 1,024 rows (the column read from memory per plane):
    1,500 distinct binary rows, weights up to 2^24, depth 2 by the root search (pair_ops=0, its
    children's counts by bitsets) against the pair solver's counts (pair_ops=1e12) and the numpy
    reference engine, the weighted errors re-counted."""
    rng = np.random.default_rng(7000)
    codes = rng.choice(2 ** 12, size=1500, replace=False)
    X = ((codes[:, None] >> np.arange(12)) & 1).astype(float)
    y = (X[:, 0] + X[:, 3] * X[:, 5] + rng.integers(0, 2, size=len(codes))) % 2
    weight = rng.integers(1, 2 ** 24, size=len(y)).astype(np.int64)
    problem = _problem(X, y.astype(np.int64), weight)
    a = solve_max_accuracy_dp(problem, max_depth=2, pair_ops=0.0, n_jobs=1)
    b = solve_max_accuracy_dp(problem, max_depth=2, pair_ops=1e12, n_jobs=1)
    ref = solve_max_accuracy_dp(problem, max_depth=2, engine="reference")
    assert a.status == b.status == "OPTIMAL" and a.objective == b.objective == ref.objective
    assert float(weight[a.tree.predict_index(X) != y].sum()) == a.objective


def test_float_sample_weights_by_byte_tables_within_the_rounding_bound():
    """Random float sample weights (rounded to a 2^32 total: 20-odd bits a row) through the
    estimator on binary data wide enough for the byte tables (the pair solver's counts): the
    objective is brute force's on the real weights within the stated rounding bound."""
    for seed in range(6):
        X, y, rng = _instance(6300 + seed, n=40, p=20, k=2, values=2)
        real = rng.random(len(y)) + 0.05
        model = DPTreeClassifier(max_depth=2, n_jobs=1).fit(X, y, sample_weight=real)
        st = model.result_.stats
        # byte tables, or row sums where the CPU has them (test_core_pair_row_sums_...)
        assert not st["weight_exact"] and (st["pair_tables"] > 0 or _core_has_row_sums())
        problem = _problem(X, y)
        problem.counts = np.zeros(problem.counts.shape)
        np.add.at(problem.counts, (problem.row_of, problem.data.y), real)
        best, _ = bruteforce.best_tree(problem, 2, lambda c: float(c.sum() - c.max()))
        bound = st["weight_rounding_bound"]
        assert best - 1e-9 <= model.result_.objective <= best + bound + 1e-9


def test_fraction_of_a_float_equals_fractions_limit_denominator():
    """``satdt.weights._fraction`` (the continued fraction on plain integers) against its
    definition with ``Fraction.limit_denominator`` on random, decimal, ratio, whole, tiny, huge
    and negative floats."""
    from satdt.weights import _MAX_DENOMINATOR, _fraction

    def reference(x):
        f = Fraction(float(x))
        g = f.limit_denominator(_MAX_DENOMINATOR)
        return g if float(g) == float(x) else f

    rng = np.random.default_rng(77)
    values = list(rng.random(3000) * 10.0 ** rng.integers(-8, 9, size=3000))
    values += [round(float(v), int(r)) for v, r in zip(rng.random(1500) * 100, rng.integers(0, 8, size=1500))]
    values += [int(a) / int(b) for a, b in zip(rng.integers(1, 10 ** 7, size=1500), rng.integers(1, 10 ** 7, size=1500))]
    values += [0.0, 1.0, 2.0, 0.1, 1 / 3, 2 / 3, 1e-300, 5e-324, 1e300, 2.0 ** 60, 999_999.5, 1 / 999_999,
               1 / 1_000_001, 0.05, -0.1, -1 / 7, float(2 ** 53 + 1)]
    for x in values:
        got, want = _fraction(x), reference(x)
        assert got == want and type(got) is Fraction, (x, got, want)


def _plan_reference(data, sample_weight, class_weight=None, costs=None, limit=2 ** 40):
    """The integer weights of the module doc, by their definition on every row: the exact
    integers factor * D / G when D <= 2**80 and their total <= limit, else the rounding."""
    from satdt.weights import ROUND_TOTAL, _fraction, class_factors

    y, k = data.y, len(data.classes)
    fac = class_factors(y, data.classes, class_weight, "accuracy", sample_weight)
    sw = np.asarray(sample_weight, dtype=float)
    whole = bool(np.all(sw == np.round(sw)))
    prod = [(Fraction(int(sw[i])) if whole else _fraction(sw[i])) * fac[y[i]] for i in range(len(y))]
    den = 1
    for p in prod:
        den = den * p.denominator // math.gcd(den, p.denominator) if den < 2 ** 81 else den
    if den <= 2 ** 80:
        ints = [p.numerator * (den // p.denominator) for p in prod]
        g = 0
        for v in ints:
            g = math.gcd(g, v)
        ints = [v // max(g, 1) for v in ints]
        if sum(ints) <= limit:
            return True, np.array(ints, dtype=np.int64)
    f = sw * np.array([float(fac[c]) for c in y])
    ints = np.rint(f * (min(ROUND_TOTAL, limit) / float(f.sum()))).astype(np.int64)
    if ints.sum() > limit:  # (the total kept within the limit: aimed lower by the rows' count)
        ints = np.rint(f * (max(min(ROUND_TOTAL, limit) - len(f), 1) / float(f.sum()))).astype(np.int64)
    return False, ints


@pytest.mark.parametrize("limit", [2 ** 20, 2 ** 40])
def test_plan_weights_stops_early_with_the_same_integers(limit):
    """plan_weights stops looking for a common denominator once a lower bound on the exact total
    (lcm of the denominators / gcd of the numerators seen, times the factors' sum) passes the
    limit: the same integers and the same exact / rounded choice as the definition, on weights
    near the limit (whole, decimal, binary fractions, ratios, random floats, zeros, mixtures),
    with and without class weights."""
    n = 40
    X, y, _ = _instance(5, n=n)
    data = prepare(X, y)
    kinds = []
    for s in range(60):
        r = np.random.default_rng(s)
        kinds += [
            r.integers(1, 2 ** int(r.integers(1, 40)), size=n).astype(float),        # whole, up to the limits
            np.round(r.random(n) * 10, int(r.integers(0, 7))) + 0.001,                 # decimals
            r.integers(1, 2 ** 20, size=n) / 2.0 ** int(r.integers(0, 40)),            # binary fractions
            r.integers(1, 50, size=n) / r.integers(1, 50, size=n),                     # ratios
            r.random(n) + 0.05,                                                        # random floats
            np.where(r.random(n) < 0.3, 0.0, r.integers(1, 4, size=n) / 3.0),          # zeros, thirds
            np.concatenate([np.full(n - 1, 1.0), [2.0 ** int(r.integers(15, 45))]]),   # one huge weight
        ]
    for i, w in enumerate(kinds):
        for cw in (None, "balanced", {0: 0.1, 1: 3, 2: 1 / 7}):
            if i % 3 and cw is not None:
                continue
            plan = plan_weights(data, w, class_weight=cw, limit=limit)
            exact, ints = _plan_reference(data, w, class_weight=cw, limit=limit)
            assert plan.exact == exact, (i, cw)
            keep = ints > 0
            assert np.array_equal(plan.data.weight, ints[keep]), (i, cw)
            assert np.array_equal(plan.rows, np.flatnonzero(keep)), (i, cw)


# ------------------------------------------------------------ the core's count paths (row sums)

# (root search's counts, pair solver's counts) forced on every node (_core.Search.set_count_paths):
# bitsets by planes / pair counts by planes; bitsets by AVX2's row sums / AVX2's row sums;
# row sums by the best the CPU has; scattered adds / byte tables (row sums off)
_COUNT_PATHS = {"planes": ((1, 0), True), "avx2_rows": ((3, 2), True), "rows": ((2, 1), True),
                "adds_tables": ((0, 1), False)}


def _path_search(problem, paths, row_sums, pair_ops):
    from satdt.deadline import Deadline
    from satdt.solvers.dp.search import CoreSearch

    search = CoreSearch(problem, Deadline(None), pair_ops, n_jobs=1)
    search._core.set_count_paths(*paths)
    search._core.set_row_sums(row_sums)
    return search


@pytest.mark.parametrize("seeds", [range(10), pytest.param(range(10, 40), marks=pytest.mark.slow)])
def test_core_count_paths_match_brute_force_with_many_weight_bits(seeds):
    """Weights of many bits (whole weights up to 2^24, as float sample weights become: 20-odd
    bit-planes a class) on every count path of the compiled core forced on every node: the root
    search's counts by bit-planes, by the row sums (AVX2's, and the CPU's best) or by scattered
    adds, the pair solver's by planes, row sums or byte tables (core/view.cpp build_bits and
    count_bits, core/depth2.cpp row_sums_into). Binary data at depths 2 and 3 with the pair
    solver below (pair_ops=1e12) or the root search down to depth one (pair_ops=0), two and three
    classes, merged rows of several classes (the conflicts' row of the counts), near-equal weights
    (ties): each path's optimum equals brute force, its tree is the planes' tree (the same counts
    in the same order) and its weighted errors re-counted agree."""
    for seed in seeds:
        X, y, rng = _instance(7100 + seed, n=int(22 + 5 * seed % 40), p=4 + seed % 3, k=2 + (seed % 3 == 2),
                              values=2)
        if seed % 2:                                        # duplicated rows with another label
            X = np.vstack([X, X[:6]])
            y = np.concatenate([y, (y[:6] + 1) % (int(y.max()) + 1)])
        top = 2 ** (16 + seed % 9)
        lo = top - 3 if seed % 5 == 4 else 1               # near-equal weights: ties
        weight = rng.integers(lo, top, size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        for depth in (2, 3):
            best = bruteforce.min_errors(problem, depth)[0]
            for pair_ops in (0.0, 1e12):
                trees = {}
                for name, (paths, row_sums) in _COUNT_PATHS.items():
                    res = solve_max_accuracy_dp(problem, max_depth=depth,
                                                _search=_path_search(problem, paths, row_sums, pair_ops))
                    assert res.status == "OPTIMAL" and res.objective == best, (seed, depth, pair_ops, name)
                    assert float(weight[res.tree.predict_index(X) != y].sum()) == best
                    trees[name] = str(res.tree)
                assert len(set(trees.values())) == 1, (seed, depth, pair_ops, trees)


def test_core_row_sums_equal_duplicated_rows_and_fall_back_on_large_totals():
    """The row sums forced on (AVX2's and the CPU's best) with whole weights 1-5: the optimum
    equals the unweighted optimum on the rows repeated by their weights; with class totals of
    2^32 or more (the 32-bit sums would wrap) the same forcing falls back to the planes and
    still equals brute force."""
    for seed in range(8):
        X, y, rng = _instance(7300 + seed, n=24 + seed, p=5, k=2 + seed % 2, values=2)
        weight = rng.integers(1, 6, size=len(y)).astype(np.int64)
        repeated = _problem(np.repeat(X, weight, axis=0), np.repeat(y, weight))
        problem = _problem(X, y, weight)
        for depth in (2, 3):
            plain = solve_max_accuracy_dp(repeated, max_depth=depth, n_jobs=1)
            for paths in ((3, 2), (2, 1)):
                for pair_ops in (0.0, 1e12):
                    res = solve_max_accuracy_dp(problem, max_depth=depth,
                                                _search=_path_search(problem, paths, True, pair_ops))
                    assert res.status == plain.status == "OPTIMAL" and res.objective == plain.objective
    for seed in range(4):
        X, y, rng = _instance(7400 + seed, n=30, p=5, k=2, values=2)
        weight = rng.integers(2 ** 28, 2 ** 29, size=len(y)).astype(np.int64)
        problem = _problem(X, y, weight)
        assert max(weight[y == c].sum() for c in (0, 1)) >= 2 ** 32
        best = bruteforce.min_errors(problem, 3)[0]
        for pair_ops in (0.0, 1e12):
            res = solve_max_accuracy_dp(problem, max_depth=3, _search=_path_search(problem, (3, 2), True, pair_ops))
            assert res.objective == best


@pytest.mark.parametrize("paths", [(1, 0), (3, 2), (0, 1)])
def test_float_sample_weights_on_each_count_path_within_the_rounding_bound(paths, monkeypatch):
    """Random float sample weights through the estimator (rounded to a 2^32 total: 20-odd bits a
    row) at depth 3 on binary data, each count path forced on every node (CoreSearch.COUNT_PATHS):
    the objective is brute force's on the real weights within the stated rounding bound, and
    every path returns the same tree."""
    from satdt.solvers.dp.search import CoreSearch

    for seed in range(4):
        X, y, rng = _instance(7500 + seed, n=36, p=6, k=2, values=2)
        real = rng.random(len(y)) + 0.05
        monkeypatch.setattr(CoreSearch, "COUNT_PATHS", paths)
        model = DPTreeClassifier(max_depth=3, n_jobs=1).fit(X, y, sample_weight=real)
        monkeypatch.setattr(CoreSearch, "COUNT_PATHS", None)
        auto = DPTreeClassifier(max_depth=3, n_jobs=1).fit(X, y, sample_weight=real)
        st = model.result_.stats
        assert not st["weight_exact"] and str(model.tree_) == str(auto.tree_)
        problem = _problem(X, y)
        problem.counts = np.zeros(problem.counts.shape)
        np.add.at(problem.counts, (problem.row_of, problem.data.y), real)
        best, _ = bruteforce.best_tree(problem, 3, lambda c: float(c.sum() - c.max()))
        assert best - 1e-9 <= model.result_.objective <= best + st["weight_rounding_bound"] + 1e-9


def _scan_search(problem, n_jobs):
    """The compiled search with ConTree's depth-two scan at every depth-two node of long chains
    (pair_ops=0: no pair solver); two threads run each root's chains on the workers."""
    from satdt.deadline import Deadline
    from satdt.solvers.dp.search import CoreSearch

    search = CoreSearch(problem, Deadline(None), 0.0, n_jobs=n_jobs)
    if n_jobs > 1:
        search._core.set_thread_work(0, 0)  # every scan's chains on the threads
    return search


@pytest.mark.parametrize("n_jobs, seeds", [(1, range(10)), pytest.param(1, range(10, 40), marks=pytest.mark.slow),
                                           pytest.param(2, range(16), marks=pytest.mark.slow)])
def test_core_depth_two_scan_with_many_weight_bits_equals_the_reference(n_jobs, seeds):
    """The depth-two scan (core/scan.cpp) on numeric features (long chains) with weights of many
    bits spread widely (the least weight far below the mean: the blocks' threshold is 8 units of
    the mean weight, so long stretches are summed in blocks and short ones unit by unit), two
    classes (the blocks' path), merged duplicate rows of both classes: the optimum equals the
    numpy reference engine's at depths 2 and 3, the tree's weighted errors re-counted agree, and
    the scan ran."""
    scans = 0
    for seed in seeds:
        rng = np.random.default_rng(7600 + seed)
        n, p = int(rng.integers(40, 260)), 1 + seed % 3
        X = rng.normal(size=(n, p)).round(2)
        if seed % 4 == 1:                                   # duplicated rows with another label
            X = np.vstack([X, X[:8]])
        y = rng.integers(0, 2, size=len(X))
        y[:2] = (0, 1)
        if seed % 4 == 1:
            y[n:] = 1 - y[:8]
        bits = 8 + seed % 17                                # whole weights up to 2^24
        weight = (rng.integers(1, 2 ** bits, size=len(y)) >> rng.integers(0, bits, size=len(y))) + 1
        problem = _problem(X, y, weight.astype(np.int64))
        for depth in (2, 3) if n < 100 else (2,):
            ref = solve_max_accuracy_dp(problem, max_depth=depth, engine="reference")
            search = _scan_search(problem, n_jobs)
            res = solve_max_accuracy_dp(problem, max_depth=depth, _search=search)
            assert res.status == ref.status == "OPTIMAL" and res.objective == ref.objective, (seed, depth)
            assert float(weight[res.tree.predict_index(X) != y].sum()) == res.objective
            scans += search.stats["depth2_scans"]
    assert scans >= len(seeds)
