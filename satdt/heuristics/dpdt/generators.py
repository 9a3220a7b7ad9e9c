"""DPDT's test generators: the candidate tests of a state (Kohler, Akrour & Preux [9]).

The *test generator* of "Interpretable Decision Tree Search as a Markov Decision Process" gives
the test actions of each MDP state. The generators:

``"hybrid"`` (default)
    At the root: the splits of scikit-learn's ``DecisionTreeClassifier(max_depth=cart_depth[0])``
    plus, for each feature, its split with the fewest errors (one vectorized pass). At deeper
    states: the splits of ``DecisionTreeClassifier(max_leaf_nodes=2**cart_depth[d])``, CART
    grown best-first (the rule of the authors' package, 32 leaves per state). Measured in
    ``benchmarks/results/dpdt.md``: at least the paper's DPDT-5 depth-3 accuracy on the 11
    Quant-BnB sets [18], which neither CART rule alone reaches (fault needs the best-first splits,
    segment the per-feature splits at the root, occupancy the depth-limited ones).
``"sklearn"``
    scikit-learn's ``DecisionTreeClassifier(max_depth=cart_depth[d], random_state)`` fitted on
    the state's rows (weighted distinct rows); its splits (every internal node) are the tests,
    as in the paper's text.
``"cart"``
    The splits (every internal node) of a CART tree (Gini, best split, depth ``cart_depth[d]``)
    fitted on the state's rows: satdt's own numpy CART (:func:`.splits.cart_splits`), the same
    splits as ``"sklearn"`` up to tie-breaking.
``"exhaustive"``
    Every split: each midpoint between consecutive distinct values of each feature in the
    state. With it DPDT is the exact optimum of its objective over all axis-aligned trees of
    depth ``<= max_depth`` (tiny data only).

With ``"hybrid"``, ``"cart"`` and ``"sklearn"`` the root state also gets the splits of the
*reference CART* (:class:`RefTree`): ``DecisionTreeClassifier(max_depth=max_depth,
random_state)`` fitted on the original rows, and each state reached by following that tree's
splits gets the split of the reference node it reaches. Every subtree of the reference CART (in
particular every tree of its cost-complexity pruning path) is then a policy of the MDP, which
makes the paper's Proposition 2 (DPDT is never worse than CART's pruning path, for every alpha)
hold exactly, whatever scikit-learn's random tie-breaking does.

``exact_last=True`` (the default; a departure from the paper, measured in
``benchmarks/results/dpdt.md``) uses every split at states one test away from ``max_depth``:
the best last split by errors is then exact, a superset of CART's.

A test is ``x[feature] <= lo`` with ``lo`` the largest value of the feature on the left side
among the state's rows; the builder turns it into a midpoint threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...data import Dataset
from .splits import all_splits, best_split_errors, best_split_per_feature, cart_splits

__all__ = ["GENERATORS", "Units", "RefTree", "Candidates", "TestGenerator"]

GENERATORS = ("hybrid", "sklearn", "cart", "exhaustive")


class Units:
    """Distinct (row, label) pairs with weights: the rows every state indexes."""

    def __init__(self, data: Dataset):
        key = np.column_stack([data.X, data.y.astype(float)])
        uniq, w = np.unique(key, axis=0, return_counts=True)
        self.X = np.ascontiguousarray(uniq[:, :-1])
        self.y = uniq[:, -1].astype(np.int64)
        self.w = w.astype(float)
        self.C = len(data.classes)
        self.Wc = np.zeros((len(self.y), self.C))
        self.Wc[np.arange(len(self.y)), self.y] = self.w
        self.X32 = self.X.astype(np.float32)
        self.order = np.argsort(self.X, axis=0, kind="stable").T.astype(np.int32).copy()


def _sklearn_splits(units: Units, idx: np.ndarray, depth: int, random_state: int,
                    leaves: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Splits of scikit-learn's CART on the state's rows: ``max_depth=depth``, or grown
    best-first to ``2**depth`` leaves (``leaves=True``)."""
    from sklearn.tree import DecisionTreeClassifier

    if leaves:
        model = DecisionTreeClassifier(max_leaf_nodes=1 << depth, random_state=random_state)
    else:
        model = DecisionTreeClassifier(max_depth=depth, random_state=random_state)
    model.fit(units.X32[idx], units.y[idx], sample_weight=units.w[idx])
    t = model.tree_
    internal = np.flatnonzero(t.feature >= 0)
    return _to_lo(units, idx, t.feature[internal].astype(np.int64), t.threshold[internal])


