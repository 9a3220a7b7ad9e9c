"""The independent checker of satdt certificates: ``python -m satdt.proof.check DIR`` or ``satdt check DIR``.

With :mod:`satdt.proof.trusted` (reading the files, the tree's cost and question, the DRUP route) it trusts Python,
numpy, the verified DRUP checker ``drup``, the reference encoding and the data file; it imports nothing from satdt's
search, encodings or binarizer (a test parses the imports). Costs are integers ``q * errors + lc * leaves``; a claim
``(rows of path, k, b)`` says every tree of depth ``<= k`` on those rows costs ``>= b``, by one rule: ``leaf`` (one
leaf, or two and the conflicts of identical rows), ``split`` (for every test splitting the rows, or a range of tests,
earlier claims on the two sides summing to ``>= b``), ``similar`` (an earlier claim on a set m rows' weight away, minus
``q m``), or the checker's own optimum: ``depth2`` (k <= 2), ``depth3`` (k <= 3, <= 40 tests), ``enum`` (<= 64 rows),
``box`` (a dynamic programme over boxes). Sets are equal when their counts and two random 64-bit sums of per-row keys
(drawn at each run) are. DT_depth / DT_size: such a DAG over the witness rows or their DRUP proof. A categorical column
is one 0/1 column per category (:func:`~.trusted.expand`), its gap the test ``x == v``. Format, rules: ``FORMAT.md``."""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from .trusted import (FORMAT, MALFORMED, VERSION, Invalid, allowed_thresholds, consistent_question, dp_question,
                      drup_unsat, labels, open_text, path_rows, read_certificate, read_data, split_test, uniq as _uniq)

__all__ = ["check", "Invalid", "FORMAT", "VERSION", "opt_small", "read_data"]

BATCH, CLAIMS = 500_000, 1 << 22  # depth-2 B&B counts held at once (cache: 1.5x faster than 4M); _many's entries
FIRST, SPLIT = 3, 2  # positions of each root feature evaluated first, and per open interval then
DENSE, SMALL = 500, 24  # depth <= 2 by enumeration: tests x run gaps x max(classes, rows / 64) <= DENSE^2, or <= SMALL tests
PAIRS, PAIR_ROWS = DENSE ** 2, 8  # depth 2 by block pairs if classes x blocks^2 <= PAIRS <= PAIR_ROWS x rows x pairs
ENUM_CAP, TRIPLES, TESTS3 = 1 << 22, 1 << 27, 40  # (row sets x tests) enum accepts; depth3's rows x classes x tests^3, tests
BOX_CAP, CUT = 1 << 25, 8  # (boxes x (classes + levels x tests) + CUT x levels x cut tables) the box rule accepts
NARROW = 2 ** 15  # _sides counts in int16 below this many rows (counts, differences in [-n, n]), else int32
_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)  # bits set in each byte (numpy < 2)
_BITS = getattr(np, "bitwise_count", lambda a: _POP[a.view(np.uint8)].reshape(-1, 8).sum(1))  # bits of each uint64


class _Costs:
    """The data, the integer cost and the set functions every rule uses."""

    def __init__(self, X: np.ndarray, y: np.ndarray, C: int, q: int, lc: int):
        self.X, self.y, self.C, self.q, self.lc, self.n, self._codes = X, y, C, q, lc, X.shape[0], [None, None]
        self.group, self._pairs, self._tests = (g := np.unique(X, axis=0, return_inverse=True)[1].reshape(-1)), [None, None], [None]
        self.gy, self.ngy, self.pure = (gy := g * C + y), (m := (g.max(initial=-1) + 1) * C), _uniq(gy).size * C == m
        self.keys = np.random.default_rng(int.from_bytes(os.urandom(8), "little")).integers(
            0, 2 ** 63, size=(2, self.n), dtype=np.uint64) * np.uint64(2) + np.uint64(1)  # (2 x n: take + sum is fast)

    def codes(self, allowed: dict | None):
        """Each row's value code per feature (rank of its value or allowed interval), after the previous features'."""
        if self._codes[0] is not allowed or self._codes[1] is None:
            vs = [allowed.get(f, np.empty(0)) if allowed is not None else _uniq(c) for f, c in enumerate(self.X.T)]
            off = np.cumsum([0] + [v.size + 1 for v in vs])
            self._codes = [allowed, (np.stack([np.searchsorted(v, c) for v, c in zip(vs, self.X.T)], 1) + off[:-1], off)]
        return self._codes[1]

    def tests(self, allowed: dict | None) -> np.ndarray | None:
        """Each row left of each test of the data (bool; None past 64 tests, or none), cached per ``allowed`` as ``codes``."""
        if self._tests[0] is not allowed or len(self._tests) == 1:
            u = (Ru := _blocks(self, np.arange(self.n), allowed))[1]
            self._tests = [allowed, _left(*Ru) if 0 < (u - 1).sum() <= 64 else None]
        return self._tests[1]

    def leaf(self, S: np.ndarray) -> int:
        return self.q * (S.size - int(np.bincount(self.y[S], minlength=self.C).max(initial=0))) + self.lc

    def leaf_rule(self, S: np.ndarray, k: int) -> int:
        if k == 0 or self.pure:  # (pure: no row set has a conflict)
            return self.leaf(S) if k == 0 else min(self.leaf(S), 2 * self.lc)
        conflicts = S.size - int(np.bincount(self.gy[S], minlength=self.ngy).reshape(-1, self.C).max(1).sum())
        return min(self.leaf(S), self.q * conflicts + 2 * self.lc)

    def key(self, S: np.ndarray) -> tuple[int, int, int]:
        return (int(S.size), *map(int, self.keys.take(S, 1).sum(1)))  # (no row: 0, 0)


