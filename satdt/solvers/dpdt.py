"""DPDT: decision tree search as a Markov decision process (Kohler, Akrour & Preux).

Algorithm 1 of "Interpretable Decision Tree Search as a Markov Decision Process", vectorized
numpy, no numba.

The MDP
-------
A *state* is ``(rows, depth)``: the training rows that reach a node and its depth. Identical
states (same rows, same depth) are built once: a level's states are keyed by a 128-bit hash of
their sorted row indices (the batched last level of ``exact_last`` is the exception, see
below). At a state of depth ``< max_depth`` the *actions* are

* a *label action*: the episode ends with reward ``-(misclassified weight) / n`` (the majority
  class is the best label);
* a *test action* ``x[f] <= t`` for each candidate test of the *test generator*: reward
  ``-alpha * |rows| / n`` (the test is paid by every row that passes it), then the left state
  with probability ``|X_l| / |X|`` and the right state with ``|X_r| / |X|``.

Working in "weight units" (multiplying every reward by ``n``) the expectation over the
transition probabilities becomes a sum: ``Q(s, test) = alpha * w(s) + V(left) + V(right)`` and
``V(s) = min(errors(s), min_test Q(s, test))``. The value of the root divided by ``n`` is the
DPDT objective of DESIGN.md: error rate + alpha * average number of tests per training row.

Test generators
---------------
``"hybrid"`` (default)
    At the root: the splits of scikit-learn's ``DecisionTreeClassifier(max_depth=cart_depth[0])``
    plus, for each feature, its split with the fewest errors (one vectorized pass). At deeper
    states: the splits of ``DecisionTreeClassifier(max_leaf_nodes=2**cart_depth[d])``, CART
    grown best-first (the rule of the authors' package, 32 leaves per state). Measured in
    ``benchmarks/results/dpdt.md``: at least the paper's DPDT-5 depth-3 accuracy on the 11
    Quant-BnB sets, which neither CART rule alone reaches (fault needs the best-first splits,
    segment the per-feature splits at the root, occupancy the depth-limited ones).
``"sklearn"``
    scikit-learn's ``DecisionTreeClassifier(max_depth=cart_depth[d], random_state)`` fitted on
    the state's rows (weighted distinct rows); its splits (every internal node) are the tests,
    as in the paper's text.
``"cart"``
    The splits (every internal node) of a CART tree (Gini, best split, depth ``cart_depth[d]``)
    fitted on the state's rows. The CART is this module's own numpy implementation
    (:func:`cart_splits`): the rows' sorted orders per feature are inherited from the parent
    state (a stable filter, no sort), and every CART level is one vectorized pass over all
    nodes of that level. It makes the same splits as scikit-learn's ``DecisionTreeClassifier``
    except that ties between features are broken by the lowest feature index (scikit-learn
    breaks them by a random feature order).
``"exhaustive"``
    Every split: each midpoint between consecutive distinct values of each feature in the
    state. With it DPDT is the exact optimum of its objective over all axis-aligned trees of
    depth ``<= max_depth`` (tiny data only).

With ``"hybrid"``, ``"cart"`` and ``"sklearn"`` the root state also gets the splits of the *reference CART*:
``DecisionTreeClassifier(max_depth=max_depth, random_state)`` fitted on the original rows, and
each state reached by following that tree's splits gets the split of the reference node it
reaches. Every subtree of the reference CART (in particular every tree of its cost-complexity
pruning path) is then a policy of the MDP, which makes the paper's Proposition 2 (DPDT is never
worse than CART's pruning path, for every alpha) hold exactly, whatever scikit-learn's random
tie-breaking does.

``exact_last=True`` (the default; a departure from the paper, measured in
``benchmarks/results/dpdt.md``) uses every split (the ``"exhaustive"`` candidates) at states one test away
from ``max_depth``: the best last split by errors is then exact, a superset of CART's. That
level is built in batches (:func:`last_level_children`): for each state one level above, the
best split of both children of all its tests is found in one int32 pass over the parent's
sorted orders, without materializing the children's rows (identical children of different
parents are then computed twice, never merged: cheaper than hashing them).

Backward induction
------------------
Over an array of alphas at once, level by level from the deepest: at the last non-terminal
level the children are leaves, so ``Q = alpha * w + c`` with ``c`` the children's errors and the
best test does not depend on alpha; above it, ``Q`` is an ``(n_tests, n_alphas)`` array built
from the children's ``V`` rows and reduced per state with ``np.minimum.reduceat``. Ties prefer
the label action (the smaller tree), then the first test. Memory is bounded by processing
states in chunks.
"""

from __future__ import annotations

import copy
import hashlib
import resource
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..data import Dataset
from ..result import FEASIBLE, SolveResult
from ..tree import Node, Tree
from .common import Deadline

__all__ = ["solve_dpdt", "DPDTResult", "DPDTModel", "build_mdp", "cart_splits", "GENERATORS",
           "last_level_children", "best_split_per_feature", "best_split_errors"]

GENERATORS = ("hybrid", "sklearn", "cart", "exhaustive")
_TOL = 1e-9            # in weight units: a label action within _TOL of the best test wins
_CHUNK = 1 << 22       # entries of a (tests x alphas) block in the backward induction
_BATCH_LAST = True     # build the last non-terminal level in batches (False: state by state, for tests)


