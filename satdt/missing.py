"""Missing values inside the exact search (``missing="learn"``), as a reduction on the features.

Each numeric feature ``x`` with missing values (NaN) is replaced, for the binarizer and the
engines, by two finite copies: ``x`` with NaN set below every value (``x_lo``) and ``x`` with NaN
set above every value (``x_hi``). A test ``x_lo <= t`` sends the missing rows left, ``x_hi <= t``
sends them right; with the ``all`` binarization both copies give every midpoint of the present
values, plus the test "missing or not" (the midpoint next to the sentinel). So every engine,
unchanged, searches over every threshold *and* every direction of the missing rows at every
test: its optimum is the optimum over trees with learned missing-value directions (the
search space defined in docs/architecture.md, "Definitions"). :func:`to_original` maps the tree back: a node on a copy
becomes a node on ``x`` with ``missing_left`` set (left for ``x_lo``, right for ``x_hi``; the
sentinel tests become ``x <= -inf`` with missing left, "is missing", and ``x <= inf`` with missing
right, "is not missing"), and checks that it routes every training row as the engine's tree did.

The compiled DP core finds the two copies of a feature again (adjacent chains whose ranks are
related row by row: ``satdt/solvers/dp/core/scan.cpp``, ``pair_kinds``) and, in its depth-two
scan, walks them as one chain: one pass over the present rows per root, the missing rows a
block whose side is tried both ways at every threshold; where a node has no missing value of
the feature, the second copy is skipped, as the stumps' chain and as roots (its thresholds split
the node's rows as the first copy's: ``copy_roots``). The same split points are met, so the
optimum is unchanged (tests/test_missing.py
compares it with brute force, with the core without the pairs, with the numpy reference and
with the threads).

Text (categorical) columns need no copy: a missing value there is the category
``"<missing>"`` (:data:`satdt.data.MISSING_CATEGORY`), tested like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import Dataset, FeatureSchema
from .tree import Node, Tree

__all__ = ["MissingMap", "augment", "to_original", "MISSING_MODES"]

MISSING_MODES = ("learn", "error")


@dataclass
class MissingMap:
    """Augmented column -> (original feature, missing_left or None); the present range per feature."""

    n_original: int
    source: list[tuple[int, bool | None]]
    low: dict[int, float]
    high: dict[int, float]

    @property
    def n_missing_features(self) -> int:
        return len(self.low)


def _sentinels(values: np.ndarray) -> tuple[float, float, float, float]:
    present = values[~np.isnan(values)]
    if present.size == 0:
        return 0.0, 0.0, 0.0, 0.0
    lo, hi = float(present.min()), float(present.max())
    below, above = lo - max(1.0, abs(lo)), hi + max(1.0, abs(hi))
    if not np.isfinite(below):
        below = float(np.nextafter(lo, -np.inf))
    if not np.isfinite(above):
        above = float(np.nextafter(hi, np.inf))
    return lo, hi, below, above


def augment(data: Dataset) -> tuple[Dataset, MissingMap | None]:
    """The data the engines see (NaN-free) and the map back; ``(data, None)`` without NaN."""
    X = data.X
    nan_cols = np.flatnonzero(np.isnan(X).any(axis=0))
    nan_cols = [j for j in nan_cols.tolist() if not data.schema.is_categorical(j)]
    if not nan_cols:
        return data, None
    columns, names, source = [], [], []
    categories: dict[int, list] = {}
    low, high = {}, {}
    for j in range(X.shape[1]):
        name = data.schema.names[j]
        if j not in nan_cols:
            if data.schema.is_categorical(j):
                categories[len(columns)] = data.schema.categories[j]
            columns.append(X[:, j])
            names.append(name)
            source.append((j, None))
            continue
        lo, hi, below, above = _sentinels(X[:, j])
        low[j], high[j] = lo, hi
        nan = np.isnan(X[:, j])
        columns.append(np.where(nan, below, X[:, j]))
        names.append(f"{name} [missing left]")
        source.append((j, True))
        columns.append(np.where(nan, above, X[:, j]))
        names.append(f"{name} [missing right]")
        source.append((j, False))
    Xa = np.column_stack(columns)
    out = Dataset(X=Xa, y=data.y, classes=data.classes, schema=FeatureSchema(names=names, categories=categories),
                  name=data.name, weight=data.weight)
    return out, MissingMap(n_original=X.shape[1], source=source, low=low, high=high)


def to_original(tree: Tree, mapping: MissingMap, data: Dataset, augmented: Dataset) -> Tree:
    """The tree over the augmented columns as a tree over the original features with
    ``missing_left`` at the tests of features with missing values; AssertionError if some row of
    ``data`` (original) would reach another leaf than the same row of ``augmented``."""

    def rec(node: Node) -> Node:
        if node.is_leaf:
            return Node(label=node.label, counts=node.counts)
        j, missing_left = mapping.source[node.feature]
        t = node.threshold
        if missing_left is not None:
            if t < mapping.low[j]:
                t = -np.inf        # only the missing rows go left: "x is missing"
            elif t >= mapping.high[j]:
                t = np.inf         # every present row goes left: "x is not missing"
        out = Node.split(j, t, rec(node.left), rec(node.right), category=node.category,
                         missing_left=missing_left)
        out.counts, out.label = node.counts, node.label
        return out

    names = list(data.schema.names)
    out = Tree(root=rec(tree.root), classes=tree.classes, feature_names=names, meta=dict(tree.meta))
    before = tree.predict_index(augmented.X)
    after = out.predict_index(data.X)
    if not np.array_equal(before, after):
        from .result import TreeCheckError

        raise TreeCheckError(f"the tree with learned missing-value directions routes "
                             f"{int((before != after).sum())} training row(s) differently")
    return out
