"""Export of a :class:`~satdt.tree.Tree`: text, Graphviz dot and a fitted scikit-learn tree.

Functions of a tree, so that :mod:`satdt.tree` stays the value type (its ``to_text``,
``to_dot`` and ``to_sklearn`` methods call these); JSON is the value type's own
(:meth:`~satdt.tree.Tree.to_dict` / :meth:`~satdt.tree.Tree.from_dict`), and so is the reading of
a scikit-learn tree (:meth:`~satdt.tree.Tree.from_sklearn`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only (satdt.tree imports this module)
    from .tree import Node, Tree

__all__ = ["export_text", "export_dot", "to_sklearn", "node_test", "feature_name", "class_index"]


def node_test(tree: Tree, node: Node, negate: bool = False) -> str:
    """The test of ``node`` as text (``name <= t``, ``name == c``; negated: the right branch's)."""
    name = feature_name(tree, node.feature)
    if node.category is not None:
        return f"{name} {'!=' if negate else '=='} {node.category}"
    text = f"{name} {'>' if negate else '<='} {node.threshold:.6g}"
    if node.missing_left is not None and bool(node.missing_left) != negate:
        text += " or missing"
    return text

def feature_name(tree: Tree, j: int) -> str:
    """The name of feature ``j`` (``x{j}`` without feature names)."""
    if tree.feature_names is not None and 0 <= j < len(tree.feature_names):
        return str(tree.feature_names[j])
    return f"x{j}"


def export_text(tree: Tree) -> str:
    """An indented, human-readable rendering."""
    lines: list[str] = []

    def leaf_text(node: Node) -> str:
        text = f"class: {tree.classes[node.label]}"
        if node.counts is not None:
            text += f"  (rows: {_fmt_counts(node.counts)})"
        return text

    def rec(node: Node, indent: str) -> None:
        if node.is_leaf:
            lines.append(indent + leaf_text(node))
            return
        for child, negate in ((node.left, False), (node.right, True)):
            lines.append(f"{indent}|--- {node_test(tree, node, negate)}")
            if child.is_leaf:
                lines.append(f"{indent}|   |--- {leaf_text(child)}")
            else:
                rec(child, indent + "|   ")

    rec(tree.root, "")
    return "\n".join(lines)

def export_dot(tree: Tree) -> str:
    """Graphviz dot source."""
    out = ["digraph Tree {", 'node [shape=box, fontname="helvetica"];']
    ids: dict[int, int] = {}
    for i, node in enumerate(tree.root.walk()):
        ids[id(node)] = i
        label = (f"class = {tree.classes[node.label]}" if node.is_leaf
                 else node_test(tree, node))
        if node.counts is not None:
            label += f"\\nrows = {_fmt_counts(node.counts)}"
        out.append(f'{i} [label="{label}"];')
    for node in tree.root.walk():
        if not node.is_leaf:
            out.append(f'{ids[id(node)]} -> {ids[id(node.left)]} [label="yes"];')
            out.append(f'{ids[id(node)]} -> {ids[id(node.right)]} [label="no"];')
    out.append("}")
    return "\n".join(out)


def to_sklearn(tree: Tree, X: Any = None, y: Any = None, *, sample_weight: Any = None, n_features: int | None = None,
               feature_names: Sequence[str] | None = None) -> Any:
    """A fitted scikit-learn ``DecisionTreeClassifier`` that predicts as ``tree``.

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
    sample_weight : array-like, optional
        With ``y``: each row's weight in those counts (as scikit-learn's trees count them).
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

    for node in tree.root.walk():
        if not node.is_leaf and node.category is not None:
            raise ValueError(
                f"the tree tests {feature_name(tree, node.feature)} == {node.category!r}, a "
                "categorical equality test; a scikit-learn tree compares numbers with <= only. "
                "One-hot encode categorical columns (e.g. pandas.get_dummies) before fitting, "
                "then each category is a 0/1 column tested with <= 0.5")
    fitted = tree
    Xa = None
    if X is not None:
        Xa = np.asarray(X, dtype=float)
        if Xa.ndim != 2:
            raise ValueError(f"X must be two-dimensional, got shape {Xa.shape}")
        if y is not None:
            fitted = tree.copy()
            fitted.fit_counts(Xa, np.asarray(class_index(np.asarray(y), tree.classes), dtype=np.int64),
                              sample_weight=sample_weight)
    elif y is not None:
        raise ValueError("y needs X: the class counts are computed from (X, y)")
    if sample_weight is not None and y is None:
        raise ValueError("sample_weight needs X and y: the weights count the rows (X, y)")
    if n_features is None:
        if Xa is not None:
            n_features = Xa.shape[1]
        elif feature_names is not None:
            n_features = len(feature_names)
        elif tree.feature_names is not None:
            n_features = len(tree.feature_names)
        else:
            n_features = max(tree.features_used(), default=-1) + 1
    n_features = max(int(n_features), 1)
    for node in fitted.root.walk():
        if not node.is_leaf and not 0 <= node.feature < n_features:
            raise ValueError(f"the tree tests feature {node.feature}, but the model has "
                             f"{n_features} features")
    if Xa is not None and Xa.shape[1] != n_features:
        raise ValueError(f"X has {Xa.shape[1]} features, but the model has {n_features}")
    if feature_names is not None and len(feature_names) != n_features:
        raise ValueError(f"{len(feature_names)} feature names for {n_features} features")

    order = list(fitted.root.walk())                      # pre-order: the root is node 0
    index = {id(node): i for i, node in enumerate(order)}
    k = fitted.n_classes
    counts = _subtree_counts(fitted.root, k)
    nodes = np.zeros(len(order), dtype=sk_tree.NODE_DTYPE)
    values = np.zeros((len(order), 1, k))
    rows_at = {id(fitted.root): None if Xa is None else np.arange(Xa.shape[0])}
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
                                              Xa[rows, node.feature], feature_name(tree, node.feature))
        # NaN goes right (NaN <= t is False) unless the node learned missing values go left
        rec["missing_go_to_left"] = 1 if node.missing_left else 0
        if rows is not None:
            left = node.goes_left(Xa, rows)
            rows_at[id(node.left)], rows_at[id(node.right)] = rows[left], rows[~left]

    model = DecisionTreeClassifier(max_depth=max(fitted.depth(), 1))
    sk = sk_tree.Tree(n_features, np.array([k], dtype=np.intp), 1)
    sk.__setstate__({"max_depth": fitted.depth(), "node_count": len(order), "nodes": nodes,
                     "values": np.ascontiguousarray(values)})
    model.tree_ = sk
    model.n_features_in_ = n_features
    model.n_outputs_ = 1
    model.classes_ = np.asarray(tree.classes)
    model.n_classes_ = np.intp(k)
    model.max_features_ = n_features
    if feature_names is not None:
        model.feature_names_in_ = np.asarray([str(f) for f in feature_names], dtype=object)
    return model


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
