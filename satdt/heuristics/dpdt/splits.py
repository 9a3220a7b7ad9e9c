"""DPDT's split kernels: vectorized numpy passes over one state's rows (Kohler, Akrour & Preux [9]).

Every kernel takes a state's rows ``Xs`` ``(m, p)``, the class weight of each row ``Wc``
``(m, C)`` (integer-valued: merged duplicate rows) and the rows' positions sorted by each
feature ``order`` ``(p, m)``, inherited from the parent state (:mod:`.build`), never re-sorted.

* :func:`cart_splits`: the splits of a Gini CART tree of a given depth, one vectorized pass per
  CART level over all nodes of that level (the ``"cart"`` test generator). The same splits as
  scikit-learn's ``DecisionTreeClassifier`` except that ties between features are broken by the
  lowest feature index (scikit-learn breaks them by a random feature order). The criterion is
  :func:`satdt.heuristics.greedy.gini_scores`'s, computed here for all nodes of a level at once on
  the state's inherited sort orders (the greedy grows one node at a time and re-sorts).
* :func:`all_splits`: every split (the ``"exhaustive"`` generator).
* :func:`best_split_errors`, :func:`best_split_per_feature`: the split with the fewest errors
  (majority leaves on both sides), overall or for each feature.
* :func:`last_level_children`: ``exact_last``'s batched last level: the best last split of both
  children of every test of a state, in one int32 pass over the parent's sorted orders, without
  materializing the children's rows.

Ties are broken the same way everywhere: lowest feature, then lowest threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...deadline import Deadline

__all__ = ["cart_splits", "all_splits", "best_split_errors", "best_split_per_feature",
           "last_level_children"]

_BATCH = 1 << 17          # entries (tests x features x rows) of a cache-sized batch block
_NO_SPLIT = 1 << 30       # error of a non-boundary position (weights are < 2**30)


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
class Children:
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
                        deadline: Deadline | None = None) -> Children:
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
    Children

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
    return Children(weight=weight, err=err, label=label, has=has, feature=feature,
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