# ---------------------------------------------------------------- candidate tests
def _class_cumsums(WcT: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``(C, p, m)`` cumulative class weights along each feature's order (class-major layout, so
    that every per-class operation below is a contiguous elementwise pass)."""
    return np.cumsum(WcT[:, order], axis=2)


def cart_splits(Xs: np.ndarray, Wc: np.ndarray, order: np.ndarray, depth: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Splits of a Gini CART tree of depth ``depth`` on one state's rows, vectorized per level.

    Parameters
    ----------
    Xs : ndarray (m, p)
        The state's rows.
    Wc : ndarray (m, C)
        Weight of each class on each row.
    order : ndarray (p, m)
        Row positions sorted by each feature's value.
    depth : int

    Returns
    -------
    feature, lo : ndarray (K,)
        One per internal node of the CART tree: the node sends ``x[feature] <= lo`` left; ``lo``
        is the largest value of that feature in the node's left part.

    Notes
    -----
    Each level keeps, per feature, the rows sorted by (node, value) (stable partition of the
    previous level's order), so nodes are contiguous segments: cumulative class weights give
    every split's left and right class weights, and the Gini proxy
    ``sum_c l_c^2 / |l| + sum_c r_c^2 / |r|`` (scikit-learn's) is maximized per segment with
    ``reduceat``. Ties: lowest feature, then lowest threshold.
    """
    m, p = Xs.shape
    C = Wc.shape[1]
    XT = np.ascontiguousarray(Xs.T)
    WcT = np.ascontiguousarray(Wc.T)
    nid = np.zeros(m, dtype=np.int16)
    feats: list[np.ndarray] = []
    los: list[np.ndarray] = []
    active = np.ones(1, dtype=bool)
    pos = np.arange(m)
    for k in range(depth):
        n_nodes = 1 << k
        cnt = np.bincount(nid, minlength=n_nodes)
        starts = np.cumsum(cnt) - cnt
        tot = np.stack([np.bincount(nid, weights=WcT[c], minlength=n_nodes) for c in range(C)])
        splittable = active & (cnt >= 2) & (tot.max(axis=0) < tot.sum(axis=0))
        if not splittable.any():
            break
        seg = np.repeat(np.arange(n_nodes), cnt)            # node of each sorted position
        V = np.take_along_axis(XT, order, axis=1)           # (p, m) values in sorted order
        cum = _class_cumsums(WcT, order)                    # (C, p, m)
        has_before = starts > 0
        wl = np.zeros((p, m))
        sl = np.zeros((p, m))
        sr = np.zeros((p, m))
        wr = np.zeros((p, m))
        for c in range(C):
            before = np.zeros((p, n_nodes))
            before[:, has_before] = cum[c][:, starts[has_before] - 1]
            lc = cum[c] - before[:, seg]
            rc = tot[c][seg][None, :] - lc
            wl += lc
            wr += rc
            sl += lc * lc
            sr += rc * rc
        valid = np.zeros((p, m), dtype=bool)
        valid[:, :-1] = (V[:, 1:] > V[:, :-1]) & ((seg[1:] == seg[:-1]) & splittable[seg[:-1]])[None]
        with np.errstate(divide="ignore", invalid="ignore"):
            score = sl / wl + sr / wr
        score[~valid] = -np.inf
        nonempty = np.flatnonzero(cnt)
        best_fn = np.maximum.reduceat(score, starts[nonempty], axis=1)   # (p, nonempty)
        fstar = np.argmax(best_fn, axis=0)
        bval = best_fn[fstar, np.arange(len(nonempty))]
        node_f = np.zeros(n_nodes, dtype=np.int64)
        node_v = np.full(n_nodes, -np.inf)
        node_f[nonempty] = fstar
        node_v[nonempty] = bval
        hit = score[node_f[seg], pos] == node_v[seg]
        first = np.minimum.reduceat(np.where(hit, pos, m), starts[nonempty])
        ok = np.isfinite(bval)
        split_nodes, first = nonempty[ok], first[ok]
        if len(split_nodes) == 0:
            break
        f_sel = node_f[split_nodes]
        lo = V[f_sel, first]
        feats.append(f_sel)
        los.append(lo)
        if k == depth - 1:
            break
        node_lo = np.full(n_nodes, np.inf)
        node_lo[split_nodes] = lo
        goes_right = XT[node_f[nid], pos] > node_lo[nid]
        nid = (2 * nid + goes_right).astype(np.int16)
        active = np.zeros(2 * n_nodes, dtype=bool)
        active[2 * split_nodes] = True
        active[2 * split_nodes + 1] = True
        perm = np.argsort(nid[order], axis=1, kind="stable")
        order = np.take_along_axis(order, perm, axis=1)
    if not feats:
        return np.empty(0, dtype=np.int64), np.empty(0)
    return np.concatenate(feats), np.concatenate(los)


