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

Why one module of ~620 lines: it is the one value type every part of satdt reads and writes, and
each of its jobs is a method of :class:`Tree` (evaluation, pruning, text / dot / JSON export, the
scikit-learn conversions). The scikit-learn conversions (:meth:`Tree.from_sklearn`,
:meth:`Tree.to_sklearn` and their helpers at the end, ~230 lines) are the one seam; moved to a
module of their own they would still be methods here, so a reader would meet them in two places.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

import numpy as np

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
        name = self._feature_name(node.feature)
        if node.category is not None:
            return f"{name} {'!=' if negate else '=='} {node.category}"
        text = f"{name} {'>' if negate else '<='} {node.threshold:.6g}"
        if node.missing_left is not None and bool(node.missing_left) != negate:
            text += " or missing"
        return text

    def _feature_name(self, j: int) -> str:
        if self.feature_names is not None and 0 <= j < len(self.feature_names):
            return str(self.feature_names[j])
        return f"x{j}"

    def to_text(self) -> str:
        """An indented, human-readable rendering."""
        lines: list[str] = []

        def leaf_text(node: Node) -> str:
            text = f"class: {self.classes[node.label]}"
            if node.counts is not None:
                text += f"  (rows: {_fmt_counts(node.counts)})"
            return text

        def rec(node: Node, indent: str) -> None:
            if node.is_leaf:
                lines.append(indent + leaf_text(node))
                return
            for child, negate in ((node.left, False), (node.right, True)):
                lines.append(f"{indent}|--- {self._node_test(node, negate)}")
                if child.is_leaf:
                    lines.append(f"{indent}|   |--- {leaf_text(child)}")
                else:
                    rec(child, indent + "|   ")

        rec(self.root, "")
        return "\n".join(lines)

    def to_dot(self) -> str:
        """Graphviz dot source."""
        out = ["digraph Tree {", 'node [shape=box, fontname="helvetica"];']
        ids: dict[int, int] = {}
        for i, node in enumerate(self.root.walk()):
            ids[id(node)] = i
            label = (f"class = {self.classes[node.label]}" if node.is_leaf
                     else self._node_test(node))
            if node.counts is not None:
                label += f"\\nrows = {_fmt_counts(node.counts)}"
            out.append(f'{i} [label="{label}"];')
        for node in self.root.walk():
            if not node.is_leaf:
                out.append(f'{ids[id(node)]} -> {ids[id(node.left)]} [label="yes"];')
                out.append(f'{ids[id(node)]} -> {ids[id(node.right)]} [label="no"];')
        out.append("}")
        return "\n".join(out)

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
                node = Node.split(int(d["feature"]), float(d["threshold"]), rec(d["left"]),
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

    def to_sklearn(self, X: Any = None, y: Any = None, *, n_features: int | None = None,
                   feature_names: Sequence[str] | None = None) -> Any:
        """A fitted scikit-learn ``DecisionTreeClassifier`` that predicts as this tree.

        The result works wherever a fitted scikit-learn tree does: ``predict``,
        ``predict_proba``, ``sklearn.tree.export_text`` / ``plot_tree`` / ``export_graphviz``,
        pickling, pipelines, ONNX export (skl2onnx).

        Parameters
        ----------
        X : array-like of shape (n_rows, n_features), optional
            Training rows (numeric, as this tree reads them). With ``X``, every threshold is
            checked on the rows that reach its node and moved if float32 rounding would route
            one of them differently; ValueError if no float32 threshold can.
        y : array-like, optional
            Labels of ``X`` (values of ``classes``): the node class counts (``value``,
            ``samples``, impurity) are recomputed from ``(X, y)``; otherwise the stored counts
            are used.
        n_features : int, optional
            ``n_features_in_`` of the model (default: ``X``'s columns, else the number of
            feature names, else the largest tested feature + 1).
        feature_names : sequence of str, optional
            Stored as ``feature_names_in_`` (scikit-learn then checks DataFrame columns).

        Notes
        -----
        scikit-learn casts ``X`` to float32 and sends a row left when ``float32(x[f]) <=
        threshold``; satdt compares the float64 ``x[f] <= t``. Each threshold becomes the float32
        value nearest to ``t`` (the lower one when ``t`` lies exactly halfway between two, as
        scikit-learn's own midpoints do), so a row whose value equals ``t`` goes left as here,
        and a midpoint ``t`` between two training values (every binarization here) routes every
        training row as satdt does unless those two values are equal in float32 (then no
        float32 threshold separates them; with ``X`` given this raises ValueError). The limit,
        for data that are not float32 numbers: a value within one float32 step of ``t``
        (relative 1.2e-7) may be routed differently, since scikit-learn rounds it before
        comparing. Pass the training ``X`` to rule that out on the training rows.

        Every leaf predicts its satdt label, so ``predict`` equals :meth:`predict` wherever the
        routing does (every training row, unless ValueError). ``predict_proba`` equals this tree's
        (class frequencies of the training rows in the leaf), except that a leaf whose label
        ties with another class gets 1e-9 more for its label (scikit-learn predicts the first
        largest value) and a leaf whose label is not a majority of its counts is one-hot.

        Raises
        ------
        ValueError
            A categorical equality test (``x == category``): scikit-learn trees compare numbers
            with ``<=`` only. One-hot encode such columns (``pandas.get_dummies``) before fitting,
            so each category is a 0/1 column tested with ``<= 0.5``.
        """
        from sklearn.tree import DecisionTreeClassifier
        from sklearn.tree import _tree as sk_tree

        for node in self.root.walk():
            if not node.is_leaf and node.category is not None:
                raise ValueError(
                    f"the tree tests {self._feature_name(node.feature)} == {node.category!r}, a "
                    "categorical equality test; a scikit-learn tree compares numbers with <= only. "
                    "One-hot encode categorical columns (e.g. pandas.get_dummies) before fitting, "
                    "then each category is a 0/1 column tested with <= 0.5")
        tree = self
        Xa = None
        if X is not None:
            Xa = np.asarray(X, dtype=float)
            if Xa.ndim != 2:
                raise ValueError(f"X must be two-dimensional, got shape {Xa.shape}")
            if y is not None:
                tree = self.copy()
                tree.fit_counts(Xa, np.asarray(class_index(np.asarray(y), self.classes), dtype=np.int64))
        elif y is not None:
            raise ValueError("y needs X: the class counts are computed from (X, y)")
        if n_features is None:
            if Xa is not None:
                n_features = Xa.shape[1]
            elif feature_names is not None:
                n_features = len(feature_names)
            elif self.feature_names is not None:
                n_features = len(self.feature_names)
            else:
                n_features = max(self.features_used(), default=-1) + 1
        n_features = max(int(n_features), 1)
        for node in tree.root.walk():
            if not node.is_leaf and not 0 <= node.feature < n_features:
                raise ValueError(f"the tree tests feature {node.feature}, but the model has "
                                 f"{n_features} features")
        if Xa is not None and Xa.shape[1] != n_features:
            raise ValueError(f"X has {Xa.shape[1]} features, but the model has {n_features}")
        if feature_names is not None and len(feature_names) != n_features:
            raise ValueError(f"{len(feature_names)} feature names for {n_features} features")

        order = list(tree.root.walk())                      # pre-order: the root is node 0
        index = {id(node): i for i, node in enumerate(order)}
        k = tree.n_classes
        counts = _subtree_counts(tree.root, k)
        nodes = np.zeros(len(order), dtype=sk_tree.NODE_DTYPE)
        values = np.zeros((len(order), 1, k))
        rows_at = {id(tree.root): None if Xa is None else np.arange(Xa.shape[0])}
        for i, node in enumerate(order):
            c = counts[id(node)]
            total = float(c.sum())
            rec = nodes[i]
            rec["impurity"] = 1.0 - float(((c / total) ** 2).sum()) if total > 0 else 0.0
            rec["n_node_samples"] = int(round(total))
            rec["weighted_n_node_samples"] = total
            values[i, 0] = _leaf_value(c, node.label, k) if node.is_leaf else (
                c / total if total > 0 else np.eye(k)[node.label])
            if node.is_leaf:
                rec["left_child"] = rec["right_child"] = sk_tree.TREE_LEAF
                rec["feature"] = sk_tree.TREE_UNDEFINED
                rec["threshold"] = sk_tree.TREE_UNDEFINED
                continue
            rec["left_child"], rec["right_child"] = index[id(node.left)], index[id(node.right)]
            rec["feature"] = node.feature
            rows = rows_at.pop(id(node), None)
            rec["threshold"] = _float32_threshold(node.threshold, None if rows is None else
                                                  Xa[rows, node.feature], self._feature_name(node.feature))
            # NaN goes right (NaN <= t is False) unless the node learned missing values go left
            rec["missing_go_to_left"] = 1 if node.missing_left else 0
            if rows is not None:
                left = node.goes_left(Xa, rows)
                rows_at[id(node.left)], rows_at[id(node.right)] = rows[left], rows[~left]

        model = DecisionTreeClassifier(max_depth=max(tree.depth(), 1))
        sk = sk_tree.Tree(n_features, np.array([k], dtype=np.intp), 1)
        sk.__setstate__({"max_depth": tree.depth(), "node_count": len(order), "nodes": nodes,
                         "values": np.ascontiguousarray(values)})
        model.tree_ = sk
        model.n_features_in_ = n_features
        model.n_outputs_ = 1
        model.classes_ = np.asarray(self.classes)
        model.n_classes_ = np.intp(k)
        model.max_features_ = n_features
        if feature_names is not None:
            model.feature_names_in_ = np.asarray([str(f) for f in feature_names], dtype=object)
        return model

    def __repr__(self) -> str:
        return (f"Tree(depth={self.depth()}, n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, "
                f"classes={self.classes.tolist()})")


def _subtree_counts(root: Node, n_classes: int) -> dict[int, np.ndarray]:
    """Class counts of every node (by ``id``): its stored ``counts``, else the sum over its
    children (zeros for a leaf without counts)."""
    out: dict[int, np.ndarray] = {}

    def rec(node: Node) -> np.ndarray:
        if node.is_leaf:
            c = np.zeros(n_classes) if node.counts is None else np.asarray(node.counts, dtype=float)
        else:
            below = rec(node.left) + rec(node.right)
            c = below if node.counts is None else np.asarray(node.counts, dtype=float)
        out[id(node)] = c
        return c

    rec(root)
    return out


def _leaf_value(counts: np.ndarray, label: int, n_classes: int) -> np.ndarray:
    """A leaf's scikit-learn ``value`` (class fractions) whose first largest entry is ``label``."""
    total = float(counts.sum())
    if total <= 0 or counts[label] < counts.max():
        return np.eye(n_classes)[label]
    value = counts / total
    if np.argmax(value) != label:       # a tie: scikit-learn predicts the first largest value
        value[label] += 1e-9
        value /= value.sum()
    return value


def _float32_threshold(t: float, column: np.ndarray | None, name: str) -> float:
    """A threshold ``c`` (a float32 value) such that ``float32(x) <= c`` routes as ``x <= t``.

    ``c`` is the float32 value nearest to ``t`` (so ``x == t`` goes left), the lower one when
    ``t`` is exactly halfway between two float32 values; with ``column`` (the values of the
    rows that reach the node), ``c`` is moved as little as needed to route each of them as
    ``x <= t``, and ValueError is raised if two of them on both sides of ``t`` are equal in
    float32.
    """
    with np.errstate(over="ignore"):
        c = np.float32(t)
        if np.isfinite(c) and float(c) > t:
            below = np.nextafter(c, np.float32(-np.inf))
            if (float(below) + float(c)) / 2 == t:   # halfway: the values around t are float32
                c = below
        elif not np.isfinite(c) and float(c) > t:   # beyond float32's range
            c = np.float32(np.finfo(np.float32).max)
        if column is None or column.size == 0:
            return float(c)
        x32 = column.astype(np.float32)
    left = column <= t
    if np.array_equal(x32 <= c, left):
        return float(c)
    lo = x32[left].max() if left.any() else np.float32(-np.inf)
    hi = x32[~left].min() if (~left).any() else np.float32(np.inf)
    if lo >= hi:
        a, b = column[left][x32[left] == lo][0], column[~left][x32[~left] == hi][0]
        raise ValueError(
            f"cannot export the split {name} <= {t!r} to scikit-learn: the values {a!r} and "
            f"{b!r} fall on both sides of it but are both {float(lo)!r} in float32, the "
            "precision at which scikit-learn reads X")
    c = lo if c < lo else np.nextafter(hi, np.float32(-np.inf))
    return float(c)


def _fmt_counts(counts: np.ndarray) -> str:
    return "[" + ", ".join(f"{c:g}" for c in counts) + "]"


def _jsonable(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


def class_index(tree_classes: Any, data_classes: np.ndarray) -> list[int]:
    """Position in ``data_classes`` of each of ``tree_classes``, matched by value (1 and 1.0 and
    "1" alike); ValueError for a class the data does not have."""
    lookup = {_class_key(c): i for i, c in enumerate(np.asarray(data_classes).tolist())}
    out = []
    for c in np.asarray(tree_classes).tolist():
        if _class_key(c) not in lookup:
            raise ValueError(f"the tree predicts class {c!r}, which is not a class of the data "
                             f"({np.asarray(data_classes).tolist()})")
        out.append(lookup[_class_key(c)])
    return out


def _class_key(value: Any) -> Any:
    try:
        f = float(value)
        return f if np.isfinite(f) else str(value)
    except (TypeError, ValueError):
        return str(value)
