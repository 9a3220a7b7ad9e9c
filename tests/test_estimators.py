"""scikit-learn estimators: conventions, checks, and that they only wire the engines."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from satdt.data import DataError, load_dataset
from satdt.estimators import (METHODS, BinOCTClassifier, ConsistentTreeClassifier, CPSATTreeClassifier,
                              DPDTClassifier, DPTreeClassifier, MaxSATTreeClassifier, OCTClassifier,
                              make_estimator)
from satdt.methods import spec

# Small settings so that scikit-learn's ~40 checks (random data, up to a few hundred rows) stay fast.
CHECKED = [
    ConsistentTreeClassifier(time_limit=10),
    MaxSATTreeClassifier(max_depth=2, binarization="quantile", n_thresholds=3, time_limit=2),
    DPTreeClassifier(max_depth=2, binarization="quantile", n_thresholds=3, time_limit=2),
    BinOCTClassifier(max_depth=2, binarization="quantile", n_thresholds=3, time_limit=2),
    OCTClassifier(max_depth=2, binarization="quantile", n_thresholds=3, time_limit=2),
    CPSATTreeClassifier(lam=0.01, max_depth=2, binarization="quantile", n_thresholds=3, time_limit=2),
    DPDTClassifier(max_depth=2, cart_depth=2, alphas=np.linspace(0, 0.1, 5)),
]

# Checks that cannot apply, with the reason (filled from real runs only).
SAT_CANNOT: dict[str, str] = {}


# Engines that run several CP-SAT workers are tagged non-deterministic: two fits on the same data
# may return different trees of equal value (or stop at different points under a time limit).
NON_DETERMINISTIC_CANNOT = {
    "check_supervised_y_2d": "compares the predictions of two fits; several CP-SAT workers may "
                             "return different optimal trees",
}


# A consistent tree classifies every training row, so class weights have nothing to weigh.
CONSISTENT_CANNOT = {
    "check_class_weight_classifiers": "a consistent tree has no training error: class weights do not "
                                      "apply (accepted and ignored, as documented)",
}
# The heuristics read whole-number weights as repeated rows and refuse others (this check's
# class weights are 1000 and 0.0001).
HEURISTIC_CANNOT = {
    "check_class_weight_classifiers": "class weight 0.0001 is not a whole number: refused by the "
                                      "heuristics (documented); exact estimators take it",
}


def _expected_failures(estimator):
    if isinstance(estimator, ConsistentTreeClassifier):
        return {**SAT_CANNOT, **CONSISTENT_CANNOT}
    if isinstance(estimator, DPDTClassifier):
        return HEURISTIC_CANNOT
    out = {}
    if estimator.__sklearn_tags__().non_deterministic:
        out.update(NON_DETERMINISTIC_CANNOT)
    return out


@parametrize_with_checks(CHECKED, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# the minimum-size tree by the DP proves its optimum in 2.3-2.6 s at load 3: its checks take ~45 s
@pytest.mark.slow
@parametrize_with_checks([ConsistentTreeClassifier(objective="size", engine="dp", time_limit=6)],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible_min_size(estimator, check):
    check(estimator)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_fits_a_small_dataset(method):
    data = load_dataset("mouse")
    model = make_estimator(method, max_depth=None if method.startswith("sat") else 2, time_limit=60)
    model.fit(data.X, data.labels)
    res = model.result_
    pred = model.predict(data.X)
    errors = int((pred != data.labels).sum())
    assert model.tree_ is res.tree
    # an exact engine proves its optimum on this small set well within the limit; a heuristic
    # proves nothing
    assert res.status == ("OPTIMAL" if spec(method).exact else "FEASIBLE"), res.stats
    if method.startswith("sat"):
        assert errors == 0
    else:
        assert model.tree_.depth() <= 2
    proba = model.predict_proba(data.X)
    assert proba.shape == (data.n_rows, 2) and np.allclose(proba.sum(axis=1), 1)
    assert model.score(data.X, data.labels) == pytest.approx(1 - errors / data.n_rows)
    assert model.n_features_in_ == 5 and list(model.classes_) == list(data.classes)


def test_dataframe_with_text_column_and_feature_names():
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green", "blue", "green"],
                          "size": [1.0, 2.0, 3.0, 1.0, 5.0, 2.0]})
    y = ["a", "b", "a", "b", "b", "a"]
    model = ConsistentTreeClassifier().fit(frame, y)
    assert model.result_.status == "OPTIMAL"
    assert list(model.feature_names_in_) == ["colour", "size"]
    assert list(model.predict(frame)) == y
    with pytest.raises(DataError, match="not seen at fit time"):
        model.predict(pd.DataFrame({"colour": ["purple"], "size": [1.0]}))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame.rename(columns={"size": "SIZE"}))


def test_single_class_gives_single_leaf():
    model = CPSATTreeClassifier(max_depth=2).fit(np.arange(6.0).reshape(-1, 1), ["x"] * 6)
    assert model.tree_.n_nodes == 1 and list(model.predict([[10.0]])) == ["x"]
    assert model.result_.status == "OPTIMAL"


@pytest.mark.parametrize("estimator, message", [
    (ConsistentTreeClassifier(objective="width"), "objective"),
    (ConsistentTreeClassifier(max_depth=-1), "max_depth"),
    (ConsistentTreeClassifier(engine="cp"), "engine"),
    (ConsistentTreeClassifier(binarization="magic"), "binarization"),
    (ConsistentTreeClassifier(time_limit=0), "time_limit"),
    (CPSATTreeClassifier(lam=-0.1), "lam"),
    (CPSATTreeClassifier(num_workers=0), "num_workers"),
    (OCTClassifier(min_leaf=0), "min_leaf"),
    (BinOCTClassifier(max_depth=0), "max_depth"),
    (DPDTClassifier(alpha=float("nan")), "alpha"),
])
def test_bad_parameters_raise_in_fit(estimator, message):
    data = load_dataset("mouse")
    with pytest.raises(ValueError, match=message):
        clone(estimator).fit(data.X, data.labels)


def test_unknown_method_name():
    with pytest.raises(ValueError, match="unknown method 'sat-width'"):
        make_estimator("sat-width")


def test_dp_regularized_matches_cpsat_estimator():
    data = load_dataset("monk3")
    a = DPTreeClassifier(max_depth=2, lam=0.01).fit(data.X, data.labels)
    b = CPSATTreeClassifier(max_depth=2, lam=0.01).fit(data.X, data.labels)
    assert a.result_.status == b.result_.status == "OPTIMAL"
    assert a.result_.objective == pytest.approx(b.result_.objective)
    assert a.result_.objective_name == "regularized"


def test_proven_infeasible_raises_with_the_result_and_its_proof():
    from satdt.estimators import InfeasibleError, NoTreeFoundError

    data = load_dataset("monk3")  # minimum depth of an error-free tree: 6
    model = ConsistentTreeClassifier(objective="depth", engine="dp").fit(data.X, data.labels)
    assert hasattr(model, "tree_")
    for engine in ("sat", "dp"):
        model.set_params(objective="size", max_depth=5, engine=engine)
        with pytest.raises(InfeasibleError, match="INFEASIBLE .proven.: no tree of depth <= 5") as info:
            model.fit(data.X, data.labels)
        assert isinstance(info.value, NoTreeFoundError)        # older `except` clauses still catch it
        assert info.value.result is model.result_ and model.result_.status == "INFEASIBLE"
        assert model.result_.stats["depth_bound"] == 6
        assert not hasattr(model, "tree_")                       # no stale tree from the first fit
    with pytest.raises(InfeasibleError, match="at least 200 training rows"):
        OCTClassifier(max_depth=1, min_leaf=200, time_limit=20).fit(data.X, data.labels)


def test_to_sklearn_on_an_estimator_keeps_names_and_predictions():
    data = load_dataset("iris")
    X = pd.DataFrame(data.X, columns=["sl", "sw", "pl", "pw"])
    model = DPTreeClassifier(max_depth=3).fit(X, data.labels)
    assert model.result_.status == "OPTIMAL"
    sk = model.to_sklearn()
    assert list(sk.feature_names_in_) == ["sl", "sw", "pl", "pw"]
    assert np.array_equal(sk.predict(X), model.predict(X))
    with pytest.raises(Exception, match="fitted|not fitted"):
        DPTreeClassifier().to_sklearn()


def test_sat_tree_classifier_is_a_deprecated_alias():
    """The former name runs the same estimator (same parameters, same tree) and warns on fit."""
    import satdt
    from satdt.estimators import SATTreeClassifier

    data = load_dataset("iris")
    new = ConsistentTreeClassifier(engine="dp").fit(data.X, data.labels)
    old = SATTreeClassifier(engine="dp")
    assert old.get_params() == new.get_params()
    with pytest.warns(FutureWarning, match="use ConsistentTreeClassifier"):
        old.fit(data.X, data.labels)
    assert old.tree_.to_dict() == new.tree_.to_dict()
    assert old.result_.method == new.result_.method
    assert satdt.ConsistentTreeClassifier is ConsistentTreeClassifier
    assert METHODS["sat-size"][0] is ConsistentTreeClassifier
