"""Weights near the ends of the floats (the h45r rehearsal): scikit-learn's semantics make every weight c the same
fit as no weight (a weight of c is the row c times, and the optimum does not move when all rows are scaled), and
weights of a wide range against brute force on the rounded scheme's stated bound."""

import numpy as np
import pytest

from satdt import bruteforce
from satdt.binarize import Binarizer
from satdt.data import Dataset, FeatureSchema
from satdt.estimators import BinOCTClassifier, CPSATTreeClassifier, DPTreeClassifier, MaxSATTreeClassifier


def _instance(seed: int, n: int = 20):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = rng.integers(0, 2, size=n)
    y[:2] = [0, 1]
    return X, y, rng


@pytest.mark.parametrize("c", [1e-300, 5e-324, 1e306])
@pytest.mark.parametrize("make", [lambda: DPTreeClassifier(max_depth=2), lambda: DPTreeClassifier(max_depth=2, lam=0.02),
                                  lambda: MaxSATTreeClassifier(max_depth=2),
                                  lambda: DPTreeClassifier(max_depth=2, class_weight="balanced"),
                                  lambda: DPTreeClassifier(max_depth=2, class_weight={0: 7.5, 1: 0.25})],
                         ids=["dp", "dp-lam", "maxsat", "dp-balanced", "dp-class-weight"])
def test_the_same_weight_on_every_row_is_no_weight(c, make):
    """Uniform weights of 1e-300 or 5e-324 were an OverflowError ('cannot convert Infinity to integer ratio': the
    rounding's scale 2^32 / total passed the floats)."""
    for seed in range(3):
        X, y, _ = _instance(seed)
        plain = make().fit(X, y)
        model = make().fit(X, y, sample_weight=np.full(len(y), c))
        assert str(model.result_.status) == "OPTIMAL"
        assert (model.predict(X) == plain.predict(X)).all() or \
            np.isclose(_errors(model, X, y), _errors(plain, X, y))
        scaled = 1.0 if getattr(model, "lam", None) is not None else c  # (lam: errors over the total weight)
        assert model.result_.objective == pytest.approx(scaled * plain.result_.objective, rel=1e-6)
        res = model.result_  # (the engine's bound in the user's units: the scale read back; 5e-324: one digit)
        assert abs(res.bound - res.objective) <= res.stats.get("weight_rounding_bound", 0.0) + 1e-6 * res.objective \
            + 1e-320


@pytest.mark.parametrize("c", [1e307, 1.7e308])
def test_weights_summing_past_the_floats_are_refused_in_one_line(c):
    """Weights whose sum is past the largest float: 'every row has weight zero after the class weights' (the rounding's
    scale 2^32 / inf was 0) or an OverflowError; now one line that says so."""
    X, y, _ = _instance(0)
    with pytest.raises(ValueError, match="sample_weight sums past the largest float"):
        DPTreeClassifier(max_depth=2).fit(X, y, sample_weight=np.full(len(y), c))


def _errors(model, X, y, w=None) -> float:
    w = np.ones(len(y)) if w is None else w
    return float((w * (model.predict(X) != y)).sum())


@pytest.mark.parametrize("make", [lambda: DPTreeClassifier(max_depth=2), lambda: BinOCTClassifier(max_depth=2),
                                  lambda: CPSATTreeClassifier(max_depth=2, lam=0.0)], ids=["dp", "binoct", "cpsat"])
def test_weights_of_a_wide_range_are_within_the_stated_bound_of_brute_force(make):
    """Weights 1e-300 x (1 .. 2^29) and 1e270 x the same: the rounded optimum within ``weight_rounding_bound`` of the
    brute force on the exact weights (scaled back to whole numbers: the same optimum, in units of the scale)."""
    for seed in range(6):
        X, y, rng = _instance(seed, n=14)
        units = 2.0 ** rng.integers(0, 30, size=len(y))
        problem = Binarizer("all").problem(Dataset(X=X, y=y, classes=np.array([0, 1]),
                                                   schema=FeatureSchema(["a", "b"]), weight=units.astype(np.int64)))
        best = bruteforce.min_errors(problem, 2)[0]
        for scale in (1e-300, 1e270):
            model = make().fit(X, y, sample_weight=units * scale)
            bound = model.result_.stats.get("weight_rounding_bound", 0.0) / scale
            got = _errors(model, X, y, units)
            assert best - 1e-6 * best <= got <= best + bound + 1e-6 * best, (seed, scale, got, best, bound)


@pytest.mark.parametrize("options", [dict(), dict(class_weight="balanced"), dict(class_weight={0: 3.0, 2: 0.5}),
                                     dict(objective="balanced_accuracy"), dict(missing="learn")],
                         ids=["plain", "balanced", "dict", "balanced-accuracy", "missing"])
def test_the_sklearn_export_with_the_training_rows_predicts_the_models_probabilities(options):
    """``to_sklearn(X, y)`` recomputed the node counts from the rows unweighted, so the export's ``predict_proba``
    differed from the model's (weighted by sample_weight x class_weight, as scikit-learn's own trees) by up to 0.3;
    ``to_sklearn(X, y, sample_weight=w)`` now counts as ``fit`` did."""
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X = rng.integers(0, 4, size=(24, 3)).astype(float)
        y = rng.integers(0, 3, size=24)
        y[:3] = [0, 1, 2]
        if "missing" in options:
            X[rng.random(X.shape) < 0.2] = np.nan
        w = rng.integers(0, 4, size=24).astype(float) + rng.random(24)
        model = DPTreeClassifier(max_depth=2, **options).fit(X, y, sample_weight=w)
        Xt = rng.integers(0, 4, size=(30, 3)).astype(float)
        if "missing" in options:
            Xt[rng.random(Xt.shape) < 0.3] = np.nan
        proba, pred = model.predict_proba(Xt), model.predict(Xt)
        major = model.classes_[proba.argmax(1)] == pred  # (a leaf whose label is no majority is one-hot there)
        for export in (model.to_sklearn(), model.to_sklearn(X, y, sample_weight=w)):
            assert (export.predict(Xt) == pred).all()
            assert np.abs(export.predict_proba(Xt) - proba)[major].max(initial=0) < 1e-6, seed
    with pytest.raises(ValueError, match="sample_weight needs"):
        model.to_sklearn(X, sample_weight=w)


def test_a_class_named_twice_in_class_weight_is_refused():
    """``{1: 2, "1": 3}`` on integer labels (a key is matched by value, then by its text) took the last weight
    silently; now one line naming both keys."""
    X, y, _ = _instance(0)
    with pytest.raises(ValueError, match="names the class 1 twice, as 1 and '1'"):
        DPTreeClassifier(max_depth=2, class_weight={1: 2, "1": 3}).fit(X, y)
    assert DPTreeClassifier(max_depth=2, class_weight={1: 2, "0": 3}).fit(X, y).result_.status == "OPTIMAL"
