"""satdt.tree: the shared Tree value type."""

import json

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from satdt.data import load_dataset
from satdt.tree import Node, Tree


def small_tree() -> Tree:
    #        x0 <= 1
    #       /        \
    #   class a    x1 == 2 (categorical)
    #              /     \
    #          class b   class a
    root = Node.split(0, 1.0, Node.leaf(0), Node.split(1, 2.0, Node.leaf(1), Node.leaf(0), category="red"))
    return Tree(root, classes=np.array(["a", "b"]), feature_names=["size", "colour"])


X_SMALL = np.array([[0.5, 2.0], [1.0, 0.0], [3.0, 2.0], [3.0, 1.0], [1.5, 2.0]])
Y_SMALL = np.array([0, 0, 1, 0, 1])


def test_predict_depth_and_sizes():
    t = small_tree()
    assert t.predict(X_SMALL).tolist() == ["a", "a", "b", "a", "b"]
    assert t.depth() == 2 and t.n_nodes == 5 and t.n_leaves == 3 and t.n_splits == 2
    assert Tree(Node.leaf(0), classes=np.array([0, 1])).depth() == 0
    assert t.tests_per_row(X_SMALL).tolist() == [1, 1, 2, 2, 2]
    assert t.average_tests(X_SMALL) == pytest.approx(8 / 5)
    assert t.errors(X_SMALL, Y_SMALL) == 0


def test_predict_proba_from_counts():
    t = small_tree().fit_counts(X_SMALL, Y_SMALL)
    proba = t.predict_proba(X_SMALL)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert proba[0].tolist() == [1.0, 0.0]
    assert t.root.counts.tolist() == [3, 2]


def test_fit_counts_relabel_takes_majority():
    t = small_tree()
    t.root.left.label = 1  # wrong on purpose
    t.fit_counts(X_SMALL, Y_SMALL, relabel=True)
    assert t.root.left.label == 0
    assert t.errors(X_SMALL, Y_SMALL) == 0


def test_prune_removes_empty_sides_and_same_class_siblings():
    # the right split's left side gets no training row; the left split has two leaves of class 0
    root = Node.split(0, 1.0,
                      Node.split(1, 5.0, Node.leaf(0), Node.leaf(0)),
                      Node.split(0, 0.0, Node.leaf(1), Node.leaf(1)))
    X = np.array([[0.0, 1.0], [0.5, 9.0], [2.0, 1.0]])
    y = np.array([0, 0, 1])
    t = Tree(root, classes=np.array([0, 1]))
    before = t.predict_index(X).copy()
    t.prune(X, y)
    assert t.n_nodes == 3 and t.depth() == 1
    assert np.array_equal(t.predict_index(X), before)


def test_dict_and_json_round_trip():
    t = small_tree().fit_counts(X_SMALL, Y_SMALL)
    back = Tree.from_json(json.dumps(t.to_dict()))
    assert np.array_equal(back.predict(X_SMALL), t.predict(X_SMALL))
    assert back.to_dict() == t.to_dict()
    with pytest.raises(ValueError, match="not a satdt tree"):
        Tree.from_dict({"classes": [0, 1], "root": {"feature": 0}})
    with pytest.raises(ValueError, match="not in classes"):
        Tree.from_dict({"classes": [0, 1], "root": {"class": 7}})


def test_text_and_dot_exports_name_features():
    t = small_tree().fit_counts(X_SMALL, Y_SMALL)
    text = t.to_text()
    assert "size <= 1" in text and "colour == red" in text and "colour != red" in text
    assert text.count("class:") == 3
    dot = t.to_dot()
    assert dot.startswith("digraph Tree {") and dot.count("->") == 4


def test_from_sklearn_predicts_identically():
    data = load_dataset("wine")
    model = DecisionTreeClassifier(max_depth=4, random_state=0).fit(data.X, data.y)
    t = Tree.from_sklearn(model, feature_names=data.feature_names)
    assert np.array_equal(t.predict(data.X), model.predict(data.X))
    assert t.depth() == model.get_depth() and t.n_leaves == model.get_n_leaves()
    with pytest.raises(ValueError, match="fitted"):
        Tree.from_sklearn(DecisionTreeClassifier())