def _blocks(cst: _Costs, S: np.ndarray, allowed: dict | None):
    """Each row's block per feature (0 .. u - 1 over the non-empty blocks of S cut by every gap, or by the ``allowed``
    thresholds; gap ``a`` in 1 .. u - 1 sends the blocks < a left), u per feature: the rank of the row's code among
    the codes S holds (:meth:`_Costs.codes`; no sort)."""
    (codes, off), held = cst.codes(allowed), np.zeros(int(cst.codes(allowed)[1][-1]), np.int64)
    held[(V := codes[S]).ravel()] = 1
    before = (cum := np.cumsum(held))[off[:-1]] - held[off[:-1]]  # codes held by the earlier features
    return cum[V] - 1 - before, cum[off[1:] - 1] - before


def _ranks(cst: _Costs, S: np.ndarray, R: np.ndarray, u: np.ndarray):
    """The blocks, u, and the blocks merged into runs of consecutive one-class blocks, for depth-1 subtrees on any subset
    of S: across such a run each side's errors are concave in the rows of one class moved, least at a run's end, a gap."""
    p, C, y, U, fp = cst.X.shape[1], cst.C, cst.y[S], int(u.max()), np.arange(cst.X.shape[1])  # (R, u: _blocks)
    cnt = np.bincount(((fp * U + R) * C + y[:, None]).ravel(), minlength=p * U * C).reshape(p, U, C)
    lab = np.where((cnt > 0).sum(2) == 1, cnt.argmax(2), -1)
    comp = np.cumsum(np.concatenate([np.ones((p, 1), bool), (lab[:, 1:] != lab[:, :-1]) | (lab[:, 1:] < 0)], 1), 1) - 1
    return R, u, comp[fp, R], comp[fp, u - 1] + 1, cnt


def _sides(cst: _Costs, S: np.ndarray, R: np.ndarray, child, segs):
    """Depth-<=1 optimum of the left and the right side of each root gap of ``segs`` ([(f, gaps)]), over every child
    test: 2-D cumulative class counts (class, root gap, child column), int16 below NARROW rows."""
    q, lc, C, y, n = cst.q, cst.lc, cst.C, cst.y[S], S.size
    (cols, offs, colTot, tot), dt = child, np.int16 if n < NARROW else np.int32
    A, W, F = np.concatenate([g + j * (n + 1) for j, (_, g) in enumerate(segs)]), int(offs[-1]), len(segs)
    seg = np.searchsorted(A, R[:, [f for f, _ in segs]] + np.arange(F) * (n + 1), side="right") + np.arange(F)
    P, ends = A.size + F, np.cumsum([g.size + 1 for _, g in segs])
    M = np.bincount(((y[:, None] * P + seg)[:, :, None] * W + cols[:, None, :]).ravel(),
                    minlength=C * P * W).astype(dt).reshape(C, P, W)
    for a in np.delete(np.arange(1, P), ends[:-1] - 1):  # M[c, a, col]: root block < a (restarted per
        M[:, a] += M[:, a - 1]              # segment; numpy's cumsum on this axis: 5-200x slower)
    M = np.delete(M, ends - 1, axis=1)
    M[:, :, offs[1:-1]] -= np.add.reduceat(M, offs[:-1], axis=2, dtype=dt)[:, :, :-1]  # restart per child feature
    np.cumsum(M, 2, dtype=dt, out=M)        # ... and child run <= b (b = last of a block: no split)
    left = M[:, :, offs[1] - 1].astype(np.int64)  # class counts of each left side (int64: q x count > 2^31)
    nL, right = left.sum(0), tot[:, None] - left
    eL = (nL[:, None] - M.max(0) - (left.astype(dt)[:, :, None] - M).max(0)).min(1).astype(np.int64)
    M -= colTot.astype(dt)[:, None, :]      # minus the right side's counts up to b
    eR = ((n - nL)[:, None] + M.min(0) - (right.astype(dt)[:, :, None] + M).max(0)).min(1).astype(np.int64)
    return (np.minimum(q * (nL - left.max(0)) + lc, q * eL + 2 * lc),
            np.minimum(q * ((n - nL) - right.max(0)) + lc, q * eR + 2 * lc))


def _two_leaves(cst: _Costs, cc: np.ndarray) -> np.ndarray:
    """No depth-<=1 tree on class counts ``cc`` (classes last) costs less: one leaf, or two right on the two largest."""
    s, m, q, lc = np.sort(cc, -1), cc.sum(-1), cst.q, cst.lc
    return np.minimum(q * (m - s[..., -1]) + lc, q * (m - s[..., -1] - (s[..., -2] if cst.C > 1 else 0)) + 2 * lc)


