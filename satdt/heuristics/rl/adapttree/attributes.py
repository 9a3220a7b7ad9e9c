"""ADAPTTREE0's attributes: the binary columns and the multiway features of a
:class:`~satdt.binarize.BinaryProblem`, their splitting statistics, the count of tests of a tree
(one multiway node = one test), ID3 over them, the exact fewest tests (a reference for small
discrete problems) and the paper's 7-attribute problem. See :mod:`satdt.heuristics.rl.adapttree`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ....binarize import BinaryProblem
from ....tree import Node, Tree

__all__ = ["MULTIWAY", "attributes", "Attributes", "split_statistics", "count_tests", "min_multiway_tests",
           "id3_tree", "paper_problem", "feature_costs", "check_feature_costs", "class_entropy", "gini_impurity"]

MULTIWAY = ("none", "categorical", "discrete")


# ------------------------------------------------------------------------ split statistics
def class_entropy(counts: np.ndarray) -> np.ndarray:
    """Class entropy in bits along the last axis (0 for an empty set)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=-1)


def gini_impurity(counts: np.ndarray) -> np.ndarray:
    """Gini impurity along the last axis (0 for an empty set)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = np.divide(counts, total, out=np.zeros_like(counts, dtype=float), where=total > 0)
    return 1.0 - (p * p).sum(axis=-1)


def split_statistics(problem: BinaryProblem, rows: np.ndarray, attributes: np.ndarray | None = None
                     ) -> dict[str, np.ndarray]:
    """Statistics of splitting the distinct rows ``rows`` by each attribute (binary column).

    Returns a dict of arrays over the attributes that split the rows (both sides non-empty):
    ``attr``, ``right`` / ``left`` class counts (a, C), ``info_gain`` (bits), ``gain_ratio``,
    ``gini_gain``, ``pure`` (share of rows in pure children), and the part's ``counts``,
    ``entropy`` and ``gini``.
    """
    counts = problem.counts[rows].astype(float)
    total = counts.sum(axis=0)
    cols = np.arange(problem.n_binary) if attributes is None else np.asarray(attributes)
    right = problem.X[np.ix_(rows, cols)].T.astype(float) @ counts        # (a, C)
    left = total[None, :] - right
    w_r, w_l, w = right.sum(axis=1), left.sum(axis=1), total.sum()
    ok = (w_r > 0) & (w_l > 0)
    cols, right, left, w_r, w_l = cols[ok], right[ok], left[ok], w_r[ok], w_l[ok]
    h, g = float(class_entropy(total)), float(gini_impurity(total))
    children_h = (w_l * class_entropy(left) + w_r * class_entropy(right)) / w
    info_gain = np.maximum(h - children_h, 0.0)
    split_info = class_entropy(np.stack([w_l, w_r], axis=1))
    gain_ratio = np.divide(info_gain, split_info, out=np.zeros_like(info_gain), where=split_info > 0)
    gini_gain = np.maximum(g - (w_l * gini_impurity(left) + w_r * gini_impurity(right)) / w, 0.0)
    pure = ((left.max(axis=1) == w_l) * w_l + (right.max(axis=1) == w_r) * w_r) / w
    return {"attr": cols, "left": left, "right": right, "info_gain": info_gain,
            "gain_ratio": np.clip(gain_ratio, 0.0, 1.0), "gini_gain": gini_gain, "pure": pure,
            "counts": total, "entropy": h, "gini": g, "weight": w}


# ------------------------------------------------------------------------ attributes
@dataclass
class Attributes:
    """The attributes an action may test (module doc): binary columns and multiway features.

    Attributes
    ----------
    columns : list of ndarray
        The binary columns of each attribute (one for a binary attribute; a multiway
        attribute's columns in binarization order).
    feature : ndarray of int
        The original feature of each attribute.
    multi : ndarray of bool
        Multiway attributes.
    cells : ndarray of int, shape (n_distinct, n_attributes)
        The cell of each distinct row for each attribute (binary: the column's value, 0 = left).
    multiway_features : frozenset of int
        Original features split multiway.
    """

    columns: list
    feature: np.ndarray
    multi: np.ndarray
    cells: np.ndarray
    multiway_features: frozenset

    def __len__(self) -> int:
        return len(self.columns)

    def statistics(self, problem: BinaryProblem, rows: np.ndarray) -> dict:
        """:func:`split_statistics` over the attributes (``attr`` = attribute indices); the
        statistics of a multiway attribute are those of its split into every cell present."""
        if not self.multi.any():                         # attributes = columns, in order
            return split_statistics(problem, rows)
        single = np.flatnonzero(~self.multi)
        cols = np.array([self.columns[a][0] for a in single], dtype=np.int64)
        st = split_statistics(problem, rows, cols)
        keep = np.searchsorted(cols, st["attr"]) if len(cols) else np.empty(0, dtype=np.int64)
        out = {"attr": list(single[keep]), "info_gain": list(st["info_gain"]), "gain_ratio": list(st["gain_ratio"]),
               "gini_gain": list(st["gini_gain"]), "pure": list(st["pure"])}
        counts = problem.counts[rows].astype(float)
        total = counts.sum(axis=0)
        w, h, g = float(total.sum()), float(class_entropy(total)), float(gini_impurity(total))
        for a in np.flatnonzero(self.multi):
            child = np.zeros((len(self.columns[a]) + 1, counts.shape[1]))
            np.add.at(child, self.cells[rows, a], counts)
            wc = child.sum(axis=1)
            child, wc = child[wc > 0], wc[wc > 0]
            if len(wc) < 2:
                continue
            gain = max(h - float((wc * class_entropy(child)).sum()) / w, 0.0)
            split_info = float(class_entropy(wc))
            out["attr"].append(int(a))
            out["info_gain"].append(gain)
            out["gain_ratio"].append(min(gain / split_info, 1.0) if split_info > 0 else 0.0)
            out["gini_gain"].append(max(g - float((wc * gini_impurity(child)).sum()) / w, 0.0))
            out["pure"].append(float(wc[child.max(axis=1) == wc].sum()) / w)
        order = np.argsort(np.asarray(out["attr"], dtype=np.int64), kind="stable")
        res = {k: np.asarray(v, dtype=np.int64 if k == "attr" else float)[order] for k, v in out.items()}
        res.update(counts=total, entropy=h, gini=g, weight=w)
        return res

    def split(self, problem: BinaryProblem, a: int, rows: np.ndarray) -> tuple[Node, list[tuple[Node, np.ndarray]]]:
        """Split ``rows`` by attribute ``a``: the (chain of) binary node(s) and the children as
        ``(leaf node to fill, its rows)`` in cell order (module doc: the encoding)."""
        cols = self.columns[a]
        if not self.multi[a]:
            go = problem.X[rows, cols[0]]
            left, right = Node.leaf(0), Node.leaf(0)
            return Node.split(int(cols[0]), 0.5, left, right), [(left, rows[~go]), (right, rows[go])]
        cell = self.cells[rows, a]
        present = np.unique(cell)
        leaves = [Node.leaf(0) for _ in present]
        node = leaves[-1]
        for c, leaf in zip(present[-2::-1], leaves[-2::-1]):
            node = Node.split(int(cols[c]), 0.5, leaf, node)
        return node, [(leaf, rows[cell == c]) for c, leaf in zip(present, leaves)]


def attributes(problem: BinaryProblem, multiway: str = "categorical", max_arity: int = 10) -> Attributes:
    """The attributes of ``problem`` (module doc). ``multiway``: ``"none"`` (every binary column is
    an attribute), ``"categorical"`` (categorical features with >= 2 columns split multiway) or
    ``"discrete"`` (also numeric features with at most ``max_arity`` distinct training values,
    all integers)."""
    if multiway not in MULTIWAY:
        raise ValueError(f"multiway must be one of {', '.join(MULTIWAY)}, got {multiway!r}")
    if isinstance(max_arity, bool) or not isinstance(max_arity, (int, np.integer)) or max_arity < 2:
        raise ValueError(f"max_arity must be an integer >= 2, got {max_arity!r}")
    data, tests = problem.data, problem.tests
    by_feature: dict[int, list[int]] = {}
    for j, t in enumerate(tests):
        by_feature.setdefault(t.feature, []).append(j)
    multi_f = set()
    if multiway != "none":
        for f, js in by_feature.items():
            if len(js) < 2:
                continue
            if data.schema.is_categorical(f):
                multi_f.add(f)
            elif multiway == "discrete":
                v = np.unique(data.X[:, f])
                if len(v) <= max_arity and np.all(v == np.round(v)):
                    multi_f.add(f)
    columns, feature, multi, cells = [], [], [], []
    done = set()
    for j, t in enumerate(tests):
        f = t.feature
        if f not in multi_f:
            columns.append(np.array([j]))
            feature.append(f)
            multi.append(False)
            cells.append(problem.X[:, j].astype(np.int64))
        elif f not in done:
            done.add(f)
            js = np.array(by_feature[f])
            if not data.schema.is_categorical(f):     # thresholds: ascending (cells = intervals)
                js = js[np.argsort([tests[k].threshold for k in js], kind="stable")]
            block = problem.X[:, js]                  # True = right (x > t, or x != v)
            first_left = np.where(block.all(axis=1), len(js), np.argmin(block, axis=1))
            columns.append(js)
            feature.append(f)
            multi.append(True)
            cells.append(first_left.astype(np.int64))
    cells_arr = np.stack(cells, axis=1) if cells else np.zeros((problem.n_distinct, 0), dtype=np.int64)
    return Attributes(columns, np.asarray(feature, dtype=np.int64), np.asarray(multi, dtype=bool), cells_arr,
                      frozenset(multi_f))


def count_tests(tree: Tree, multiway_features: Any = ()) -> int:
    """Tests of a tree counted as the paper does: one multiway node = one test (module doc).

    ``tree`` is over the original features; a split counts unless it is the right child of a
    split on the same feature of ``multiway_features`` (with none, this is ``tree.n_splits``)."""
    multi = set(int(f) for f in multiway_features)

    def rec(node: Node, parent: int) -> int:
        if node.is_leaf:
            return 0
        own = 0 if (node.feature == parent and node.feature in multi) else 1
        return own + rec(node.left, -1) + rec(node.right, node.feature)

    return rec(tree.root, -1)


def min_multiway_tests(problem: BinaryProblem, multiway: str = "discrete", max_arity: int = 10, costs: Any = None,
                       max_parts: int = 2_000_000) -> float | None:
    """The least total test cost (number of tests with unit costs) of a tree consistent with the
    training rows, each test an attribute of :func:`attributes` (one multiway node = one test).

    Exact, by memoized search over the sets of rows a path can reach: ``f(rows) = 0`` if the rows
    have one class, else ``min_a cost(a) + sum over a's cells of f(cell)``. A reference for small
    discrete problems (the paper's, the MONK's), not an engine: returns None when more than
    ``max_parts`` row sets would be needed, ``inf`` if rows conflict.
    """
    attrs = attributes(problem, multiway, max_arity)
    cost = feature_costs(problem, costs)
    cost_a = np.array([cost[c[0]] for c in attrs.columns]) if len(attrs) else np.zeros(0)
    label = np.where((problem.counts > 0).sum(axis=1) == 1, np.argmax(problem.counts, axis=1), -1)
    memo: dict[bytes, float] = {}

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    class _TooBig(Exception):
        pass

    def f(rows: np.ndarray) -> float:
        lab = label[rows]
        if lab[0] >= 0 and np.all(lab == lab[0]):
            return 0.0
        key = rows.tobytes()
        hit = memo.get(key)
        if hit is not None:
            return hit
        if len(memo) >= max_parts:
            raise _TooBig
        best = np.inf
        cells = attrs.cells[rows]
        for a in np.argsort(cost_a, kind="stable"):
            if cost_a[a] >= best:
                break
            cell = cells[:, a]
            present = np.unique(cell)
            if len(present) < 2:
                continue
            total = cost_a[a]
            for c in present:
                total += f(rows[cell == c])
                if total >= best:
                    break
            best = min(best, total)
        memo[key] = best
        return best

    try:
        return float(f(np.arange(problem.n_distinct)))
    except _TooBig:
        return None


# ------------------------------------------------------------------------ ID3
def id3_tree(problem: BinaryProblem, max_depth: int | None = None, criterion: str = "info_gain",
             multiway: str = "categorical", max_arity: int = 10) -> Tree:
    """ID3 over the attributes (:func:`attributes`: binary columns and multiway features): split
    every impure part by the attribute of largest ``criterion`` (``"info_gain"``,
    ``"gain_ratio"`` or ``"gini_gain"``; ties: the lowest attribute), until parts are pure,
    inseparable or at ``max_depth`` tests. A tree over the columns (threshold 0.5); a multiway
    split is its chain of binary tests (module doc)."""
    if criterion not in ("info_gain", "gain_ratio", "gini_gain"):
        raise ValueError(f"criterion must be info_gain, gain_ratio or gini_gain, got {criterion!r}")
    attrs = attributes(problem, multiway, max_arity)

    def rec(rows: np.ndarray, depth: int) -> Node:
        counts = problem.counts[rows].sum(axis=0)
        leaf = Node.leaf(int(np.argmax(counts)), counts)
        if (counts > 0).sum() <= 1 or (max_depth is not None and depth >= max_depth):
            return leaf
        st = attrs.statistics(problem, rows)
        if len(st["attr"]) == 0:
            return leaf
        a = int(st["attr"][int(np.argmax(st[criterion]))])
        node, children = attrs.split(problem, a, rows)
        for child, sub in children:
            built = rec(sub, depth + 1)
            child.__dict__.update(built.__dict__)
        return node

    return Tree(rec(np.arange(problem.n_distinct), 0), classes=problem.classes)


# ------------------------------------------------------------------------ the paper's data
def paper_problem() -> BinaryProblem:
    """The paper's experiment: E = {True, False}^7 (all 128 rows), target
    c = (A0 & A1 & A2) | (A0 & A1 & A3) | (A0 & A1 & A4) | (A5 & A6)."""
    from ....binarize import Binarizer
    from ....data import prepare

    X = np.array(list(itertools.product([0.0, 1.0], repeat=7)))
    A = X.astype(bool)
    y = (A[:, 0] & A[:, 1] & (A[:, 2] | A[:, 3] | A[:, 4])) | (A[:, 5] & A[:, 6])
    data = prepare(X, np.where(y, "True", "False"))
    data.name = "preda-7"
    return Binarizer("all").problem(data)


def check_feature_costs(costs: Any, n_features: int) -> np.ndarray:
    """``costs`` as ``n_features`` positive finite floats (None: all 1); a one-line ValueError
    otherwise."""
    if costs is None:
        return np.ones(n_features)
    try:
        per_feature = np.asarray(costs, dtype=float).ravel()
    except (TypeError, ValueError):
        per_feature = None
    if per_feature is None:
        got = "values that are not numbers"
    elif per_feature.shape != (n_features,):
        got = f"shape {np.shape(costs)}"
    elif not np.all(np.isfinite(per_feature)) or np.any(per_feature <= 0):
        got = "a value that is not positive and finite"
    else:
        return per_feature
    raise ValueError(f"costs must hold {n_features} positive finite numbers (one per feature), got {got}")


def feature_costs(problem: BinaryProblem, costs: Any) -> np.ndarray:
    """Cost of each binary column from per-original-feature costs (None: all 1)."""
    return check_feature_costs(costs, problem.data.X.shape[1])[problem.column_features]
