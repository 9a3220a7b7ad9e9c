"""``DPTreeClassifier(lam=...)`` with sample weights whose exact integers are large (random floats, whole
weights up to 10**7): the weights are scaled to a total the regularized objective's exact integers can carry
at the depth asked, so the fit is the optimum (within ``stats["weight_rounding_bound"]``), not a refusal
that names billions of rows (h44r's rehearsal)."""

from __future__ import annotations

import numpy as np
import pytest

from satdt import bruteforce, load_dataset
from satdt.binarize import Binarizer
from satdt.data import Dataset, prepare
from satdt.estimators import DPTreeClassifier
from satdt.limits import dp_lam_fits, dp_lam_max_total


def _reference(X, y, weight, lam, depth):
    """The least errors_w / W + lam * leaves by brute force, on integer weights (floats x 10**6, rounded:
    1e-6 relative at most, far inside the test's tolerance)."""
    data = prepare(X, y)
    w = np.rint(np.asarray(weight, float) * (1 if np.issubdtype(np.asarray(weight).dtype, np.integer) else 1e6))
    problem = Binarizer("all").problem(Dataset(X=data.X, y=data.y, classes=data.classes, schema=data.schema,
                                               name="ref", weight=w.astype(np.int64)))
    total = float(w.sum())
    return bruteforce.best_tree(problem, depth, lambda c: (c.sum() - c.max()) / total + lam)[0]


def _true_objective(model, X, y, weight, lam):
    wrong = model.predict(X) != y
    return float(np.asarray(weight, float)[wrong].sum() / np.sum(weight)) + lam * model.tree_.n_leaves


@pytest.mark.parametrize("seed", range(12))
def test_dp_lam_with_large_or_float_weights_is_the_weighted_optimum(seed):
    rng = np.random.default_rng(seed)
    n, depth, lam = 14, 1 + seed % 3, (0.01, 0.05, 0.2)[seed % 3]
    X = rng.integers(0, 3, size=(n, 2)).astype(float)
    y = rng.integers(0, 2 + seed % 2, size=n)
    weight = rng.random(n) + 0.01 if seed % 2 else rng.integers(1, 10 ** 7, size=n)
    model = DPTreeClassifier(max_depth=depth, lam=lam).fit(X, y, sample_weight=weight)
    assert str(model.result_.status) == "OPTIMAL"
    tol = model.result_.stats.get("weight_rounding_bound", 0.0) / np.sum(weight) + 1e-5
    ref = _reference(X, y, weight, lam, depth)
    assert abs(model.result_.objective - ref) <= tol
    assert _true_objective(model, X, y, weight, lam) <= ref + 2 * tol


def test_iris_with_random_float_weights_and_lam():
    data = load_dataset("iris")
    weight = np.random.default_rng(0).random(data.n_rows)
    for depth in (2, 3):
        model = DPTreeClassifier(max_depth=depth, lam=0.01).fit(data.X, data.labels, sample_weight=weight)
        assert str(model.result_.status) == "OPTIMAL"


@pytest.mark.parametrize("lam", [0.01, 0.05, 0.3, 1 / 3])
@pytest.mark.parametrize("depth", [1, 3, 6])
def test_the_total_found_is_the_largest_that_fits(lam, depth):
    top = dp_lam_max_total(lam, depth)
    assert dp_lam_fits(lam, top, depth)
    if top < 2 ** 40:
        assert not dp_lam_fits(lam, top + 1, depth)


def test_exact_weights_that_fit_stay_exact():
    """compas with class_weight="balanced" and lam=0.01 at depth 3: exact integers totalling 23,720,712 (the
    most depth 3 carries: 34,517,071) stay exact, as before the limit (a first version halved it: rounded)."""
    data = load_dataset("compas")
    model = DPTreeClassifier(max_depth=3, lam=0.01, class_weight="balanced").fit(data.X, data.labels)
    assert str(model.result_.status) == "OPTIMAL" and model.result_.stats["weight_rounding_bound"] == 0.0


@pytest.mark.parametrize("limit", [1000, 2 ** 20, 34_517_071])
def test_a_rounded_total_stays_within_the_limit(limit):
    from satdt.weights import plan_weights

    rng = np.random.default_rng(limit)
    data = prepare(rng.integers(0, 3, size=(400, 2)).astype(float), rng.integers(0, 2, size=400))
    for _ in range(20):
        plan = plan_weights(data, rng.random(400) + 1e-3, limit=limit)
        assert not plan.exact and int(plan.data.weight.sum()) <= limit


@pytest.mark.parametrize("cls_kw", [dict(), dict(class_weight="balanced"), dict(objective="balanced_accuracy"),
                                    dict(costs=[[0, 1, 1], [5, 0, 5], [2, 2, 0]])])  # (costs as class weights 1, 5, 2)
def test_the_regularized_objective_of_rounded_weights_is_the_users(cls_kw):
    """With rounded weights the regularized objective is evaluated on the user's weights (errors_w / W + lam x
    leaves), as the accuracy objectives are, not read off the rounded integers (which differ by up to the bound)."""
    from satdt.estimators import CPSATTreeClassifier
    from satdt.weights import class_factors

    data = load_dataset("iris")
    weight = np.random.default_rng(1).random(data.n_rows)
    for model in (DPTreeClassifier(max_depth=2, lam=0.01, **cls_kw),
                  CPSATTreeClassifier(max_depth=2, lam=0.01, time_limit=60, **cls_kw)):
        model.fit(data.X, data.labels, sample_weight=weight)
        assert model.result_.stats["weight_rounding_bound"] > 0
        f = np.array([1.0, 5.0, 2.0]) if "costs" in cls_kw else np.array([float(v) for v in class_factors(
            data.y, data.classes, cls_kw.get("class_weight"), cls_kw.get("objective", "accuracy"), weight)])
        w = weight * f[data.y]
        value = w[model.predict(data.X) != data.labels].sum() / w.sum() + 0.01 * model.tree_.n_leaves
        assert model.result_.objective == pytest.approx(value, rel=1e-12)
