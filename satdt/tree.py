"""The decision tree value type shared by every method.

An internal node tests one feature: for a numeric feature a row goes left when
``x[feature] <= threshold`` (a missing value, NaN, goes left when ``missing_left`` is True and
right otherwise: the direction learned with ``missing="learn"``); for a categorical feature (``category`` set) a row goes left when
``x[feature] == threshold`` (the category's code) and right otherwise. A leaf predicts
``label``, an index into ``Tree.classes``. ``counts`` holds the number of training rows of each
class that reach a node (set by :meth:`Tree.fit_counts`).

Engines that work on a binarized matrix build trees over it with threshold 0.5 (a binary column
is True when its row goes right); :meth:`satdt.binarize.BinaryProblem.to_original` maps such a
tree back to the original features.

The exports (text, Graphviz dot, a fitted scikit-learn tree) are functions of a tree in
:mod:`satdt.export`; the methods :meth:`Tree.to_text`, :meth:`Tree.to_dot` and
:meth:`Tree.to_sklearn` call them. JSON (:meth:`Tree.to_dict`, :meth:`Tree.from_dict`) and the
reading of a scikit-learn tree (:meth:`Tree.from_sklearn`) are the value type's own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

from . import export as _export
from .export import class_index

__all__ = ["Node", "Tree"]


@dataclass
class Node:
    """A node: a leaf when ``feature < 0``."""

    feature: int = -1
    threshold: float = float("nan")
    left: "Node | None" = None
    right: "Node | None" = None
    label: int = 0
    counts: np.ndarray | None = None
    category: Any = None
    missing_left: bool | None = None

    @classmethod
    def leaf(cls, label: int, counts: np.ndarray | None = None) -> "Node":
        return cls(label=int(label), counts=counts)

    @classmethod
    def split(cls, feature: int, threshold: float, left: "Node", right: "Node",
              category: Any = None, missing_left: bool | None = None) -> "Node":
        return cls(feature=int(feature), threshold=float(threshold), left=left, right=right,
                   category=category, missing_left=None if missing_left is None else bool(missing_left))

    @property
    def is_leaf(self) -> bool:
        return self.feature < 0

    def goes_left(self, X: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask of the rows of ``X`` (or of ``X[rows]``) sent to the left child.

        Only the tested column is read, so routing never copies whole rows.
        """
        column = X[:, self.feature] if rows is None else X[rows, self.feature]
        if self.category is not None:
            return column == self.threshold
        if self.missing_left:       # a learned direction: missing values (NaN) go left
            return (column <= self.threshold) | np.isnan(column)
        return column <= self.threshold   # NaN <= t is False: missing values go right

    def walk(self) -> Iterator["Node"]:
        """Pre-order traversal."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if not node.is_leaf:
                stack.append(node.right)
                stack.append(node.left)


def _as_float(value: Any) -> float | None:
    """``value`` as a float when it is a number (not a boolean) a float can hold, else None (an integer
    such as ``10**400``: ``float()`` overflows)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _shown(value: Any) -> str:
    """``repr(value)``, cut to 40 characters (an integer of 400 digits in a one-line message)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _split_feature(value: Any) -> int:
    """A split's ``feature`` read from a tree dict: a column index (ValueError for a negative, fractional,
    boolean, non-numeric or too large one: ``int()`` would make a leaf of -1 and column 2 of 2.5)."""
    number = _as_float(value)
    if number is None or not np.isfinite(number) or number < 0 or number != int(number):
        raise ValueError(f"a split's feature must be a column index (an integer >= 0), got {_shown(value)}")
    return int(value)


def _split_threshold(value: Any) -> float:
    """A split's ``threshold`` read from a tree dict: a number a float can hold, not NaN (no row would go
    left: a test of nothing)."""
    number = _as_float(value)
    if number is None or np.isnan(number):
        raise ValueError(f"a split's threshold must be a number (a float), got {_shown(value)}")
    return number


@dataclass
class Tree:
    """A binary classification tree.

    Parameters
    ----------
    root : Node
    classes : ndarray
        Class labels; leaves hold indices into it.
    feature_names : list of str, optional
    """

    root: Node
    classes: np.ndarray
    feature_names: list[str] | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.classes = np.asarray(self.classes)

    # ----------------------------------------------------------------- shape
    def nodes(self) -> list[Node]:
        return list(self.root.walk())

    def depth(self) -> int:
        """Largest number of tests on a root-to-leaf path (a single leaf has depth 0)."""
        best, stack = 0, [(self.root, 0)]
        while stack:
            node, d = stack.pop()
            if node.is_leaf:
                best = max(best, d)
            else:
                stack.extend([(node.left, d + 1), (node.right, d + 1)])
        return best

    @property
    def n_nodes(self) -> int:
        return sum(1 for _ in self.root.walk())

    @property
    def n_leaves(self) -> int:
        return sum(1 for n in self.root.walk() if n.is_leaf)

    @property
    def n_splits(self) -> int:
        return self.n_nodes - self.n_leaves

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def features_used(self) -> set[int]:
        return {n.feature for n in self.root.walk() if not n.is_leaf}

    # ----------------------------------------------------------- prediction
    def apply(self, X: np.ndarray) -> list[tuple[Node, np.ndarray]]:
        """Route rows: a list of ``(leaf, row indices)`` for the leaves that rows reach."""
        X = np.asarray(X)
        out, stack = [], [(self.root, np.arange(X.shape[0]))]
        while stack:
            node, rows = stack.pop()
            if node.is_leaf:
                out.append((node, rows))
                continue
            left = node.goes_left(X, rows)
            stack.append((node.right, rows[~left]))
            stack.append((node.left, rows[left]))
        return out

    def predict_index(self, X: np.ndarray) -> np.ndarray:
        """Predicted class indices."""
        pred = np.zeros(np.asarray(X).shape[0], dtype=np.int64)
        for leaf, rows in self.apply(X):
            pred[rows] = leaf.label
        return pred

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted class labels (values of ``classes``)."""
        return self.classes[self.predict_index(X)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class frequencies of the training rows in each row's leaf (one-hot if a leaf has none)."""
        X = np.asarray(X)
        proba = np.zeros((X.shape[0], self.n_classes))
        for leaf, rows in self.apply(X):
            counts = leaf.counts
            if counts is None or counts.sum() == 0:
                proba[rows, leaf.label] = 1.0
            else:
                proba[rows] = counts / counts.sum()
        return proba

    def tests_per_row(self, X: np.ndarray) -> np.ndarray:
        """Number of tests each row of ``X`` passes through."""
        X = np.asarray(X)
        out, stack = np.zeros(X.shape[0], dtype=np.int64), [(self.root, np.arange(X.shape[0]), 0)]
        while stack:
            node, rows, d = stack.pop()
            if node.is_leaf:
                out[rows] = d
                continue
            left = node.goes_left(X, rows)
            stack.append((node.left, rows[left], d + 1))
            stack.append((node.right, rows[~left], d + 1))
        return out

    def average_tests(self, X: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        """Average number of tests a row of ``X`` passes through (DPDT's complexity)."""
        return float(np.average(self.tests_per_row(X), weights=sample_weight))

    def errors(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
        """Misclassified rows (weighted); ``y`` holds class indices."""
        wrong = self.predict_index(X) != np.asarray(y)
        return float(wrong.sum() if sample_weight is None else np.asarray(sample_weight)[wrong].sum())

    # ------------------------------------------------------------- editing
    def fit_counts(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None,
                   relabel: bool = False) -> "Tree":
        """Store per-node class counts of the rows ``(X, y)``; with ``relabel`` set each leaf's
        label to its majority class (ties: the current label, then the smallest index)."""
        X, y = np.asarray(X), np.asarray(y)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        stack = [(self.root, np.arange(X.shape[0]))]
        while stack:
            node, rows = stack.pop()
            node.counts = np.bincount(y[rows], weights=w[rows], minlength=self.n_classes)
            if node.is_leaf:
                if relabel and node.counts.sum() > 0 and node.counts[node.label] < node.counts.max():
                    node.label = int(np.argmax(node.counts))
                continue
            left = node.goes_left(X, rows)
            stack.append((node.left, rows[left]))
            stack.append((node.right, rows[~left]))
        for node in self.root.walk():
            if not node.is_leaf:
                node.label = int(np.argmax(node.counts))
        return self

    def prune(self, X: np.ndarray | None = None, y: np.ndarray | None = None) -> "Tree":
        """Remove splits that do not change any prediction on the training rows, in place.

        A split with an empty side (no training row, by the stored ``counts`` or the rows given)
        is replaced by its non-empty child; two sibling leaves of the same class are merged.
        Repeats bottom-up until nothing changes. Training errors never change.
        """
        if X is not None:
            self.fit_counts(X, y)

        def empty(node: Node) -> bool:
            return node.counts is not None and node.counts.sum() == 0

        def rec(node: Node) -> Node:
            if node.is_leaf:
                return node
            node.left, node.right = rec(node.left), rec(node.right)
            if empty(node.left) and not empty(node.right):
                return node.right
            if empty(node.right) and not empty(node.left):
                return node.left
            if node.left.is_leaf and node.right.is_leaf and node.left.label == node.right.label:
                counts = None if node.counts is None else node.counts
                return Node.leaf(node.left.label, counts)
            return node

        self.root = rec(self.root)
        return self

    def copy(self) -> "Tree":
        return Tree.from_dict(self.to_dict())

    def relabeled(self, classes: np.ndarray, n_features: int) -> "Tree":
        """A copy for data with these ``classes`` (matched by value, :func:`class_index`) and
        ``n_features`` features; ValueError when it predicts another class or tests a feature
        the data does not have."""
        tree = self.copy()
        if self.classes is not None:
            index = class_index(self.classes, classes)
            for node in tree.root.walk():
                node.label = index[node.label]
        tree.classes = classes
        for node in tree.root.walk():
            if not node.is_leaf and not 0 <= node.feature < n_features:
                raise ValueError(f"the tree tests feature {node.feature}, but the data has "
                                 f"{n_features} features")
        return tree

    # -------------------------------------------------------------- export
    def _node_test(self, node: Node, negate: bool = False) -> str:
        return _export.node_test(self, node, negate)

    def _feature_name(self, j: int) -> str:
        return _export.feature_name(self, j)

    def to_text(self) -> str:
        """An indented, human-readable rendering (:func:`satdt.export.export_text`)."""
        return _export.export_text(self)

    def to_dot(self) -> str:
        """Graphviz dot source (:func:`satdt.export.export_dot`)."""
        return _export.export_dot(self)

    def to_dict(self) -> dict:
        """A JSON-serializable dict (see :meth:`from_dict`)."""

        def rec(node: Node) -> dict:
            d: dict[str, Any] = {}
            if node.counts is not None:
                d["counts"] = [float(c) for c in node.counts]
            if node.is_leaf:
                d["class"] = _jsonable(self.classes[node.label])
                return d
            d.update(feature=node.feature, feature_name=self._feature_name(node.feature),
                     threshold=float(node.threshold), left=rec(node.left), right=rec(node.right))
            if node.category is not None:
                d["category"] = _jsonable(node.category)
            if node.missing_left is not None:
                d["missing"] = "left" if node.missing_left else "right"
            return d

        return {"classes": [_jsonable(c) for c in self.classes],
                "feature_names": None if self.feature_names is None else list(self.feature_names),
                "root": rec(self.root)}

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> "Tree":
        """Rebuild a tree from :meth:`to_dict` output."""
        try:
            classes = list(data["classes"])
            index = {c: i for i, c in enumerate(classes)}

            def rec(d: dict) -> Node:
                counts = np.asarray(d["counts"], dtype=float) if "counts" in d else None
                if "feature" not in d:
                    if d["class"] not in index:
                        raise ValueError(f"leaf class {d['class']!r} is not in classes {classes}")
                    return Node.leaf(index[d["class"]], counts)
                missing = d.get("missing")
                if missing not in (None, "left", "right"):
                    raise ValueError(f"missing must be 'left' or 'right', got {missing!r}")
                node = Node.split(_split_feature(d["feature"]), _split_threshold(d["threshold"]), rec(d["left"]),
                                  rec(d["right"]), category=d.get("category"),
                                  missing_left=None if missing is None else missing == "left")
                node.counts = counts
                return node

            root = rec(data["root"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a satdt tree dict: missing or malformed {exc}") from None
        tree = cls(root=root, classes=np.asarray(classes), feature_names=data.get("feature_names"))
        for node in tree.root.walk():
            if not node.is_leaf and node.counts is not None:
                node.label = int(np.argmax(node.counts))
        return tree

    @classmethod
    def from_json(cls, text: str) -> "Tree":
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_sklearn(cls, model: Any, feature_names: Sequence[str] | None = None) -> "Tree":
        """Convert a fitted scikit-learn ``DecisionTreeClassifier``.

        scikit-learn compares ``float32(x) <= threshold``; this tree compares the float64 ``x``, so
        a row whose value lies within float32 rounding of a threshold may be routed differently.
        :func:`satdt.verify.as_tree` matches splits by routing on the data instead.
        """
        est = getattr(model, "tree_", None)
        if est is None or not hasattr(model, "classes_"):
            raise ValueError("expected a fitted scikit-learn DecisionTreeClassifier")
        if getattr(model, "n_outputs_", 1) != 1:
            raise ValueError("multi-output scikit-learn trees are not supported")
        values = est.value[:, 0, :]

        def rec(i: int) -> Node:
            if est.children_left[i] < 0:
                return Node.leaf(int(np.argmax(values[i])))
            return Node.split(int(est.feature[i]), float(est.threshold[i]),
                              rec(est.children_left[i]), rec(est.children_right[i]))

        if feature_names is None and hasattr(model, "feature_names_in_"):
            feature_names = list(model.feature_names_in_)
        return cls(root=rec(0), classes=np.asarray(model.classes_),
                   feature_names=None if feature_names is None else list(feature_names))

    def to_sklearn(self, X: Any = None, y: Any = None, *, sample_weight: Any = None, n_features: int | None = None,
                   feature_names: Sequence[str] | None = None) -> Any:
        """A fitted scikit-learn ``DecisionTreeClassifier`` that predicts as this tree: see
        :func:`satdt.export.to_sklearn` (parameters, float32 thresholds, errors)."""
        return _export.to_sklearn(self, X, y, sample_weight=sample_weight, n_features=n_features,
                                  feature_names=feature_names)

    def __repr__(self) -> str:
        return (f"Tree(depth={self.depth()}, n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, "
                f"classes={self.classes.tolist()})")


def _jsonable(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