def _to_lo(units: Units, idx: np.ndarray, feat: np.ndarray, thr32: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn tests (``float32(x) <= thr``) as ``x <= lo`` on the state's rows."""
    if len(feat) == 0:
        return feat, np.empty(0)
    left = units.X32[idx][:, feat] <= thr32[None, :]
    vals = units.X[idx][:, feat]
    lo = np.where(left, vals, -np.inf).max(axis=0)
    ok = left.any(axis=0) & ~left.all(axis=0)
    return feat[ok], lo[ok]


class RefTree:
    """The reference CART (max_depth = DPDT's depth) whose every subtree is a policy."""

    def __init__(self, data: Dataset, max_depth: int, random_state: int):
        from sklearn.tree import DecisionTreeClassifier

        model = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state)
        model.fit(data.X, data.y)
        t = model.tree_
        self.feature = t.feature.astype(np.int64)
        self.threshold = t.threshold.copy()
        self.left = t.children_left
        self.right = t.children_right

    def root(self) -> int:
        """The root's node, or -1 when the reference tree is a single leaf."""
        return 0 if self.feature[0] >= 0 else -1

    def child(self, u: int, side: int) -> int:
        """The internal node below ``u`` on ``side`` (0 left, 1 right), or -1 (none, a leaf)."""
        if u < 0:
            return -1
        c = int(self.left[u] if side == 0 else self.right[u])
        return c if c >= 0 and self.feature[c] >= 0 else -1


@dataclass
class Candidates:
    """The candidate tests ``x[feature] <= lo`` of one state, deduplicated; ``ref`` is the
    reference CART node a test follows (-1 for none)."""

    feature: np.ndarray
    lo: np.ndarray
    ref: np.ndarray


@dataclass
class TestGenerator:
    """The candidate tests of every state, for one choice of generator (module doc)."""

    units: Units
    generator: str
    max_depth: int
    cart_depth: list[int]
    exact_last: bool
    random_state: int
    ref: RefTree | None

    def cart_k(self, d: int) -> int:
        """The depth (or ``log2`` of the leaves) of the CART that proposes tests at depth ``d``."""
        return self.cart_depth[min(d, len(self.cart_depth) - 1)]

    @property
    def best_last_split(self) -> bool:
        """The tests one step above ``max_depth`` are the single best split by errors."""
        return self.exact_last or self.generator == "exhaustive"

    @property
    def uses_orders(self) -> bool:
        """Some state needs its rows' sorted orders (the numpy kernels)."""
        return self.generator in ("cart", "exhaustive", "hybrid") or self.exact_last

    def candidates(self, d: int, idx: np.ndarray, order: np.ndarray | None, ref_u: int) -> Candidates:
        """Candidate tests of the state of depth ``d`` with rows ``idx``, deduplicated."""
        u = self.units
        Xs = u.X[idx]
        last = d == self.max_depth - 1
        if self.generator == "exhaustive" or (last and self.exact_last):
            if last:
                f, lo, _ = best_split_errors(Xs, u.Wc[idx], order)
                feat, lo = (np.array([f]), np.array([lo])) if f >= 0 else (np.empty(0, np.int64), np.empty(0))
            else:
                feat, lo = all_splits(Xs)
        elif self.generator == "hybrid" and d == 0:
            feat, lo = _sklearn_splits(u, idx, self.cart_k(d), self.random_state)
            pf, plo = best_split_per_feature(Xs, u.Wc[idx], order)
            feat, lo = np.concatenate([feat, pf]), np.concatenate([lo, plo])
        elif self.generator == "hybrid":
            feat, lo = _sklearn_splits(u, idx, self.cart_k(d), self.random_state, leaves=True)
        elif self.generator == "sklearn":
            feat, lo = _sklearn_splits(u, idx, self.cart_k(d), self.random_state)
        else:
            feat, lo = cart_splits(Xs, u.Wc[idx], order, self.cart_k(d))
        refs = np.full(len(feat), -1, dtype=np.int64)
        if ref_u >= 0:
            rf, rlo = _to_lo(u, idx, self.ref.feature[[ref_u]], self.ref.threshold[[ref_u]])
            if len(rf):
                feat = np.concatenate([rf, feat])
                lo = np.concatenate([rlo, lo])
                refs = np.concatenate([[ref_u], refs])
        if len(feat) > 1:
            # unique (feature, lo); keep the reference node when one is there (it comes first)
            keys = np.lexsort((lo, feat))
            fk, lk = feat[keys], lo[keys]
            new = np.ones(len(keys), dtype=bool)
            new[1:] = (fk[1:] != fk[:-1]) | (lk[1:] != lk[:-1])
            grp = np.cumsum(new) - 1
            ref_g = np.full(grp[-1] + 1, -1, dtype=np.int64)
            np.maximum.at(ref_g, grp, refs[keys])
            feat, lo, refs = fk[new], lk[new], ref_g
        return Candidates(feature=feat.astype(np.int64), lo=lo.astype(float), ref=refs)
