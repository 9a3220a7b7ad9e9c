"""DT_depth and DT_size by dynamic programming over every box of the data.

Used by :func:`~satdt.solvers.dp.solve_min_depth_dp` and
:func:`~satdt.solvers.dp.solve_min_size_dp` (``algorithm="boxes"``, or ``"auto"`` when the data
have few distinct values per feature); the branch and bound of :mod:`satdt.solvers.dp` answers
the same questions on the other data.

**Boxes.** The binary columns form nested *chains* (:func:`~satdt.solvers.dp.chains.build_chains`: a
numeric feature's thresholds ``x > t_1 ⊇ x > t_2 ⊇ ...``; any other column is a chain of length
one), so each distinct row has one rank per chain, ``0 .. L_f``. Every node of every tree over
the columns receives the rows of a *box*: one interval of ranks ``[lo, hi]`` per chain. A chain
with ``R = L + 1`` ranks has ``R (R + 1) / 2`` intervals, and the problem has the product of
those boxes (:func:`box_count`): small for ordinal or low-dimensional data (car 2.2e5,
balance-scale 5.1e4, the monks 1.9e4, the BMI set 3.4e7), astronomically large for many
numeric features.

**Recurrence** (the fewest leaves of a consistent tree; Avellaneda's two questions, in the
box form of the classic DP over subproblems, e.g. Nijssen & Fromont's DL8 over itemsets)::

    opt(box, 0) = 0 if the box holds no row, 1 if its rows share one class, else inf
    opt(box, d) = min( opt(box, d - 1),
                       min over chains f and cuts lo < c <= hi of
                           opt(box with [lo, c - 1] on f, d - 1) + opt(box with [c, hi] on f, d - 1) )

A cut ``c`` is the column ``rank_f >= c`` (True = right). The minimum depth is the first ``d``
with a finite value on the *full box*, and the fewest leaves at depth ``<= K`` is
``opt(full, K)`` (nodes = ``2 * leaves - 1``). Each level is computed for all boxes at once with
numpy: intervals are numbered by length, then start, so that for a chain ``f``, an interval length
``L`` and a cut offset ``k`` the targets, the left parts and the right parts are three contiguous
slices along ``f``'s axis (one ``add`` and one ``minimum`` over the other axes). Work per level:
``sum_f (boxes / intervals_f) * R_f^3 / 6`` cell operations (BMI: 1.9e9, about 1.3 s here).
The tables are exhaustive, so the value is a proof; the tree is read back from them top-down.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ...limits import box_size
from ...tree import Node

__all__ = ["BoxLattice", "box_count", "box_work"]


def box_count(chains) -> float:
    """Number of boxes (cells of one level table) of :class:`~satdt.solvers.dp.chains.Chains`, as
    a float (it can exceed int64; ``inf`` past float64: wide data has thousands of chains)."""
    return box_size(chains.ranks)[0]


def box_work(chains) -> float:
    """Cell operations of one level of the recurrence: ``sum_f boxes / I_f * R_f^3 / 6``."""
    return box_size(chains.ranks)[1]


def _offsets(R: int) -> np.ndarray:
    """First interval id of each length ``L = 0 .. R - 1`` (``R - L`` intervals of length L)."""
    return np.concatenate([[0], np.cumsum(np.arange(R, 0, -1))]).astype(np.int64)


def _mask_dtype(n_classes: int):
    for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
        if n_classes <= np.iinfo(dt).bits:
            return dt
    raise ValueError(f"the box DP handles at most 64 classes, got {n_classes}")


class BoxLattice:
    """Level tables ``opt(box, d)`` of the recurrence in the module doc, built on demand.

    Parameters
    ----------
    chains
        The :class:`~satdt.solvers.dp.chains.Chains` of a problem (``rank``, ``chain``, ``level``,
        ``orig``).
    counts : ndarray (distinct rows, classes)
        Row weights per class; only their presence matters.
    check_time : callable
        Called between slices of work; raises to stop (the caller's time limit).
    """

    def __init__(self, chains, counts: np.ndarray, check_time: Callable[[], None]):
        self.chains = chains
        self.check_time = check_time
        self.R = chains.ranks
        self.off = [_offsets(r) for r in self.R]
        self.shape = tuple(r * (r + 1) // 2 for r in self.R)
        self.full = tuple(i - 1 for i in self.shape)  # [0, R - 1] is the last interval
        # a minimal consistent tree has at most one leaf per distinct row, so "no consistent tree"
        # is any value above that; two of them added must still fit in the table's integers
        self.inf = int(counts.shape[0]) + 1
        self.dtype = np.uint16 if 2 * self.inf <= np.iinfo(np.uint16).max else np.uint32
        present = counts > 0
        self.classes = counts.shape[1]
        self.counts = counts
        self.column = {(int(c), int(lv)): int(o) for c, lv, o in zip(chains.chain, chains.level, chains.orig)}
        self.levels: list[np.ndarray] = [self._level_zero(present)]
        self.fixed = False  # True once a level equals the one before (all later ones do too)

    # ------------------------------------------------------------ tables
    def _level_zero(self, present: np.ndarray) -> np.ndarray:
        """``opt(box, 0)`` from the classes present in each box (a bit mask, OR over the box)."""
        dt = _mask_dtype(self.classes)
        bits = (present.astype(dt) << np.arange(self.classes, dtype=dt)).sum(axis=1, dtype=dt)
        A = np.zeros(self.R, dtype=dt)  # 0-d without chains: one box, all rows
        if self.R:
            np.bitwise_or.at(A, tuple(self.chains.rank.T.astype(np.int64)), bits)
        else:
            A[()] = np.bitwise_or.reduce(bits, initial=dt(0))
        for f, r in enumerate(self.R):  # positions -> intervals along each chain
            a = np.ascontiguousarray(np.moveaxis(A, f, 0))
            out = np.empty((self.shape[f],) + a.shape[1:], dtype=dt)
            o = self.off[f]
            out[:r] = a
            for L in range(1, r):  # [lo, lo + L] = [lo, lo + L - 1] + {lo + L}
                self.check_time()
                n = r - L
                np.bitwise_or(out[o[L - 1]:o[L - 1] + n], a[L:L + n], out=out[o[L]:o[L] + n])
            A = np.moveaxis(out, 0, f)
        self.check_time()
        A = np.ascontiguousarray(A).reshape(self.shape)
        level = np.full(self.shape, self.inf, dtype=self.dtype)
        level[(A & (A - dt(1))) == 0] = 1   # one class (or none: set to 0 next)
        level[A == 0] = 0
        self.check_time()
        return level

    def depth_done(self) -> int:
        """Deepest level computed so far."""
        return len(self.levels) - 1

    def level(self, d: int) -> np.ndarray:
        """Table of depth ``d``, computing the missing levels (each one raises through
        ``check_time`` when the time is up)."""
        while len(self.levels) <= d and not self.fixed:
            self._next_level()
        return self.levels[min(d, len(self.levels) - 1)]

    def value(self, d: int) -> int | None:
        """Fewest leaves of a consistent tree of depth ``<= d`` on all rows, None if none."""
        v = int(self.level(d)[self.full])
        return None if v >= self.inf else v

    def _next_level(self) -> None:
        prev = self.levels[-1]
        new = prev.copy()                    # a tree of depth d - 1 is one of depth d
        for f, r in enumerate(self.R):
            self.check_time()
            if r == 2:  # one column: the box [0, 1] splits into [0, 0] and [1, 1] (strided views;
                # slices, not indices: with a single chain an index would give a scalar, not a view)
                tgt = np.moveaxis(new, f, 0)[2:3]
                P = np.moveaxis(prev, f, 0)
                np.minimum(tgt, P[0:1] + P[1:2], out=tgt)
                continue
            P = np.ascontiguousarray(np.moveaxis(prev, f, 0))
            N = np.ascontiguousarray(np.moveaxis(new, f, 0))
            buf = np.empty((r,) + P.shape[1:], dtype=self.dtype)
            o = self.off[f]
            for L in range(1, r):            # target intervals [lo, lo + L], lo = 0 .. r - L - 1
                self.check_time()
                n = r - L
                tgt, b = N[o[L]:o[L] + n], buf[:n]
                for k in range(1, L + 1):    # left [lo, lo + k - 1], right [lo + k, lo + L]
                    self.check_time()            # one pass over a table of ~1e7 boxes: ~10-50 ms
                    right = o[L - k] + k
                    np.add(P[o[k - 1]:o[k - 1] + n], P[right:right + n], out=b)
                    np.minimum(tgt, b, out=tgt)
            new = np.ascontiguousarray(np.moveaxis(N, 0, f))
        self.check_time()
        self.fixed = bool(np.array_equal(new, prev))
        if not self.fixed:
            self.levels.append(new)

    # ------------------------------------------------------------ reading a tree back
    def _interval(self, f: int, i: int) -> tuple[int, int]:
        """(lo, length) of interval id ``i`` of chain ``f``."""
        o = self.off[f]
        L = int(np.searchsorted(o, i, side="right")) - 1
        return int(i - o[L]), L

    def _rows(self, box: tuple[int, ...]) -> np.ndarray:
        inside = np.ones(self.chains.rank.shape[0], dtype=bool)
        for f, i in enumerate(box):
            lo, L = self._interval(f, i)
            rk = self.chains.rank[:, f]
            inside &= (rk >= lo) & (rk <= lo + L)
        return np.flatnonzero(inside)

    def tree(self, d: int, box: tuple[int, ...] | None = None) -> Node:
        """A tree of depth ``<= d`` over the binary columns with ``opt(box, d)`` leaves, every
        leaf consistent (read back from the tables: each split is one that attains the value)."""
        box = self.full if box is None else box
        self.level(d)
        d = min(d, len(self.levels) - 1)
        v = int(self.levels[d][box])
        if v >= self.inf or v == 0:
            raise ValueError("no consistent tree for this box and depth")
        while d > 0 and int(self.levels[d - 1][box]) == v:
            d -= 1
        if v == 1:
            rows = self._rows(box)
            return Node.leaf(int(np.argmax(self.counts[rows].sum(axis=0))))
        P = self.levels[d - 1]
        for f in range(len(self.R)):
            lo, L = self._interval(f, box[f])
            o = self.off[f]
            for k in range(1, L + 1):
                left = box[:f] + (int(o[k - 1] + lo),) + box[f + 1:]
                right = box[:f] + (int(o[L - k] + lo + k),) + box[f + 1:]
                if int(P[left]) + int(P[right]) == v:  # both sides hold rows: v < opt(box, d - 1)
                    column = self.column[(f, lo + k)]
                    return Node.split(column, 0.5, self.tree(d - 1, left), self.tree(d - 1, right))
        raise AssertionError("box DP tables are inconsistent")  # pragma: no cover