def _left(R: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The rows each gap sends left (rows x gaps, bool): gaps 1 .. u - 1 of each feature's blocks R."""
    f = np.repeat(np.arange(u.size), u - 1)
    return R[:, f] < np.arange(1, f.size + 1) - np.repeat(np.cumsum(u - 1) - (u - 1), u - 1)


def _best(cst: _Costs, tot, Lc, Hc, LL, k) -> np.ndarray:
    """The optimum over trees of depth <= k (0-2, one per set) of each set (axis 0) from its :func:`_counts`."""
    err, cost = lambda c: c.sum(1, dtype=c.dtype) - c.max(1), lambda e, m: e.astype(np.int64) * cst.q + m * cst.lc
    top, no_test = cost(err(tot), 1), 0 in LL.shape[2:]  # (no test: one class or distinct row, or depth <= 1; one: <= 1)
    one = np.minimum(top, cost(err(Hc) + err(tot[:, :, None] - Hc), 2).min(1, initial=2 ** 62)) if no_test or np.min(k) < 2 else top
    if no_test:
        return np.where(k == 0, top, one)
    RL, Rc = Hc[:, :, None, :] - LL, tot[:, :, None] - Lc  # right of a, left of b; right of a
    if cst.C == 2:  # a leaf's errors: its smaller count (1.7x faster than the size minus the largest count)
        eL, eR = [(np.minimum(A[:, 0], A[:, 1]) + np.minimum(B[:, 0], B[:, 1])).min(2) for A, B in
                  ((LL, Lc[..., None] - LL), (RL, Rc[..., None] - RL))]  # left of a; right of a
    else:  # size - largest counts (sums in the counts' type: int64 sums are 1.4x slower)
        eL = ((nL := Lc.sum(1, dtype=Lc.dtype))[..., None] - LL.max(1) - (Lc[..., None] - LL).max(1)).min(2)
        eR = ((tot.sum(1, dtype=tot.dtype)[:, None] - nL)[..., None] - RL.max(1) - (Rc[..., None] - RL).max(1)).min(2)
    oL, oR = np.minimum(cost(err(Lc), 1), cost(eL, 2)), np.minimum(cost(err(Rc), 1), cost(eR, 2))
    return np.where(k == 0, top, np.where(k == 1, one, np.minimum(top, (oL + oR).min(1))))


def _counts(cst: _Costs, S: np.ndarray, k: int, G: np.ndarray, H: np.ndarray, T0: int) -> tuple:
    """S's class counts (axis 1; axis 0: one set) ``tot``, left of each root test G ``Lc`` (two-leaf bound below T0, on
    many pairs), of each depth-1 test H ``Hc`` (run gaps: :func:`_ranks`), of both ``LL`` (depth 2); exact (0/1 products)."""
    C, y, T, Tc, dt = cst.C, cst.y[S], G.shape[1], H.shape[1], np.int16 if S.size < NARROW else np.int32
    ft = np.float32 if S.size < 1 << 24 else np.float64  # (float32 sums of 0/1 are exact below 2^24 rows only)
    G, H, Y = G.astype(ft), H.astype(ft), (y == np.arange(C)[:, None]).astype(ft)
    tot, Hc, Lc = np.bincount(y, minlength=C), (Y @ H).astype(dt), (Y @ G).astype(dt)
    keep = np.flatnonzero(_two_leaves(cst, Lc.T) + _two_leaves(cst, tot - Lc.T) < T0) if T * Tc > 4096 else np.arange(T)
    o, ends = np.argsort(y, kind="stable"), np.cumsum(np.append(0, tot)).tolist()
    G, H, Lc, T = G[o][:, keep], H[o], Lc[:, keep], keep.size
    LL = np.empty((1, C, T, Tc if k == 2 else 0), dt)  # LL[0, c, a, b]: class c left of a and b
    for c, (a, b) in enumerate(zip(ends[:-1], ends[1:]) if k == 2 else ()):  # rows a:b, class c; one BLAS thread
        for i in range(0, T, step := max(1, 200_000 // max(1, (b - a) * Tc))):
            LL[0, c, i:i + step] = G[a:b, i:i + step].T @ H[a:b]
    return tot.astype(dt)[None], Lc[None], Hc[None], LL


def _many(cst: _Costs, G: np.ndarray, claims: list) -> tuple:
    """:func:`_counts` at depth 2 and the depths of many depth2 claims ``(at, S, k, b)`` on the data's tests G (rows x
    tests, 0/1): the rows of each (set, class) padded with rows of no test, their products ``M.T @ M`` at once."""
    sets, ks = [S for _, S, _, _ in claims], np.array([k for _, _, k, _ in claims])
    grp = np.repeat(np.arange(len(sets)), [S.size for S in sets]) * cst.C + cst.y[idx := np.concatenate(sets)]
    ends = np.searchsorted(grp := grp[o := np.argsort(grp, kind="stable")], np.arange(len(sets) * cst.C + 1))
    M = np.zeros((len(sets) * cst.C, int(np.diff(ends).max(initial=0)), G.shape[1]), np.float32)
    M[grp, np.arange(idx.size) - ends[grp]] = G[idx[o]]
    LL = (M.transpose(0, 2, 1) @ M).astype(np.int32).reshape(len(sets), cst.C, G.shape[1], G.shape[1])
    return np.diff(ends).reshape(len(sets), cst.C), LL.diagonal(0, 2, 3), LL.diagonal(0, 2, 3), LL, ks


def depth3_fits(rows: int, C: int, T: int, cap: int) -> bool:
    """Whether :func:`opt_depth3` takes rows x C classes x T tests: T <= 40, its work rows x C x T^3 and arrays C x T^3
    within ``cap`` and 2^22, under 2^24 rows (every partial sum of its 0/1 float32 products an exact integer)."""
    return 0 < T <= TESTS3 and rows * C * T ** 3 <= cap and C * T ** 3 <= 1 << 22 and rows < 1 << 24


def opt_depth3(cst: _Costs, S: np.ndarray, k: int, allowed: dict | None = None) -> int | None:
    """The optimum over trees of depth <= 3 (a bound at depth k <= 3) on the rows S, or None (k > 3, or past
    :func:`depth3_fits`): one leaf, or a root test a and each side's depth-<=2 optimum by :func:`_best` (a set per a),
    from the class counts left of every three tests (0/1 products of the data's tests)."""
    if k > 3 or (G := cst.tests(allowed)) is None or not depth3_fits(S.size, cst.C, T := G.shape[1], TRIPLES):
        return None  # (G: each row left of each test of the data, cached)
    step, zero = max(1, 200_000 // T ** 3), np.zeros((T * T, T), np.float32)  # (products under OpenBLAS's threading threshold)
    N = np.stack([sum((((R := G[Sc[i:i + step]].astype(np.float32))[:, :, None] * R[:, None]).reshape(-1, T * T).T @ R
        for i in range(0, Sc.size, step)), zero).reshape(T, T, T) for Sc in (S[cst.y[S] == c] for c in range(cst.C))], 1)
    N = N.astype(np.int32)  # N[a, c, b, d]; L[a, c, b]: left of a, b
    left = _best(cst, (Lc := (L := N.diagonal(0, 2, 3)).diagonal(0, 0, 2)).T, L, L, N, 2)
    right = _best(cst, np.bincount(cst.y[S], minlength=cst.C) - Lc.T, (R := Lc[None] - L), R, L.transpose(1, 0, 2)[None] - N, 2)
    return int(min(cst.leaf(S), (left + right).min()))  # (right of a: S's counts minus those left of a; exact counts)


def _pairs(cst: _Costs, S: np.ndarray, allowed: dict | None) -> tuple | None:
    """:func:`_counts` at depth 2 over every gap of S: its class counts in each pair of blocks of two features f <= g (f =
    g: the diagonal) on the blocks S holds, then 2-D running sums restarted per feature (the earlier features' sum to f x
    the totals). None when a block pair gets few rows, or too many blocks or distinct rows (cached: their pair ids)."""
    if cst._pairs[0] is not allowed or cst._pairs[1] is None:
        (codes, off), (f, g) = cst.codes(allowed), np.triu_indices(cst.X.shape[1])
        _, at, ids = np.unique(cst.y * cst.n + cst.group, return_index=True, return_inverse=True)
        B, U = codes[at], int(off[-1])
        cst._pairs = [allowed, cst.C * U * U <= PAIRS and at.size * f.size <= 8 * PAIRS and (ids.reshape(-1), (
            cst.y[at, None] * U + B[:, f]) * U + B[:, g], np.repeat(np.arange(off.size - 1), np.diff(off)), U)]
    if not (P := cst._pairs[1]) or cst.C * P[3] ** 2 > PAIR_ROWS * S.size * P[1].shape[1] or (j := np.flatnonzero(
            w := np.bincount(P[0][S]))).size * P[1].shape[1] > PAIRS:
        return None
    ids, pid, fe, U = P
    H = np.bincount(pid[j].ravel(), np.repeat(w[j].astype(float), pid.shape[1]), cst.C * U * U).reshape(cst.C, U, U)
    h = np.flatnonzero(H.diagonal(0, 1, 2).sum(0))  # the blocks S holds, their features
    H, d, fe = H.take(h, 1).take(h, 2).astype(np.int32), np.arange(h.size), fe[h].astype(np.int32)
    cnt, tot, H = H[:, d, d], np.bincount(cst.y[S], minlength=cst.C).astype(np.int32), H + H.transpose(0, 2, 1)
    H[:, d, d], Lc = cnt, np.cumsum(cnt, 1, dtype=np.int32) - fe * tot[:, None]
    H = np.cumsum(H, 1, dtype=np.int32) - fe[:, None] * cnt[:, None, :]
    return tot[None], Lc[None], Lc[None], (np.cumsum(H, 2, dtype=np.int32) - fe * Lc[:, :, None])[None]


def opt_small(cst: _Costs, S: np.ndarray, k: int, allowed: dict | None = None, target: int | None = None) -> int:
    """``min(target, optimum)`` over trees of depth <= k (0-2) on the rows S, every gap of S or the ``allowed`` thresholds
    (a test not splitting S: a real tree too). Depth 2: :func:`_pairs` when it applies, else a branch and bound over root
    gaps: the left side's optimum only grows with the gap, the right side's only shrinks (a tree on a set is one on its
    subsets), by <= q a row, so a gap with x rows left between evaluated gaps a < a' (xa, xa' rows) costs >= max(left(a),
    left(a') - q (xa' - x)) + max(right(a'), right(a) - q (x - xa)), convex in x; such an interval is split to reach T."""
    T = min(cst.leaf(S) if S.size else cst.lc, 2 ** 63 if target is None else int(target))
    if k == 0 or S.size == 0 or T <= cst.lc:  # (every tree costs >= lc: one leaf or more, errors >= 0)
        return T
    if k == 2 and (counts := _pairs(cst, S, allowed)) is not None:
        return min(T, int(_best(cst, *counts, 2)[0]))
    q, lc, C, n, y, (R, u) = cst.q, cst.lc, cst.C, S.size, cst.y[S], _blocks(cst, S, allowed)
    if int((u - 1).sum()) <= SMALL:  # few tests: plain enumeration, every gap a depth-1 test too (no runs)
        return min(T, int(_best(cst, *_counts(cst, S, k, G := _left(R, u), G, T), k)[0]))
    R, u, Rc, uc, cnt = _ranks(cst, S, R, u)
    if int((u - 1).sum()) * int((uc - 1).sum()) * max(C, n // 64) <= DENSE ** 2:  # plain enumeration
        return min(T, int(_best(cst, *_counts(cst, S, k, _left(R, u), _left(Rc, uc), T), k)[0]))
    if k == 1 or (fs := np.flatnonzero(u >= 2)).size == 0:  # every gap (past a feature's last block: no split, no less than one leaf)
        return min(T, int((q * (n - (L := np.cumsum(cnt, 1)).max(2) - (L[:, -1:] - L).max(2))).min()) + 2 * lc)
    cols = Rc[:, fs] + (offs := np.concatenate([[0], np.cumsum(uc[fs])]))[:-1]
    colTot = np.bincount((y[:, None] * offs[-1] + cols).ravel(), minlength=C * offs[-1]).reshape(C, -1)
    colTot[:, offs[1:-1]] -= np.add.reduceat(colTot, offs[:-1], axis=1)[:, :-1]
    child = (cols, offs, np.cumsum(colTot, 1).astype(np.int32), np.bincount(y, minlength=C))
    per_gap, per_seg, cap = C * int(offs[-1]), n * fs.size, max(1, BATCH // (C * int(offs[-1])) - 1)  # <= ~BATCH
    left = np.cumsum(cnt[fs], 1)[:, :-1]    # class counts left of each gap, then the gaps this leaves open
    lb = _two_leaves(cst, left) + _two_leaves(cst, child[3] - left)
    of, og = np.nonzero((np.arange(1, left.shape[1] + 1) < u[fs, None]) & (lb < T))
    nrow, (of, og) = left.sum(2)[of, og], (fs[of], og + 1)  # rows left of each open gap (feature, gap) in order
    m = np.diff(np.append(starts := np.flatnonzero(np.concatenate([[True], of[1:] != of[:-1]])), of.size))
    kk = np.minimum(m, FIRST)               # first positions: a few per feature, evenly spread, ends included
    i = np.arange(kk.sum()) - np.repeat(np.cumsum(kk) - kk, kk)
    new = np.repeat(starts, kk) + (i * np.repeat(m - 1, kk)) // np.maximum(np.repeat(kk, kk) - 1, 1)
    kp = kL = kR = np.empty(0, np.int64)
    while new.size:  # evaluate the new positions in batches, then open positions inside open intervals
        cut = np.flatnonzero(of[new][1:] != of[new][:-1]) + 1
        segs = [(int(of[p_[0]]), og[p_][i:i + cap]) for p_ in np.split(new, cut) for i in range(0, p_.size, cap)]
        while segs:
            j, size = 1, segs[0][1].size + 1
            while j < len(segs) and (size + segs[j][1].size + 1) * per_gap + (j + 1) * per_seg <= BATCH:
                size, j = size + segs[j][1].size + 1, j + 1
            cL, cR, segs = *_sides(cst, S, R, child, segs[:j]), segs[j:]
            T = min(T, int((cL + cR).min()))
            kL, kR = np.concatenate([kL, cL]), np.concatenate([kR, cR])
        kp, kL, kR = (kp := np.concatenate([kp, new]))[o := np.argsort(kp)], kL[o], kR[o]
        gap = np.where(of[kp][1:] == of[kp][:-1], kp[1:] - kp[:-1] - 1, 0)
        n1, n2, A, B, D, E = nrow[kp[:-1]], nrow[kp[1:]], kL[:-1], kL[1:], kR[1:], kR[:-1]  # (x: rows left of a gap)
        x = np.clip(np.stack([n1, n2, *(n2 - (B - A) // q - [[0], [1]]), *(n1 + (E - D) // q + [[0], [1]])]), n1, n2)
        j = np.flatnonzero((gap > 0) & ((np.maximum(A, B - q * (n2 - x)) + np.maximum(D, E - q * (x - n1))).min(0) < T))
        s = np.minimum(gap[j], SPLIT)       # a few new positions, evenly spread, inside each open interval
        i = np.arange((rep := np.repeat(np.arange(j.size), s)).size) - np.repeat(np.cumsum(s) - s, s) + 1
        new = kp[j][rep] + (i * (gap[j] + 1)[rep]) // (s + 1)[rep]
    return T


def opt_enum(cst: _Costs, S: np.ndarray, k: int, allowed: dict | None = None) -> int | None:
    """The optimum over trees of depth <= k on the rows S (at most 64: a row set is a uint64 bit mask over S), or None
    past ``ENUM_CAP``: every row set a path of <= k tests reaches (each distinct partition of S by a gap, or an allowed
    threshold, is one test: a test splits a subset as the test of S whose gap holds it), then ``opt_j(B) = min(leaf(B),
    min over tests t of opt_{j-1}(B & t) + opt_{j-1}(B & ~t))`` from j = 1 up, for the sets <= k - j tests away."""
    if S.size > 64 or S.size == 0 or k == 0:
        return None if S.size > 64 else cst.leaf(S)
    bit, k = np.left_shift(np.uint64(1), np.arange(S.size, dtype=np.uint64)), min(k, S.size)  # (a path
    R, u = _blocks(cst, S, allowed)  # of more useful tests than |S| - 1 cannot exist)
    if (u - 1).sum() > ENUM_CAP:
        return None
    g = _uniq((_left(R, u) * bit[:, None]).sum(0, dtype=np.uint64))
    keys, front, dist = (every := np.array([bit.sum(dtype=np.uint64)])), every, np.zeros(1, np.int64)
    for j in range(1, k + 1):  # the sets first reached by j tests
        if (keys.size + 2 * front.size) * g.size > ENUM_CAP:
            return None
        new, old = _uniq(np.concatenate([(front[:, None] & g).ravel(), (front[:, None] & ~g).ravel()])), np.sort(keys)
        front = new[old[np.minimum(np.searchsorted(old, new), old.size - 1)] != new]
        keys, dist = np.concatenate([keys, front]), np.concatenate([dist, np.full(front.size, j)])
    keys, dist = keys[o := np.argsort(keys)], dist[o]
    cnt = np.stack([_BITS(keys & (bit * (cst.y[S] == c)).sum(dtype=np.uint64)) for c in range(cst.C)], 1).astype(np.int64)
    leaf = cst.q * (cnt.sum(1) - cnt.max(1)) + cst.lc
    opt, inner = leaf.copy(), np.flatnonzero(dist < k)  # only the tests splitting B (one that does not: opt_j-1(B) + lc)
    i, t = np.nonzero(((Bg := keys[inner, None] & g) != 0) & (Bg != keys[inner, None]))  # (i sorted; at: each
    L, R = np.searchsorted(keys, Bg[i, t]), np.searchsorted(keys, keys[inner[i]] ^ Bg[i, t])  # set's first test)
    for _ in range(k if (at := np.flatnonzero(np.diff(i, prepend=-1))).size else 0):  # round j: opt_j, <= k - j away
        opt[inner[i[at]]] = np.minimum(leaf[inner[i[at]]], np.minimum.reduceat(opt[L] + opt[R], at))
    return int(opt[np.searchsorted(keys, bit.sum(dtype=np.uint64))])


def opt_box(cst: _Costs, S: np.ndarray, k: int, allowed: dict | None = None, cap: float = BOX_CAP) -> int | None:
    """The optimum over trees of depth <= k on the rows S, or None past ``cap``: a dynamic programme over the boxes of S
    (per feature an interval of S's blocks, :func:`_blocks`: every row set a path reaches, and empty ones), ``opt_j(B)
    = min(leaf(B), min over every feature and gap inside B's interval of opt_{j-1}(lower box) + opt_{j-1}(upper box))``
    for j = 1 .. k (<= the tests: a box of single blocks has no cut); per feature a gather, add, min a cut position."""
    R, u = _blocks(cst, S, allowed) if S.size and k else (None, np.ones(1, np.int64))
    if not (fs := np.flatnonzero(u >= 2)).size:  # (no row, depth 0 or no test: one leaf)
        return cst.leaf(S)
    u, R, levels = u[fs], R[:, fs], min(k, int((u - 1).sum()))
    if np.prod(u * (u + 1) // 2, dtype=object) * (cst.C + levels * int((u - 1).sum())) + int(CUT * levels * float(
            (u * (u - 1) ** 2).sum())) > min(cap, BOX_CAP):  # (+ cut tables: 3 arrays of ~u^3 / 2; Python ints: exact)
        return None
    cnt, cuts = np.bincount(np.ravel_multi_index((*R.T, cst.y[S]), (*u, cst.C)), minlength=int(np.prod(u)) * cst.C), []
    cnt = cnt.reshape(*u, cst.C).astype(np.int32)  # (class counts per cell, then per box by running sums)
    for f, v in enumerate(u.tolist()):  # feature f's intervals (a, b), a <= b, in triu order: (0, v - 1) is v - 1
        a, b = np.triu_indices(v)
        cum = np.concatenate([np.zeros_like(cnt.take([0], f)), np.cumsum(cnt, f)], f)
        cnt, at, has = cum.take(b + 1, f) - cum.take(a, f), np.full((v, v), -1), np.flatnonzero(a < b)
        at[a, b], g = np.arange(a.size), np.minimum(a[has, None] + np.arange(1, v), b[has, None])  # cuts a < g <= b
        cuts.append((has, at[a[has, None], g - 1], at[g, b[has, None]]))  # (the last repeated): (a, g - 1), (g, b)
    big = cst.q * S.size + cst.lc  # no box costs more: int32 below 2^30
    opt = leaf = (cst.q * (cnt.sum(-1) - cnt.max(-1)) + cst.lc).astype(np.int32 if big < 2 ** 30 else np.int64)
    for _ in range(levels):
        new = leaf.copy()
        for f, (has, lft, rgt) in enumerate(cuts):  # feature f's axis first: rows of boxes
            o, m, nv = (o := np.moveaxis(opt, f, 0)).reshape(o.shape[0], -1), big, np.moveaxis(new, f, 0)
            for j in range(lft.shape[1]):  # (a cut position at a time: temporaries of <= boxes entries)
                m = np.minimum(m, o[lft[:, j]] + o[rgt[:, j]])
            nv[has] = np.minimum(nv[has], m.reshape(-1, *nv.shape[1:]))
        if np.array_equal(new, opt):
            break
        opt = new
    return int(opt[tuple(u - 1)])


def _check_claims(path: str, man: dict, cst: _Costs, root_depth: int, where: list) -> int:
    """Check every claim in order; return the root's bound (``where``: :func:`~.trusted.expand`'s map)."""
    allowed, label, XT, prev = allowed_thresholds(man, where), labels(where), np.ascontiguousarray(cst.X.T), []
    done, todo, G = [], [], cst.tests(allowed)  # (rows, key, bound, depth) of each claim; depth2 claims checked at the end
    with open_text(path) as fh:
        for line_no, line in enumerate(fh):
            try:
                cid, k, b, rule = int((c := json.loads(line))["id"]), int(c["depth"]), int(c["bound"]), c["rule"]
                S = path_rows(c["path"], prev, XT, where)
            except Exception as exc:  # noqa: BLE001 - any malformed line is invalid
                raise Invalid(f"claims line {line_no + 1}: malformed ({exc})") from None
            at = f"claim {cid} (depth {k}, bound {b}, {rule})"
            if cid != len(done) or k < 0:
                raise Invalid(f"{at}: ids must be 0, 1, ... in order")
            def ref(j: int) -> int:
                if not 0 <= int(j) < cid:
                    raise Invalid(f"{at}: refers to claim {j}, not an earlier one")
                return int(j)
            if rule == "leaf":
                ok = b <= cst.leaf_rule(S, k)
            elif rule in ("enum", "box", "depth3"):  # the checker's own optimum
                ok = (e := {"enum": opt_enum, "box": opt_box, "depth3": opt_depth3}[rule](cst, S, k, allowed)) is not None and b <= e
            elif rule == "depth2":
                todo += [(at, S, k, b)] * (few := 0 < k <= 2 and G is not None and S.size * G.shape[1] ** 2 <= 4 * DENSE ** 2)
                ok = k <= 2 and (few or b <= opt_small(cst, S, k, allowed, b))
            elif rule == "similar":
                A, _, bA, kA = done[ref(c["from"])]
                ok = k <= kA and b <= bA - cst.q * (A.size - np.count_nonzero(np.bincount(S, minlength=cst.n)[A]))
            elif rule == "split":
                if k < 1 or b > cst.leaf(S):
                    raise Invalid(f"{at}: above the leaf cost or depth 0")
                vals = {}  # per column: S's values sorted, their running key sums, its distinct values, +1 / -1 at range ends
                for e in c["tests"]:  # [f, t, left, right] or a range [f, t_lo, t_hi, left, right]
                    f, lo, hi, test = split_test(where, e, allowed, at)  # f: the column of cst.X
                    if f not in vals:  # (a side's key: a difference of running sums)
                        o, v = np.argsort(xs := XT[f].take(S)), _uniq(xs)  # (run[:, e - 1]: the e first rows' sums)
                        vals[f] = (xs[o], np.cumsum(cst.keys[:, S[o]], 1), v, np.zeros(v.size + 1, int))
                    (lid, rid), (eL, eR), run = map(ref, e[-2:]), np.searchsorted(vals[f][0], [lo, hi], "right"), vals[f][1]
                    if not eL or eR == S.size:
                        raise Invalid(f"{at}: test {test} does not split the rows")
                    for child, side in ((lid, (eL, *run[:, eL - 1])), (rid, (S.size - eR, *(run[:, -1] - run[:, eR - 1])))):
                        if done[child][1] != tuple(map(int, side)) or done[child][3] < k - 1:  # (ranges: least sides)
                            raise Invalid(f"{at}: claim {child} is not on the rows of {test}")
                    if done[lid][2] + done[rid][2] < b:
                        raise Invalid(f"{at}: test {test} gives only {done[lid][2] + done[rid][2]}")
                    vals[f][3][np.searchsorted(vals[f][2], [lo, hi], side="right") + [0, 1]] += [1, -1]  # (i < j + 1)
                for f in np.flatnonzero(_blocks(cst, S, allowed)[1] >= 2).tolist():  # the columns a test splits S on
                    v, cov = vals[f][2:] if f in vals else (vs := _uniq(XT[f].take(S)), np.zeros(vs.size + 1, int))
                    need = np.arange(1, v.size) if allowed is None else _uniq(np.searchsorted(v, allowed.get(f, []), "right"))
                    need = need[(need >= 1) & (need < v.size)]
                    miss = need[np.cumsum(cov)[need] <= 0]  # (gaps 1 .. |v| - 1 of S's values, or the allowed ones)
                    if miss.size:  # (a category's column: its one gap)
                        raise Invalid(f"{at}: no entry for the test {label[f]} {v[miss[0] - 1]!r} (gap {miss[0]} of {v.size - 1})")
                ok = True
            else:
                raise Invalid(f"{at}: unknown rule")
            if not ok:
                raise Invalid(f"{at}: the rule does not give this bound")
            done.append((S, cst.key(S), b, k))
    step = max(1, CLAIMS // max([cst.C * max(t[1].size, G.shape[1]) * G.shape[1] for t in todo] + [1]))  # (M, LL)
    for part in (todo[i:i + step] for i in range(0, len(todo), step)):  # (a test not splitting a set: a real tree too)
        if bad := [at for (at, _, _, b), v in zip(part, _best(cst, *_many(cst, G, part))) if b > v]:
            raise Invalid(f"{bad[0]}: the rule does not give this bound")
    if not done or done[-1][0].size != cst.n or done[-1][3] != root_depth:  # (claim -1: no claim)
        raise Invalid(f"claim {len(done) - 1}: the last claim must be on every row at depth {root_depth}")
    return done[-1][2]


def _check_consistent(d: str, man: dict, X: np.ndarray, y: np.ndarray, classes: list, tree_info, where) -> str:
    value, question, said, rows = consistent_question(man, tree_info, X.shape[0])
    if rows is None:
        return f"{man['objective']} {value}: nothing smaller exists"
    if "claims" in man["files"]:  # the DP route: every tree of the question's depth costs >= m + 2 with
        m = question["max_splits"]  # cost = (m + 2) errors + leaves, so an error-free one has > m splits
        q, lc, need = (1, 0, 1) if m is None else (m + 2, 1, m + 2)  # (on the witness rows only: a subset suffices)
        cst = _Costs(X[on := rows if man.get("claims_rows") == "witness" else list(range(X.shape[0]))], y[on], len(classes), q, lc)
        if _check_claims(os.path.join(d, man["files"]["claims"]), man, cst, question["max_depth"], where) < need:
            raise Invalid(f"claim root: does not prove {need} for the question {question}")
        return f"{man['objective']} {value}: {said} classifies these {len(on)} rows (lower-bound DAG)"
    drup_unsat(X[rows], y[rows], len(classes), question["max_depth"], question["max_splits"],
               os.path.join(d, man["files"]["cnf"]), os.path.join(d, man["files"]["proof"]))
    return f"{man['objective']} {value}: the {len(rows)} witness rows admit {said} (DRUP)"


def check(d: str) -> str:
    """Check the certificate in directory ``d``: return a one-line summary, or raise :class:`Invalid`."""
    try:
        man, X, y, classes, where, space, lam, q, lc, info = read_certificate(d)
        if man["kind"] == "consistent":
            return _check_consistent(d, man, X, y, classes, info, where) + space
        cost, errors, leaves = dp_question(man, info, lam)
        bound = _check_claims(os.path.join(d, man["files"]["claims"]), man, _Costs(X, y, len(classes), q, lc),
                              int(man["max_depth"]), where)
    except MALFORMED as exc:
        raise Invalid(f"malformed certificate: {type(exc).__name__}: {exc}") from None
    if bound < cost:
        raise Invalid(f"claim root: proves {bound}, the tree costs {cost}")
    what = f"{errors} errors" if lam is None else f"{errors} errors + lam {lam} x {leaves} leaves"
    return f"{man['objective']} at depth <= {man['max_depth']}: the tree ({what}) is optimal{space}"


def main(argv: list[str] | None = None) -> int:
    """``python -m satdt.proof.check DIR``: exit 0 valid, 1 invalid (first failing claim on stderr)."""
    if len(args := sys.argv[1:] if argv is None else argv) != 1:
        print("usage: python -m satdt.proof.check PROOF_DIR", file=sys.stderr)
        return 2
    try:
        print("valid: " + check(args[0]))
    except Invalid as exc:
        print(f"invalid: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