def all_splits(Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every split of the state: each distinct value of each feature except its largest
    (``x[f] <= value`` goes left)."""
    feats, los = [], []
    for f in range(Xs.shape[1]):
        v = np.unique(Xs[:, f])[:-1]
        feats.append(np.full(len(v), f, dtype=np.int64))
        los.append(v)
    return np.concatenate(feats), np.concatenate(los)


def best_split_errors(Xs: np.ndarray, Wc: np.ndarray, order: np.ndarray
                      ) -> tuple[int, float, float]:
    """The split with the fewest errors (majority leaves on both sides) over every split.

    One vectorized pass over the rows sorted by each feature. Returns ``(feature, lo, errors)``
    (feature -1 when no split exists). Ties: lowest feature, then lowest threshold.
    """
    m, p = Xs.shape
    WcT = np.ascontiguousarray(Wc.T)
    cum = _class_cumsums(WcT, order)                 # (C, p, m)
    tot = cum[:, 0, -1]
    best_l = cum[0].copy()
    best_r = tot[0] - cum[0]
    for c in range(1, len(tot)):
        np.maximum(best_l, cum[c], out=best_l)
        np.maximum(best_r, tot[c] - cum[c], out=best_r)
    err = tot.sum() - best_l - best_r                # left errors + right errors
    V = np.take_along_axis(Xs.T, order, axis=1)
    err[:, :-1][V[:, 1:] <= V[:, :-1]] = np.inf
    err[:, -1] = np.inf
    flat = int(np.argmin(err))
    f, i = divmod(flat, m)
    if not np.isfinite(err[f, i]):
        return -1, 0.0, np.inf
    return f, float(V[f, i]), float(err[f, i])


@dataclass
class _Children:
    """The ``2K`` children (left, right of each of ``K`` tests) of one state, expanded as states
    of the last non-terminal level in one batch: child ``2k + side``."""

    weight: np.ndarray
    err: np.ndarray
    label: np.ndarray
    has: np.ndarray          # the child has a test that strictly lowers its errors
    feature: np.ndarray
    threshold: np.ndarray
    left_err: np.ndarray
    right_err: np.ndarray
    left_label: np.ndarray
    right_label: np.ndarray
    complete: bool = True


_BATCH = 1 << 17          # entries (tests x features x rows) of a cache-sized batch block
_NO_SPLIT = 1 << 30       # error of a non-boundary position (weights are < 2**30)


def _split_errors(part: np.ndarray, t_c: np.ndarray) -> np.ndarray:
    """Errors of every split ``(k, p, m)`` given the left-part class weights ``part``
    ``(C, k, p, m)`` and the children's class totals ``t_c`` ``(C, k)``: majority leaves on both
    sides, ``w - max_c l_c - max_c (t_c - l_c)`` (for two classes ``min(l_0, l_1) +
    min(r_0, r_1)``)."""
    C = part.shape[0]
    t = t_c[:, :, None, None]
    if C == 2:
        e = np.minimum(part[0], part[1])
        r0 = t[0] - part[0]
        np.minimum(r0, t[1] - part[1], out=r0)
        e += r0
        return e
    bl = part[0].copy()
    br = t[0] - part[0]
    tmp = np.empty_like(bl)
    for c in range(1, C):
        np.maximum(bl, part[c], out=bl)
        np.subtract(t[c], part[c], out=tmp)
        np.maximum(br, tmp, out=br)
    e = t_c.sum(axis=0)[:, None, None] - bl
    e -= br
    return e


def last_level_children(Xs: np.ndarray, Wc: np.ndarray, order: np.ndarray, L: np.ndarray,
                        deadline: Deadline | None = None) -> _Children:
    """Best last split (fewest errors, majority leaves) of every child of every test of a state,
    all at once, in the *parent's* sorted orders.

    Parameters
    ----------
    Xs : ndarray (m, p)
        The parent state's rows.
    Wc : ndarray (m, C)
        Class weights of the rows (integer-valued).
    order : ndarray (p, m)
        Row positions sorted by each feature (the parent's).
    L : ndarray (m, K) bool
        ``L[:, k]``: the rows test ``k`` sends left (every test non-degenerate).
    deadline : Deadline, optional
        Checked between blocks; once expired, the remaining children get no test
        (``complete`` is then False).

    Returns
    -------
    _Children

    Notes
    -----
    A child's split ``x[g] <= t`` partitions the child exactly as the parent's split between
    the two consecutive distinct parent values around ``t`` does, so every child split is a
    parent boundary: the child's class weights left of every boundary are a cumulative sum of
    ``Wc * mask`` along the parent's order, for all ``K`` tests in one ``(K, C, p, m)`` pass
    (the right child's are the parent's minus the left child's). Only splits strictly better
    than the child's leaf are kept (a split with the leaf's errors is never chosen by the
    induction, whatever alpha, since a test costs ``alpha * w >= 0`` and ties prefer the label).
    Weights are integers (merged duplicate rows), summed in int32 (several times faster than
    float cumulative sums). Ties: lowest feature, then
    lowest threshold, as :func:`best_split_errors`.
    """
    m, p = Xs.shape
    C = Wc.shape[1]
    K = L.shape[1]
    WT = np.ascontiguousarray(Wc.T).astype(np.int32)[:, order]           # (C, p, m)
    cum_all = np.cumsum(WT, axis=2, dtype=np.int32)
    tot = cum_all[:, 0, -1].astype(float)
    if Wc.sum() >= _NO_SPLIT:
        raise ValueError("DPDT's batched last level counts rows in int32: at most 2**30 rows")
    V = np.take_along_axis(Xs.T, order, axis=1)                          # (p, m)
    pen = np.zeros((p, m), dtype=np.int32)                               # no boundary: never chosen
    pen[:, :-1][V[:, 1:] <= V[:, :-1]] = _NO_SPLIT
    pen[:, -1] = _NO_SPLIT
    tl = np.empty((C, K))                                                # left children's class weights
    best = np.full(2 * K, _NO_SPLIT, dtype=np.int64)
    flat = np.zeros(2 * K, dtype=np.int64)
    LT = np.ascontiguousarray(L.T)                                       # (K, m)
    step = max(1, _BATCH // max(1, p * m))
    complete = True
    for a in range(0, K, step):
        if a and deadline is not None and deadline.expired():
            for c in range(C):                            # totals only, for the labels
                tl[c, a:] = (Wc[:, c][:, None] * L[:, a:]).sum(axis=0)
            complete = False
            break
        b = min(K, a + step)
        k = b - a
        Lk = np.take(LT[a:b], order, axis=1)                             # (k, p, m) bool
        part = np.empty((C, k, p, m), dtype=np.int32)
        for c in range(C):
            np.multiply(Lk, WT[c][None], out=part[c])
            np.cumsum(part[c], axis=2, out=part[c])
        for side in (0, 1):
            if side == 1:                                                # right child
                for c in range(C):
                    np.subtract(cum_all[c][None], part[c], out=part[c])
            t_c = part[:, :, 0, -1].copy()                                # (C, k)
            if side == 0:
                tl[:, a:b] = t_c
            e = _split_errors(part, t_c)
            e += pen[None]
            e = e.reshape(k, -1)
            i = np.argmin(e, axis=1)
            rows = 2 * np.arange(a, b) + side
            best[rows] = e[np.arange(k), i]
            flat[rows] = i
    cw = np.empty((2 * K, C))
    cw[0::2] = tl.T
    cw[1::2] = tot[None, :] - tl.T
    weight = cw.sum(axis=1)
    err = weight - cw.max(axis=1)
    label = np.argmax(cw, axis=1)
    has = (err > 0) & (best < err - 0.5)
    g, pos = np.divmod(flat, m)
    feature = np.where(has, g, -1)
    # the chosen split's threshold: midpoint between the child's values on both sides
    ch = np.flatnonzero(has)
    threshold = np.zeros(2 * K)
    left_err = np.zeros(2 * K)
    right_err = np.zeros(2 * K)
    left_label = np.zeros(2 * K, dtype=np.int64)
    right_label = np.zeros(2 * K, dtype=np.int64)
    if len(ch):
        k, side = np.divmod(ch, 2)
        inside = L[:, k] != side.astype(bool)[None, :]                   # (m, n_ch)
        vals = Xs[:, g[ch]]
        cut = V[g[ch], pos[ch]]
        goes_left = vals <= cut[None, :]
        lo = np.where(inside & goes_left, vals, -np.inf).max(axis=0)
        hi = np.where(inside & ~goes_left, vals, np.inf).min(axis=0)
        mid = (lo + hi) / 2.0
        threshold[ch] = np.where(mid < hi, mid, lo)
        lw = np.stack([(Wc[:, c][:, None] * (inside & goes_left)).sum(axis=0) for c in range(C)], 1)
        rw = cw[ch] - lw
        left_err[ch] = lw.sum(1) - lw.max(1)
        right_err[ch] = rw.sum(1) - rw.max(1)
        left_label[ch] = np.argmax(lw, axis=1)
        right_label[ch] = np.argmax(rw, axis=1)
    return _Children(weight=weight, err=err, label=label, has=has, feature=feature,
                     threshold=threshold, left_err=left_err, right_err=right_err,
                     left_label=left_label, right_label=right_label, complete=complete)


def best_split_per_feature(Xs: np.ndarray, Wc: np.ndarray, order: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """For each feature, the split with the fewest errors (majority leaves on both sides),
    lowest threshold among ties; features without a split are left out. One int32 pass."""
    m, p = Xs.shape
    WT = np.ascontiguousarray(Wc.T).astype(np.int32)[:, order][:, None]      # (C, 1, p, m)
    np.cumsum(WT, axis=3, out=WT)
    e = _split_errors(WT, WT[:, :, 0, -1].copy())[0]                         # (p, m)
    V = np.take_along_axis(Xs.T, order, axis=1)
    e[:, :-1][V[:, 1:] <= V[:, :-1]] = _NO_SPLIT
    e[:, -1] = _NO_SPLIT
    i = np.argmin(e, axis=1)
    ok = e[np.arange(p), i] < _NO_SPLIT
    return np.flatnonzero(ok).astype(np.int64), V[np.arange(p), i][ok]


# ---------------------------------------------------------------- the MDP
@dataclass
class _Level:
    """The non-terminal-depth states of one depth and their test actions.

    ``ptr[s]:ptr[s+1]`` are the tests of state ``s``; ``left``/``right`` index the next level
    (for the last level: ``left_err``/``right_err`` and labels of the child leaves).
    """

    weight: np.ndarray
    err: np.ndarray
    label: np.ndarray
    ptr: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    left_err: np.ndarray | None = None
    right_err: np.ndarray | None = None
    left_label: np.ndarray | None = None
    right_label: np.ndarray | None = None

    @property
    def n_states(self) -> int:
        return len(self.weight)

    @property
    def n_tests(self) -> int:
        return len(self.feature)

    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray))


@dataclass
class DPDTModel:
    """The built MDP: one :class:`_Level` per depth ``0..max_depth-1``."""

    levels: list[_Level]
    n: float
    classes: np.ndarray
    feature_names: list[str]
    max_depth: int
    n_states: int
    truncated: bool
    build_time: float

    # ---------------------------------------------------------- induction
    def induction(self, alphas: np.ndarray) -> "_Policy":
        """Backward induction for every alpha at once (weight units, see module doc)."""
        alphas = np.asarray(alphas, dtype=float)
        A = len(alphas)
        D = len(self.levels)
        acts: list[Any] = [None] * D
        V_next: np.ndarray | None = None
        for d in range(D - 1, -1, -1):
            lv = self.levels[d]
            if d == D - 1:
                V, acts[d] = _last_level_values(lv, alphas)
            else:
                V, acts[d] = _level_values(lv, alphas, V_next)
            V_next = V
        return _Policy(self, alphas, V_next[0] / self.n, acts)

    def nbytes(self) -> int:
        return sum(lv.nbytes() for lv in self.levels)


def _last_level_values(lv: _Level, alphas: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Deepest non-terminal level: the children are leaves, so ``Q = alpha * w + c`` and the
    best test (the smallest ``c``) is the same for every alpha."""
    c = lv.left_err + lv.right_err
    best_c = np.full(lv.n_states, np.inf)
    best_k = np.full(lv.n_states, -1, dtype=np.int64)
    has = np.flatnonzero(np.diff(lv.ptr) > 0)
    if len(has):
        starts = lv.ptr[has]
        mins = np.minimum.reduceat(c, starts)
        seg = np.repeat(np.arange(lv.n_states), np.diff(lv.ptr))
        hit = c == mins[np.searchsorted(has, seg)]
        pos = np.where(hit, np.arange(len(c)), len(c))
        best_k[has] = np.minimum.reduceat(pos, starts)
        best_c[has] = mins
    V = np.multiply.outer(lv.weight, alphas)           # alpha * w + c, then min with the label
    V += best_c[:, None]
    np.minimum(V, lv.err[:, None], out=V)
    return V, (best_k, best_c)


def _level_values(lv: _Level, alphas: np.ndarray, V_next: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V(s) = min(err(s), min_k alpha * w(s) + V(left_k) + V(right_k))`` for every alpha;
    the action array holds -1 (label) or the global index of the best test."""
    A = len(alphas)
    n_s = lv.n_states
    V = np.repeat(lv.err[:, None], A, axis=1)
    act = np.full((n_s, A), -1, dtype=np.int32)
    counts = np.diff(lv.ptr)
    s = 0
    while s < n_s:
        # a chunk of states whose tests fit in _CHUNK entries
        e = s + 1
        budget = max(1, _CHUNK // max(1, A))
        e = int(np.searchsorted(lv.ptr, lv.ptr[s] + budget, side="right")) - 1
        e = min(max(e, s + 1), n_s)
        a, b = lv.ptr[s], lv.ptr[e]
        if b > a:
            st = np.repeat(np.arange(s, e), counts[s:e])
            Q = V_next[lv.left[a:b]] + V_next[lv.right[a:b]]
            Q += lv.weight[st][:, None] * alphas[None, :]
            has = np.flatnonzero(counts[s:e] > 0) + s
            starts = lv.ptr[has] - a
            mins = np.minimum.reduceat(Q, starts, axis=0)
            row_of = np.searchsorted(has, st)
            pos = np.where(Q <= mins[row_of] + _TOL, np.arange(a, b)[:, None], np.iinfo(np.int32).max)
            first = np.minimum.reduceat(pos, starts, axis=0)
            better = mins < V[has] - _TOL
            V[has] = np.where(better, mins, V[has])
            act[has] = np.where(better, first, -1)
        s = e
    return V, act


@dataclass
class _Policy:
    """Optimal actions of every state for every alpha of a grid."""

    model: DPDTModel
    alphas: np.ndarray
    values: np.ndarray            # root value per alpha (objective units)
    acts: list[Any]

    def _action(self, d: int, s: int, ai: np.ndarray) -> np.ndarray:
        act = self.acts[d]
        if d == len(self.acts) - 1:
            best_k, best_c = act
            lv = self.model.levels[d]
            if best_k[s] < 0:
                return np.full(len(ai), -1, dtype=np.int64)
            split = self.alphas[ai] * lv.weight[s] + best_c[s]
            return np.where(lv.err[s] <= split + _TOL, -1, best_k[s])
        return act[s, ai]

    def trees(self) -> list[tuple[np.ndarray, Node]]:
        """The distinct optimal trees: ``(alpha indices, root)``, grouped without a per-alpha
        loop (alphas are split into groups only where their actions differ)."""
        return self._build(0, 0, np.arange(len(self.alphas)))

    def _build(self, d: int, s: int, ai: np.ndarray) -> list[tuple[np.ndarray, Node]]:
        lv = self.model.levels[d]
        acts = self._action(d, s, ai)
        out: list[tuple[np.ndarray, Node]] = []
        for a in np.unique(acts):
            sub = ai[acts == a]
            if a < 0:
                out.append((sub, Node.leaf(int(lv.label[s]))))
                continue
            f, t = int(lv.feature[a]), float(lv.threshold[a])
            if d == len(self.model.levels) - 1:
                node = Node.split(f, t, Node.leaf(int(lv.left_label[a])), Node.leaf(int(lv.right_label[a])))
                out.append((sub, node))
                continue
            lefts = self._child(d + 1, int(lv.left[a]), sub)
            rights = self._child(d + 1, int(lv.right[a]), sub)
            for la, ln in lefts:
                for ra, rn in rights:
                    both = np.intersect1d(la, ra, assume_unique=True)
                    if len(both):
                        out.append((both, Node.split(f, t, ln, rn)))
        return out

    def _child(self, d: int, s: int, ai: np.ndarray) -> list[tuple[np.ndarray, Node]]:
        return self._build(d, s, ai)


# ---------------------------------------------------------------- building
class _Units:
    """Distinct (row, label) pairs with weights: the rows every state indexes."""

    def __init__(self, data: Dataset):
        key = np.column_stack([data.X, data.y.astype(float)])
        uniq, inv, w = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        self.X = np.ascontiguousarray(uniq[:, :-1])
        self.y = uniq[:, -1].astype(np.int64)
        self.w = w.astype(float)
        self.C = len(data.classes)
        self.Wc = np.zeros((len(self.y), self.C))
        self.Wc[np.arange(len(self.y)), self.y] = self.w
        self.X32 = self.X.astype(np.float32)
        self.order = np.argsort(self.X, axis=0, kind="stable").T.astype(np.int32).copy()


def _state_key(idx: np.ndarray) -> bytes:
    return hashlib.blake2b(idx.tobytes(), digest_size=16).digest()


def _filtered_order(order_parent: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Sorted orders of a child state from its parent's (stable filter, no sort)."""
    newpos = np.cumsum(mask) - 1
    keep = mask[order_parent]
    p = order_parent.shape[0]
    return newpos[order_parent[keep]].reshape(p, -1).astype(np.int32)


def _sklearn_splits(units: _Units, idx: np.ndarray, depth: int, random_state: int,
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


def _to_lo(units: _Units, idx: np.ndarray, feat: np.ndarray, thr32: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn tests (``float32(x) <= thr``) as ``x <= lo`` on the state's rows."""
    if len(feat) == 0:
        return feat, np.empty(0)
    left = units.X32[idx][:, feat] <= thr32[None, :]
    vals = units.X[idx][:, feat]
    lo = np.where(left, vals, -np.inf).max(axis=0)
    ok = left.any(axis=0) & ~left.all(axis=0)
    return feat[ok], lo[ok]


class _RefTree:
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

    def child(self, u: int, side: int) -> int:
        if u < 0:
            return -1
        c = int(self.left[u] if side == 0 else self.right[u])
        return c if c >= 0 and self.feature[c] >= 0 else -1


def _children_level(kids: list[_Children]) -> _Level:
    """The last non-terminal level from batched children: one state per child (children of
    different parents are not merged: each is computed once in its parent's batch), at most
    one test each (its best split), whose children are leaves."""
    cat = lambda name: np.concatenate([getattr(c, name) for c in kids])  # noqa: E731
    has = cat("has")
    ptr = np.zeros(len(has) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(has)
    zero = np.zeros(int(has.sum()), dtype=np.int64)
    return _Level(weight=cat("weight"), err=cat("err"), label=cat("label").astype(np.int64), ptr=ptr,
                  feature=cat("feature")[has].astype(np.int64), threshold=cat("threshold")[has],
                  left=zero, right=zero, left_err=cat("left_err")[has],
                  right_err=cat("right_err")[has], left_label=cat("left_label")[has],
                  right_label=cat("right_label")[has])


@dataclass
class _Builder:
    units: _Units
    max_depth: int
    cart_depth: list[int]
    generator: str
    exact_last: bool
    max_states: int
    random_state: int
    deadline: Deadline
    ref: _RefTree | None
    n_states: int = 0
    truncated: bool = False

    def cart_k(self, d: int) -> int:
        return self.cart_depth[min(d, len(self.cart_depth) - 1)]

    def count(self, k: int) -> None:
        self.n_states += k
        if self.n_states > self.max_states:
            raise ValueError(
                f"DPDT MDP exceeds max_states={self.max_states} states (max_depth={self.max_depth}, "
                f"cart_depth={self.cart_depth}); lower max_depth or cart_depth (e.g. a per-depth "
                "list such as [3, 2]) or raise max_states")

    def candidates(self, d: int, idx: np.ndarray, order: np.ndarray | None, ref_u: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidate tests ``(feature, lo, reference node)`` of a state, deduplicated."""
        u = self.units
        Xs = u.X[idx]
        last = d == self.max_depth - 1
        if self.generator == "exhaustive" or (last and self.exact_last):
            if last:
                f, lo, e = best_split_errors(Xs, u.Wc[idx], order)
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
        return feat.astype(np.int64), lo.astype(float), refs

    def batch_last(self) -> bool:
        """The last non-terminal level is expanded in batches from its parents
        (:func:`last_level_children`) when its test is the best split by errors."""
        return (_BATCH_LAST and self.max_depth >= 2
                and (self.exact_last or self.generator == "exhaustive"))

    def build(self) -> DPDTModel:
        t0 = time.perf_counter()
        u = self.units
        N = len(u.y)
        # current level: row indices of each state, (parent state, feature, lo, side), reference node
        idx_list = [np.arange(N, dtype=np.int32)]
        parent_of = [(-1, -1, 0.0, 0)]
        ref_of = [0 if (self.ref is not None and self.ref.feature[0] >= 0) else -1]
        orders_prev: list[np.ndarray] = []
        idx_prev: list[np.ndarray] = []
        levels: list[_Level] = []
        self.count(1)
        use_orders = self.generator in ("cart", "exhaustive", "hybrid") or self.exact_last
        batch = self.batch_last()
        cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.empty(0, dtype=dt)  # noqa: E731
        for d in range(self.max_depth):
            last = d == self.max_depth - 1
            pre_last = batch and d == self.max_depth - 2    # its children are built in batches
            keep_orders = use_orders and not last and not pre_last
            need_order = use_orders
            n_d = len(idx_list)
            weight = np.empty(n_d)
            err = np.empty(n_d)
            label = np.empty(n_d, dtype=np.int64)
            ptr = np.zeros(n_d + 1, dtype=np.int64)
            F, T, Lc, Rc, Le, Re, Ll, Rl = [], [], [], [], [], [], [], []
            kids: list[_Children] = []
            n_kids = 0
            next_idx: list[np.ndarray] = []
            next_parent: list[tuple] = []
            next_ref: list[int] = []
            next_key: dict[bytes, int] = {}
            orders_cur: list[np.ndarray] = []
            n_tests = 0
            for s in range(n_d):
                idx = idx_list[s]
                cw = u.Wc[idx].sum(axis=0)
                weight[s] = cw.sum()
                err[s] = cw.sum() - cw.max()
                label[s] = int(np.argmax(cw))
                order = None
                if need_order or keep_orders:
                    order = self._order_of(parent_of[s], idx, orders_prev, idx_prev)
                if keep_orders:
                    orders_cur.append(order)
                if err[s] <= 0 or len(idx) < 2 or self.deadline.expired():
                    if err[s] > 0:
                        self.truncated = True
                    ptr[s + 1] = n_tests
                    continue
                feat, lo, refs = self.candidates(d, idx, order, ref_of[s])
                Xs = u.X[idx]
                L = Xs[:, feat] <= lo[None, :]
                ok = L.any(axis=0) & ~L.all(axis=0)
                if not ok.all():
                    feat, lo, refs, L = feat[ok], lo[ok], refs[ok], L[:, ok]
                K = len(feat)
                vals = Xs[:, feat]
                hi = np.where(L, np.inf, vals).min(axis=0)
                thr = (lo + hi) / 2.0
                thr = np.where(thr < hi, thr, lo)
                F.append(feat)
                T.append(thr)
                if last:
                    self.count(2 * K)
                    left_w = L.T.astype(float) @ u.Wc[idx]          # (K, C)
                    right_w = cw[None, :] - left_w
                    Le.append(left_w.sum(1) - left_w.max(1))
                    Re.append(right_w.sum(1) - right_w.max(1))
                    Ll.append(np.argmax(left_w, axis=1))
                    Rl.append(np.argmax(right_w, axis=1))
                elif pre_last:
                    ch = last_level_children(Xs, u.Wc[idx], order, L, self.deadline)
                    if not ch.complete:
                        self.truncated = True
                    self.count(2 * K + 2 * int(ch.has.sum()))
                    kids.append(ch)
                    Lc.append(n_kids + 2 * np.arange(K))
                    Rc.append(n_kids + 2 * np.arange(K) + 1)
                    n_kids += 2 * K
                else:
                    lc = np.empty(K, dtype=np.int64)
                    rc = np.empty(K, dtype=np.int64)
                    for k in range(K):
                        for side, mask, dest in ((0, L[:, k], lc), (1, ~L[:, k], rc)):
                            child = idx[mask]
                            key = _state_key(child)
                            j = next_key.get(key)
                            if j is None:
                                j = len(next_idx)
                                next_key[key] = j
                                next_idx.append(child)
                                next_parent.append((s, int(feat[k]), float(lo[k]), side))
                                next_ref.append(self.ref.child(int(refs[k]), side) if self.ref else -1)
                                self.count(1)
                            elif refs[k] >= 0 and next_ref[j] < 0 and self.ref is not None:
                                next_ref[j] = self.ref.child(int(refs[k]), side)
                            dest[k] = j
                    Lc.append(lc)
                    Rc.append(rc)
                n_tests += K
                ptr[s + 1] = n_tests
            lv = _Level(weight=weight, err=err, label=label, ptr=ptr,
                        feature=cat(F, np.int64), threshold=cat(T, float),
                        left=cat(Lc, np.int64), right=cat(Rc, np.int64))
            if last:
                lv.left_err, lv.right_err = cat(Le, float), cat(Re, float)
                lv.left_label, lv.right_label = cat(Ll, np.int64), cat(Rl, np.int64)
            levels.append(lv)
            if pre_last:
                if n_kids:
                    levels.append(_children_level(kids))
                break
            if last:
                break
            orders_prev, idx_prev = orders_cur, idx_list
            idx_list, parent_of, ref_of = next_idx, next_parent, next_ref
            if not idx_list:
                break
        lv = levels[-1]
        if lv.left_err is None:
            # the build stopped before max_depth: no state of this level has a test
            assert lv.n_tests == 0
            lv.left_err, lv.right_err = np.zeros(0), np.zeros(0)
            lv.left_label, lv.right_label = np.zeros(0, np.int64), np.zeros(0, np.int64)
        return DPDTModel(levels=levels, n=float(u.w.sum()), classes=np.empty(0),
                         feature_names=[], max_depth=self.max_depth,
                         n_states=self.n_states, truncated=self.truncated,
                         build_time=time.perf_counter() - t0)

    def _order_of(self, parent: tuple, idx: np.ndarray, orders_prev: list, idx_prev: list
                  ) -> np.ndarray:
        ps, f, lo, side = parent
        if ps < 0:
            return self.units.order
        pidx = idx_prev[ps]
        col = self.units.X[pidx, f] <= lo
        mask = col if side == 0 else ~col
        return _filtered_order(orders_prev[ps], mask)


# ---------------------------------------------------------------- public API
@dataclass
class DPDTResult:
    """DPDT's answer for a whole grid of alphas.

    Attributes
    ----------
    result : SolveResult
        The tree for ``alpha`` (method ``"dpdt"``, objective ``"dpdt"`` = error rate + alpha *
        average tests per training row, status FEASIBLE: DPDT optimizes over its MDP only, so it
        proves nothing about all trees; bound None).
    alpha : float
    alphas : ndarray (A,)
        The grid.
    trees : list of Tree
        The distinct optimal trees over the grid, by increasing average number of tests (i.e.
        from large to small alpha), in the original features with class counts.
    tree_index_per_alpha : ndarray (A,)
        Index into ``trees`` of the optimal tree for each alpha.
    values : ndarray (A,)
        The MDP's optimal value (the DPDT objective) for each alpha.
    pareto_front : list of dict
        Trees not dominated in (training accuracy up, average tests down), by average tests:
        ``accuracy``, ``errors``, ``avg_tests``, ``n_nodes``, ``depth``, ``alpha_min``,
        ``alpha_max`` (the grid's alphas for which it is optimal), ``tree_index``.
    pareto_front_nodes : list of dict
        The same for (accuracy up, number of nodes down).
    model : DPDTModel
        The MDP, for :meth:`tree_for` at any alpha.
    stats : dict
    """

    result: SolveResult
    alpha: float
    alphas: np.ndarray
    trees: list[Tree]
    tree_index_per_alpha: np.ndarray
    values: np.ndarray
    pareto_front: list[dict]
    pareto_front_nodes: list[dict]
    model: DPDTModel
    data: Dataset = field(repr=False)
    stats: dict = field(default_factory=dict)

    @property
    def tree(self) -> Tree | None:
        return self.result.tree

    def tree_for(self, alpha: float) -> Tree:
        """The DPDT tree for any ``alpha >= 0`` (one backward induction on the stored MDP)."""
        alpha = _check_alpha(alpha)
        policy = self.model.induction(np.array([alpha]))
        (_, root), = policy.trees()
        return _make_tree(root, self.data)

    def objective(self, tree: Tree, alpha: float) -> float:
        """Error rate + alpha * average tests per training row of ``tree``, re-evaluated."""
        return dpdt_objective(tree, self.data, alpha)


def dpdt_objective(tree: Tree, data: Dataset, alpha: float) -> float:
    """DESIGN.md's DPDT objective of ``tree`` on ``data``, evaluated with :meth:`Tree.predict`."""
    errors = int((tree.predict_index(data.X) != data.y).sum())
    return errors / data.n_rows + alpha * tree.average_tests(data.X)


def _check_alpha(alpha: Any) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number >= 0, got {alpha!r}") from None
    if not np.isfinite(a) or a < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    return a


def _check_params(max_depth: Any, cart_depth: Any, alphas: Any, max_states: Any, generator: str
                  ) -> tuple[int, list[int], np.ndarray, int]:
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
        raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
    if isinstance(cart_depth, (int, np.integer)) and not isinstance(cart_depth, bool):
        cds = [int(cart_depth)]
    else:
        try:
            cds = [int(c) for c in cart_depth]
        except (TypeError, ValueError):
            raise ValueError(f"cart_depth must be an integer >= 1 or a list of them, got {cart_depth!r}") from None
        if any(not isinstance(c, (int, np.integer)) or isinstance(c, bool) for c in cart_depth):
            raise ValueError(f"cart_depth must hold integers, got {cart_depth!r}")
    if not cds or min(cds) < 1 or max(cds) > 14:
        raise ValueError(f"cart_depth values must be integers in [1, 14], got {cart_depth!r}")
    if alphas is None:
        grid = np.linspace(0.0, 1.0, 1000)
    else:
        grid = np.atleast_1d(np.asarray(alphas, dtype=float))
        if grid.ndim != 1 or len(grid) == 0:
            raise ValueError("alphas must be a non-empty 1-D array of numbers >= 0")
        if not np.all(np.isfinite(grid)) or (grid < 0).any():
            raise ValueError("alphas must be finite numbers >= 0")
    if isinstance(max_states, bool) or not isinstance(max_states, (int, np.integer)) or max_states < 1:
        raise ValueError(f"max_states must be a positive integer, got {max_states!r}")
    if generator not in GENERATORS:
        raise ValueError(f"unknown DPDT test generator {generator!r}; choose one of {', '.join(GENERATORS)}")
    return int(max_depth), cds, grid, int(max_states)


def build_mdp(data: Dataset, *, max_depth: int = 3, cart_depth: int | Sequence[int] = 5,
              max_states: int = 1_000_000, random_state: int = 0, time_limit: float | None = None,
              generator: str = "hybrid", exact_last: bool = True,
              deadline: Deadline | None = None) -> DPDTModel:
    """Build the DPDT MDP of ``data`` (see the module doc); raises ValueError past ``max_states``."""
    max_depth, cds, _, max_states = _check_params(max_depth, cart_depth, None, max_states, generator)
    deadline = deadline or Deadline(time_limit)
    ref = _RefTree(data, max_depth, random_state) if generator != "exhaustive" else None
    builder = _Builder(units=_Units(data), max_depth=max_depth, cart_depth=cds, generator=generator,
                       exact_last=bool(exact_last), max_states=max_states,
                       random_state=random_state, deadline=deadline, ref=ref)
    model = builder.build()
    model.classes = data.classes
    model.feature_names = list(data.feature_names)
    return model


def _make_tree(root: Node, data: Dataset) -> Tree:
    tree = Tree(root=copy.deepcopy(root), classes=data.classes, feature_names=list(data.feature_names))
    tree.fit_counts(data.X, data.y, relabel=True)
    return tree


def _pareto(rows: list[dict], cost: str) -> list[dict]:
    """Rows not dominated in (accuracy up, ``cost`` down), by increasing cost."""
    out: list[dict] = []
    best = -1.0
    for r in sorted(rows, key=lambda r: (r[cost], -r["accuracy"])):
        if r["accuracy"] > best + 1e-12:
            out.append(r)
            best = r["accuracy"]
    return out


def solve_dpdt(data: Dataset, *, max_depth: int = 3, cart_depth: int | Sequence[int] = 5,
               alphas: Sequence[float] | np.ndarray | None = None, alpha: float = 0.0,
               max_states: int = 1_000_000, random_state: int = 0,
               time_limit: float | None = None, generator: str = "hybrid",
               exact_last: bool = True) -> DPDTResult:
    """DPDT trees for a grid of alphas and the tree for ``alpha``.

    Parameters
    ----------
    data : Dataset
        Continuous features used directly (categorical codes are treated as numbers).
    max_depth : int
        Depth of the trees (>= 1).
    cart_depth : int or list of int
        Depth of the CART tree that proposes the tests of a state of depth ``d``
        (``cart_depth[min(d, len - 1)]`` for a list, e.g. ``[3, 2]``).
    alphas : array of float, optional
        The grid (default 1000 values evenly spaced in [0, 1]).
    alpha : float
        The alpha of ``result`` (need not be on the grid).
    max_states : int
        State budget; ValueError when the MDP would exceed it.
    random_state : int
        For scikit-learn's CART (reference tree, generators ``"hybrid"`` and ``"sklearn"``).
    time_limit : float, optional
        Wall-clock seconds; states not expanded in time become leaves (``stats["truncated"]``).
    generator : {"hybrid", "sklearn", "cart", "exhaustive"}
        How candidate tests are proposed (module doc). Default ``"hybrid"``: at the root
        scikit-learn's CART of depth ``cart_depth`` plus each feature's fewest-errors split,
        deeper scikit-learn's CART grown best-first to ``2**cart_depth`` leaves (the authors'
        package's rule, 32 leaves for ``cart_depth=5``). ``"sklearn"``: CART of depth
        ``cart_depth`` at every state, the paper's text; ``"cart"``: satdt's numpy CART (same
        splits as ``"sklearn"`` up to tie-breaking).
    exact_last : bool
        Default True: every split at states one test from ``max_depth`` (the best last split is
        exact; never worse than CART's candidates for any alpha, and cheaper). False: CART's
        candidates there too, the paper's algorithm verbatim.

    Returns
    -------
    DPDTResult
    """
    t0 = time.perf_counter()
    alpha = _check_alpha(alpha)
    max_depth, cds, grid, max_states = _check_params(max_depth, cart_depth, alphas, max_states, generator)
    deadline = Deadline(time_limit)
    model = build_mdp(data, max_depth=max_depth, cart_depth=cds, max_states=max_states,
                      random_state=random_state, generator=generator, exact_last=exact_last,
                      deadline=deadline)
    t1 = time.perf_counter()
    all_alphas = np.append(grid, alpha)
    policy = model.induction(all_alphas)
    groups = policy.trees()
    t2 = time.perf_counter()
    A = len(grid)
    rows, trees = [], []
    chosen: Tree | None = None
    index = np.full(A, -1, dtype=np.int64)
    made: list[tuple[np.ndarray, Tree]] = []
    for ai, root in groups:
        tree = _make_tree(root, data)
        on_grid = ai[ai < A]
        if (ai == A).any():
            chosen = tree
        if len(on_grid):
            made.append((on_grid, tree))
    n = data.n_rows
    for on_grid, tree in made:
        errors = int((tree.predict_index(data.X) != data.y).sum())
        rows.append({"accuracy": 1.0 - errors / n, "errors": errors,
                     "avg_tests": tree.average_tests(data.X), "n_nodes": tree.n_nodes,
                     "depth": tree.depth(), "alpha_min": float(grid[on_grid].min()),
                     "alpha_max": float(grid[on_grid].max()), "_ai": on_grid, "_tree": tree})
    rows.sort(key=lambda r: (r["avg_tests"], r["n_nodes"], -r["accuracy"]))
    for i, r in enumerate(rows):
        r["tree_index"] = i
        index[r.pop("_ai")] = i
        trees.append(r.pop("_tree"))
    objective = dpdt_objective(chosen, data, alpha)
    t3 = time.perf_counter()
    stats = {
        "n_states": model.n_states, "n_levels": len(model.levels),
        "n_tests": int(sum(lv.n_tests for lv in model.levels)),
        "states_per_level": [lv.n_states for lv in model.levels],
        "n_alphas": A, "n_trees": len(trees), "truncated": model.truncated,
        "generator": generator, "exact_last": bool(exact_last), "cart_depth": cds,
        "dpdt_value": float(policy.values[-1]),
        "build_s": t1 - t0, "induction_s": t2 - t1, "trees_s": t3 - t2,
        "mdp_mb": model.nbytes() / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    result = SolveResult(tree=chosen, status=FEASIBLE, objective=objective, bound=None,
                         runtime=time.perf_counter() - t0, method="dpdt", objective_name="dpdt",
                         stats=stats)
    return DPDTResult(result=result, alpha=alpha, alphas=grid, trees=trees,
                      tree_index_per_alpha=index, values=policy.values[:A],
                      pareto_front=_pareto(rows, "avg_tests"),
                      pareto_front_nodes=_pareto(rows, "n_nodes"), model=model, data=data,
                      stats=stats)


def cart_pruning_path(data: Dataset, max_depth: int, random_state: int = 0) -> list[dict]:
    """CART's cost-complexity pruning path at depth ``max_depth`` (scikit-learn, refitted with
    each ``ccp_alpha``), as rows like :attr:`DPDTResult.pareto_front`: ``ccp_alpha``,
    ``accuracy``, ``errors``, ``avg_tests``, ``n_nodes``, ``tree``. The comparator of
    Proposition 2 and of :func:`satdt.plot.plot_dpdt_front`."""
    from sklearn.tree import DecisionTreeClassifier

    base = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state)
    path = base.cost_complexity_pruning_path(data.X, data.y)
    out = []
    for ca in np.unique(path.ccp_alphas):
        model = DecisionTreeClassifier(max_depth=max_depth, random_state=random_state, ccp_alpha=ca)
        tree = Tree.from_sklearn(model.fit(data.X, data.y), feature_names=list(data.feature_names))
        for node in tree.root.walk():
            node.label = int(np.searchsorted(data.classes, model.classes_[node.label]))
        tree.classes = data.classes
        tree.fit_counts(data.X, data.y)
        errors = int((tree.predict_index(data.X) != data.y).sum())
        out.append({"ccp_alpha": float(ca), "accuracy": 1.0 - errors / data.n_rows, "errors": errors,
                    "avg_tests": tree.average_tests(data.X), "n_nodes": tree.n_nodes, "tree": tree})
    return out
