"""Tree.to_sklearn / estimator.to_sklearn: satdt trees as fitted scikit-learn trees."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier, export_graphviz, export_text

from satdt.data import load_dataset
from satdt.estimators import make_estimator
from satdt.tree import Node, Tree


def new_rows(X: np.ndarray, n: int = 3000, seed: int = 0) -> np.ndarray:
    """Random rows around the training range: continuous values, and training values mixed in."""
    rng = np.random.default_rng(seed)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    fresh = rng.uniform(lo - 0.1 * span, hi + 0.1 * span, size=(n, X.shape[1]))
    mixed = X[rng.integers(0, len(X), size=n)]
    take = rng.random((n, X.shape[1])) < 0.5
    return np.vstack([fresh, np.where(take, mixed, fresh)])


def assert_same(model, sk, X):
    assert np.array_equal(sk.predict(X), model.predict(X))


# (method, dataset, options): every engine family, on bundled numeric datasets
CASES = [
    ("sat-depth", "iris", {}),
    ("sat-size", "mouse", {"engine": "dp"}),
    ("dp", "wine", {"max_depth": 3}),
    ("dp", "balance-scale", {"max_depth": 3, "lam": 0.005}),
    ("cpsat", "lung-cancer", {"max_depth": 2, "lam": 0.01, "time_limit": 30}),
    ("maxsat", "iris", {"max_depth": 2}),
    ("binoct", "lung-cancer", {"max_depth": 2, "time_limit": 30}),
    ("dpdt", "wine", {"max_depth": 3}),
    ("dpdt", "lung-cancer", {"max_depth": 2}),
    ("oct", "iris", {"max_depth": 1, "time_limit": 30}),
    ("adapttree", "iris", {"max_depth": 2}),
]


@pytest.mark.parametrize("method, dataset, options", CASES, ids=[f"{m}-{d}" for m, d, _ in CASES])
def test_round_trip_predicts_identically(method, dataset, options):
    from satdt.estimators import METHODS

    if method not in METHODS:
        pytest.skip(f"{method} is not a method of this build")
    data = load_dataset(dataset)
    model = make_estimator(method, **options).fit(data.X, data.labels)
    for sk in (model.to_sklearn(), model.to_sklearn(data.X, data.labels), model.tree_.to_sklearn()):
        assert isinstance(sk, DecisionTreeClassifier)
        assert_same(model, sk, data.X)
        assert_same(model, sk, new_rows(data.X))
        assert sk.get_depth() == model.tree_.depth() and sk.get_n_leaves() == model.tree_.n_leaves
        assert sk.n_features_in_ == data.X.shape[1]
        assert list(sk.classes_) == list(model.classes_)
    proba = model.to_sklearn(data.X, data.labels).predict_proba(data.X)
    assert np.allclose(proba, model.predict_proba(data.X), atol=1e-8)


@pytest.mark.parametrize("method", ["dp", "dpdt"])
def test_rows_at_a_threshold_route_as_satdt(method):
    """A row whose value equals a threshold (decimal data: not a float32 number) goes left."""
    data = load_dataset("wine")
    model = make_estimator(method, max_depth=3).fit(data.X, data.labels)
    sk = model.to_sklearn()
    rows = []
    for node in model.tree_.nodes():
        if not node.is_leaf:
            for i in range(0, len(data.X), 7):
                row = data.X[i].copy()
                row[node.feature] = node.threshold
                rows.append(row)
    assert_same(model, sk, np.array(rows))


def test_thresholds_are_the_nearest_float32():
    t = 2.45  # not a float32 number; it rounds up
    tree = Tree(Node.split(0, t, Node.leaf(0), Node.leaf(1)), classes=np.array([0, 1]))
    thr = tree.to_sklearn().tree_.threshold[0]
    assert thr == float(np.float32(t))
    above = float(np.nextafter(np.float32(t), np.float32(np.inf)))
    assert tree.to_sklearn().predict(np.array([[t], [above], [2.4]])).tolist() == [0, 1, 0]
    # exactly halfway between two float32 values (scikit-learn's own midpoints): the lower one
    one, after = np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(2.0))
    half = (float(one) + float(after)) / 2
    tree = Tree(Node.split(0, half, Node.leaf(0), Node.leaf(1)), classes=np.array([0, 1]))
    X = np.array([[float(one)], [float(after)]])
    assert tree.to_sklearn().predict(X).tolist() == tree.predict(X).tolist() == [0, 1]


def test_threshold_moved_when_a_training_value_rounds_onto_it():
    # 1.00000001 > t = 1.0 but is 1.0 in float32: with the training X the threshold moves
    # down to the float32 before 1.0; without it this row is the documented limit
    X = np.array([[0.9], [1.00000001]])
    tree = Tree(Node.split(0, 1.0, Node.leaf(0), Node.leaf(1)), classes=np.array([0, 1]))
    assert tree.to_sklearn().predict(X).tolist() == [0, 0]
    sk = tree.to_sklearn(X)
    assert sk.predict(X).tolist() == tree.predict(X).tolist() == [0, 1]


def test_values_equal_in_float32_are_refused_with_training_data():
    X = np.array([[1.0], [1.0 + 1e-10], [5.0]])
    y = np.array([0, 1, 1])
    model = make_estimator("dp", max_depth=1).fit(X, y)
    assert model.score(X, y) == 1.0
    with pytest.raises(ValueError, match="float32"):
        model.to_sklearn(X)


def test_categorical_tests_are_refused():
    root = Node.split(0, 1.0, Node.leaf(0), Node.split(1, 2.0, Node.leaf(1), Node.leaf(0), category="red"))
    tree = Tree(root, classes=np.array(["a", "b"]), feature_names=["size", "colour"])
    with pytest.raises(ValueError, match="categorical equality test.*One-hot"):
        tree.to_sklearn()
    frame = pd.DataFrame({"size": [1.0, 2.0, 3.0, 4.0], "colour": ["red", "blue", "red", "blue"]})
    model = make_estimator("dp", max_depth=2).fit(frame, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="'colour'.*one-hot"):
        model.to_sklearn()


def test_feature_names_string_classes_and_a_single_leaf():
    frame = load_dataset("iris")
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    X = pd.DataFrame(frame.X, columns=names)
    y = np.array(["setosa", "versicolor", "virginica"])[frame.y]
    model = make_estimator("dp", max_depth=2).fit(X, y)
    sk = model.to_sklearn()
    assert list(sk.feature_names_in_) == names
    assert np.array_equal(sk.predict(X), model.predict(X))
    assert set(sk.predict(X)) <= {"setosa", "versicolor", "virginica"}
    leaf = Tree(Node.leaf(1, np.array([1.0, 3.0])), classes=np.array(["no", "yes"]))
    sk = leaf.to_sklearn(n_features=2)
    assert sk.predict(np.zeros((3, 2))).tolist() == ["yes"] * 3
    assert np.allclose(sk.predict_proba(np.zeros((1, 2))), [[0.25, 0.75]])


def test_ties_keep_the_satdt_label():
    # a leaf whose label (1) ties with class 0: scikit-learn would predict the first largest
    tree = Tree(Node.split(0, 0.5, Node.leaf(1, np.array([2.0, 2.0])), Node.leaf(0, np.array([3.0, 0.0]))),
                classes=np.array([0, 1]))
    sk = tree.to_sklearn()
    X = np.array([[0.0], [1.0]])
    assert sk.predict(X).tolist() == tree.predict(X).tolist() == [1, 0]
    assert np.allclose(sk.predict_proba(X), tree.predict_proba(X), atol=1e-8)


def test_sklearn_tools_and_pickle_work_on_the_export(tmp_path):
    data = load_dataset("iris")
    model = make_estimator("dp", max_depth=2).fit(data.X, data.labels)
    sk = model.to_sklearn(data.X, data.labels)
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    text = export_text(sk, feature_names=names, show_weights=True)
    assert "petal" in text and "weights: [50.00, 0.00, 0.00]" in text
    assert "digraph" in export_graphviz(sk, feature_names=names)
    assert sk.apply(data.X).shape == (len(data.X),)
    assert sk.decision_path(data.X).shape[0] == len(data.X)
    loaded = pickle.loads(pickle.dumps(sk))
    assert np.array_equal(loaded.predict(data.X), model.predict(data.X))
    import joblib

    joblib.dump(sk, tmp_path / "tree.joblib")
    assert np.array_equal(joblib.load(tmp_path / "tree.joblib").predict(data.X), model.predict(data.X))


def test_plot_tree_draws_the_export():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.tree import plot_tree

    data = load_dataset("iris")
    sk = make_estimator("dp", max_depth=2).fit(data.X, data.labels).to_sklearn(data.X, data.labels)
    fig, ax = plt.subplots()
    artists = plot_tree(sk, feature_names=["a", "b", "c", "d"], ax=ax)
    assert len(artists) >= sk.tree_.node_count
    assert any("c <= 2.45" in a.get_text() for a in artists)
    plt.close(fig)


def test_onnx_export_predicts_identically():
    """skl2onnx and onnxruntime come with the ``onnx`` extra, which ``make setup`` installs."""
    import onnxruntime as ort
    from skl2onnx import to_onnx

    data = load_dataset("wine")
    model = make_estimator("dp", max_depth=3).fit(data.X, data.labels)
    sk = model.to_sklearn(data.X, data.labels)
    X = new_rows(data.X).astype(np.float32)
    onx = to_onnx(sk, X[:1])
    session = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    labels = session.run(None, {session.get_inputs()[0].name: X})[0]
    assert np.array_equal(np.asarray(labels), sk.predict(X))
    assert np.array_equal(sk.predict(X), model.predict(X.astype(float)))


def test_cli_export_sklearn_then_verify_it(tmp_path, capsys):
    import joblib

    from satdt.cli import main

    path = tmp_path / "tree.joblib"
    assert main(["solve", "wine", "--method", "dp", "--max-depth", "2", "--export", "sklearn",
                 "--output", str(path)]) == 0
    sk = joblib.load(path)
    data = load_dataset("wine")
    assert isinstance(sk, DecisionTreeClassifier) and sk.score(data.X, data.labels) == pytest.approx(1 - 6 / 178)
    capsys.readouterr()
    assert main(["verify", "wine", "--sklearn", str(path), "--json"]) == 0
    cert = json.loads(capsys.readouterr().out)
    assert cert["status"] == "OPTIMAL" and cert["tree_value"] == 6
    assert main(["solve", "wine", "--method", "dp", "--export", "sklearn"]) == 2
