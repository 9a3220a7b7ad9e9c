"""Binarization shared by every engine (references numbered as in ``satdt/REFERENCES.md``).

A :class:`Binarizer` turns the float matrix of :mod:`satdt.data` into Boolean tests
(:class:`BinaryTest`); :meth:`Binarizer.problem` gives a :class:`BinaryProblem`: the distinct
binarized rows with per-class counts, ready for any encoding, and the map back to the original
features.

Convention: a binary column is **True when its row goes right** in the original tree, i.e.
``x[f] > threshold`` for a numeric test and ``x[f] != category`` for a categorical one. A tree
built over the binary matrix with threshold 0.5 (left = column False) therefore maps node by node
onto a tree in the original features (:meth:`BinaryProblem.to_original`).

Strategies
----------
``"all"``
    Every midpoint between consecutive distinct values of each numeric column: every
    axis-aligned split of the training rows is available, so optima over it are optima over all
    axis-aligned trees.
``"quantile"``
    At most ``n_thresholds`` midpoints per numeric column, at the quantiles of its values.
``"tree"``
    Threshold guessing [17]: the midpoints used by a gradient-boosted ensemble of
    depth-``max_depth`` CART [11] trees fitted on the data (snapped to the midpoints of ``"all"``).

Categorical columns give one test per value (a two-valued column, one test). Constant columns,
duplicate columns and complements of other columns (equivalent up to swapping children) are
dropped; the first in (feature, threshold) order is kept.

Limits: every step takes an optional :class:`~satdt.deadline.Deadline` and checks it between
blocks of at most a few tens of millions of cells (so a time limit holds within a fraction of a
second even for the rows x thresholds matrix of ``"all"`` on 15,000 rows), raising
:class:`~satdt.deadline.DeadlineExpired`; the layer above returns its best tree so far. Before
the binary matrix is allocated its size is checked against :func:`~satdt.deadline.max_memory`
(:class:`~satdt.deadline.MemoryLimitError` names it).

Length (over the ~600 lines a module may have without a stated reason): this module is the one
place that knows how a test reads the original features, and both halves need that knowledge:
making the tests and the distinct rows (:class:`Binarizer`), and answering questions about the
tests (their chains of nested thresholds, :meth:`BinaryProblem.threshold_chains`, which every
engine reads) and about a tree over the tests without the rows x tests matrix (:meth:`BinaryProblem.route`, :meth:`~BinaryProblem.errors`,
:meth:`~BinaryProblem.from_original`, :meth:`~BinaryProblem.column_ones`: on magic's 15k x 120k
tests the matrix alone takes 2-5 s and 1.8 GB, which a time limit of a few seconds cannot
afford). Splitting the second half into its own top-level module would put one class's methods
in two layers of the package map (``tests/test_structure.py``); it stays here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .data import Dataset, DataError
from .deadline import Deadline, check_memory
from .tree import Node, Tree

__all__ = ["BinaryTest", "Binarizer", "BinaryProblem", "STRATEGIES", "ConflictError"]

STRATEGIES = ("all", "quantile", "tree")

#: cells (rows x columns) handled between two checks of the deadline
_STEP_CELLS = 1 << 25


def _check(deadline: Deadline | None, what: str) -> None:
    if deadline is not None:
        deadline.check(what)


def matrix_bytes(n_rows: int, n_columns: int) -> int:
    """Peak bytes of binarizing ``n_rows`` x ``n_columns``: the bool matrix, its packed words
    and the distinct rows (at most as many as the rows)."""
    return int(n_rows) * int(n_columns) * 2 + int(n_rows) * ((int(n_columns) + 63) // 64) * 8


class ConflictError(DataError):
    """Rows identical after binarization carry different labels; no tree separates them."""

    def __init__(self, message: str, rows: list[list[int]]):
        super().__init__(message)
        self.rows = rows


@dataclass(frozen=True, slots=True)
class BinaryTest:
    """One Boolean test on an original feature; its column is True when the row goes right."""

    feature: int
    threshold: float
    category: Any = None

    def column(self, X: np.ndarray) -> np.ndarray:
        values = X[:, self.feature]
        if self.category is not None:
            return values != self.threshold
        return values > self.threshold

    def describe(self, names: list[str] | None = None) -> str:
        name = names[self.feature] if names else f"x{self.feature}"
        if self.category is not None:
            return f"{name} == {self.category}"
        return f"{name} <= {self.threshold:.6g}"


def _midpoints(values: np.ndarray) -> np.ndarray:
    """Midpoints between consecutive distinct values; each separates its two neighbours."""
    v = np.unique(values)
    if len(v) < 2:
        return np.empty(0)
    mid = (v[:-1] + v[1:]) / 2.0
    # at adjacent floats the midpoint may round up to the upper value: use the lower one then
    return np.where(mid < v[1:], mid, v[:-1])


#: cells (rows x columns) of one block of :func:`_numeric_thresholds`
_THRESHOLD_BLOCK_CELLS = 1 << 23


def _numeric_thresholds(X: np.ndarray, schema: Any, k: int | None,
                        deadline: Deadline | None = None) -> dict[int, list[float]] | None:
    """For every numeric column of ``X``: :func:`_midpoints`, or with ``k`` the ``quantile``
    strategy's choice among them (the midpoint at or after each of ``k`` evenly spaced quantiles,
    duplicates once; every midpoint when there are at most ``k``), as :meth:`Binarizer.fit`'s loop
    computes them column by column, for blocks of columns at once (one sort, one ``np.quantile``
    per block). None when ``X`` has NaN (the loop handles missing values)."""
    numeric = np.array([j for j in range(X.shape[1]) if not schema.is_categorical(j)], dtype=np.int64)
    n = X.shape[0]
    if n < 2 or len(numeric) == 0 or np.isnan(X[:, numeric]).any():
        return None
    out: dict[int, list[float]] = {}
    step = max(1, _THRESHOLD_BLOCK_CELLS // n)
    probs = None if k is None else np.arange(1, k + 1) / (k + 1)
    for lo in range(0, len(numeric), step):
        _check(deadline, "binarization")
        cols = numeric[lo:lo + step]
        block = X[:, cols]
        S = np.sort(block, axis=0)
        valid = S[1:] > S[:-1]                                # consecutive distinct values
        mid = (S[:-1] + S[1:]) / 2.0
        mid = np.where(mid < S[1:], mid, S[:-1])              # as _midpoints at adjacent floats
        count = valid.sum(axis=0)
        flat = mid.T[valid.T]                                 # column by column, ascending
        start = np.concatenate(([0], np.cumsum(count)[:-1]))
        keep = np.ones(len(flat), dtype=bool)
        if probs is not None:
            qs = np.quantile(S, probs, axis=0)                # (k, columns); S: the same values, sorted (faster)
            # searchsorted(mids, q): the midpoints below q, clipped to the last one; q grows with
            # the probability, so np.unique of a column's picks = the picks unlike the one before
            idx = np.stack([((mid < q[None, :]) & valid).sum(axis=0) for q in qs])
            chosen = np.minimum(idx, np.maximum(count - 1, 0))
            first = np.ones_like(chosen, dtype=bool)
            first[1:] = chosen[1:] != chosen[:-1]
            few = count <= k                                   # every midpoint of these columns
            keep = np.repeat(few, count)
            picked = (start[None, :] + chosen)[first & ~few[None, :]]
            keep[picked] = True
        values = flat[keep]
        sizes = np.bincount(np.repeat(np.arange(len(cols)), count)[keep], minlength=len(cols))
        for j, part in zip(cols.tolist(), np.split(values, np.cumsum(sizes)[:-1])):
            out[j] = part.tolist()
    return out


def _repeated_quantile(values: np.ndarray, weight: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """``np.quantile`` (linear) of ``values`` with each repeated ``weight`` times (integers),
    without building the repeated array: the quantiles of weighted rows are those of the rows
    they stand for."""
    order = np.argsort(values, kind="stable")
    v, cum = values[order], np.cumsum(weight[order])
    h = probs * (cum[-1] - 1)
    lo, hi = np.floor(h).astype(np.int64), np.ceil(h).astype(np.int64)
    v_lo = v[np.searchsorted(cum, lo, side="right")]
    v_hi = v[np.searchsorted(cum, hi, side="right")]
    return v_lo + (h - lo) * (v_hi - v_lo)


@dataclass
class Binarizer:
    """Map original features to Boolean tests.

    Parameters
    ----------
    strategy : {"all", "quantile", "tree"}
    n_thresholds : int
        Thresholds per numeric feature for ``"quantile"``; number of boosted trees for ``"tree"``.
    max_depth : int
        Depth of the boosted trees of ``"tree"``.
    drop_duplicates : bool
        Drop constant columns and columns equal to (or the complement of) an earlier one.
    random_state : int
    """

    strategy: str = "all"
    n_thresholds: int = 10
    max_depth: int = 3
    drop_duplicates: bool = True
    random_state: int = 0
    tests_: list[BinaryTest] = field(default_factory=list, init=False, repr=False)

    def fit(self, data: Dataset, deadline: Deadline | None = None) -> "Binarizer":
        """Choose the tests of ``data``; ``deadline`` (optional) is checked between steps."""
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown binarization '{self.strategy}'; choose one of {', '.join(STRATEGIES)}")
        if self.strategy in ("quantile", "tree") and int(self.n_thresholds) < 1:
            raise ValueError(f"n_thresholds must be at least 1, got {self.n_thresholds}")
        X, schema = data.X, data.schema
        guessed = self._guessed_thresholds(data) if self.strategy == "tree" else None
        # the numeric columns' thresholds in one pass over sorted blocks of columns, when nothing
        # per column is needed (no weights, no missing values): the loop below only reads them
        pre = (_numeric_thresholds(X, schema, self.n_thresholds if self.strategy == "quantile" else None, deadline)
               if self.strategy in ("all", "quantile") and data.weight is None and X.shape[1] > 1 else None)
        tests: list[BinaryTest] = []
        for j in range(X.shape[1]):
            if schema.is_categorical(j):
                codes = np.unique(X[:, j])
                if len(codes) == 2:
                    codes = codes[:1]
                tests += [BinaryTest(j, float(c), schema.describe_category(j, c)) for c in codes]
                continue
            if pre is not None:
                tests += [BinaryTest(j, t) for t in pre[j]]
                _check(deadline, "binarization")
                continue
            mids = _midpoints(X[:, j])
            if self.strategy == "quantile" and len(mids) > self.n_thresholds:
                probs = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
                qs = (np.quantile(X[:, j], probs) if data.weight is None
                      else _repeated_quantile(X[:, j], data.weight, probs))
                idx = np.clip(np.searchsorted(mids, qs), 0, len(mids) - 1)
                mids = mids[np.unique(idx)]
            elif guessed is not None:
                v = np.unique(X[:, j])
                pos = np.searchsorted(v, guessed.get(j, np.empty(0)), side="right") - 1
                mids = mids[np.unique(pos[(pos >= 0) & (pos < len(mids))])]
            tests += [BinaryTest(j, float(t)) for t in mids]
            _check(deadline, "binarization")
        if self.drop_duplicates and tests:
            tests = _drop_redundant(tests, X, deadline)
        self.tests_ = tests
        return self

    def _guessed_thresholds(self, data: Dataset) -> dict[int, np.ndarray]:
        from sklearn.ensemble import GradientBoostingClassifier

        model = GradientBoostingClassifier(n_estimators=self.n_thresholds, max_depth=self.max_depth,
                                           random_state=self.random_state)
        model.fit(data.X, data.y, sample_weight=data.weight)
        found: dict[int, list[float]] = {}
        for est in model.estimators_.ravel():
            t = est.tree_
            for f, thr in zip(t.feature[t.feature >= 0], t.threshold[t.feature >= 0]):
                found.setdefault(int(f), []).append(float(thr))
        return {f: np.asarray(v) for f, v in found.items()}

    def transform(self, X: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
        """Boolean matrix (n, number of tests); True = the row goes right."""
        X = np.asarray(X, dtype=float)
        check_memory(X.shape[0] * len(self.tests_), f"the {X.shape[0]} x {len(self.tests_)} binary matrix",
                     "use binarization='quantile' or 'tree'")
        return _columns(self.tests_, X, deadline)

    def problem(self, data: Dataset, fit: bool = True, deadline: Deadline | None = None) -> "BinaryProblem":
        """Binarize ``data`` (fitting first unless ``fit=False``) and merge identical rows.

        ``deadline``: checked between steps (:class:`~satdt.deadline.DeadlineExpired` when the
        time is up); the memory of the binary matrix is checked before it is allocated
        (:class:`~satdt.deadline.MemoryLimitError`).
        """
        if fit:
            self.fit(data, deadline)
        codes = _codes(self.tests_, np.asarray(data.X, dtype=float))
        if codes is not None:  # the distinct rows from the features' codes; X made on first use
            return BinaryProblem.from_codes(codes, data, list(self.tests_), self.strategy, deadline)
        check_memory(matrix_bytes(data.n_rows, len(self.tests_)),
                     f"the '{self.strategy}' binarization ({data.n_rows} rows x {len(self.tests_)} tests)",
                     "use binarization='quantile' or 'tree'")
        return BinaryProblem.build(self.transform(data.X, deadline), data, list(self.tests_), self.strategy,
                                   deadline)


def feature_blocks(tests: list[BinaryTest]) -> list[tuple[int, bool, int, int]]:
    """Runs of consecutive tests on one feature: (feature, categorical, start, stop)."""
    n = len(tests)
    if n == 0:
        return []
    feature = np.fromiter((t.feature for t in tests), dtype=np.int64, count=n)
    categorical = np.fromiter((t.category is not None for t in tests), dtype=bool, count=n)
    cuts = np.flatnonzero((feature[1:] != feature[:-1]) | (categorical[1:] != categorical[:-1])) + 1
    starts, stops = np.concatenate(([0], cuts)), np.concatenate((cuts, [n]))
    return [(int(feature[a]), bool(categorical[a]), int(a), int(b)) for a, b in zip(starts, stops)]


def _block(tests: list[BinaryTest], X: np.ndarray, block: tuple[int, bool, int, int],
           transposed: bool = False) -> np.ndarray:
    """One feature's tests on every row: (n, k), or (k, n) with ``transposed``."""
    feature, categorical, start, stop = block
    thresholds = np.array([t.threshold for t in tests[start:stop]])
    compare = np.not_equal if categorical else np.greater
    if transposed:
        return compare(X[:, feature][None, :], thresholds[:, None])
    return compare(X[:, feature][:, None], thresholds[None, :])


def _columns(tests: list[BinaryTest], X: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Every test applied to ``X``: one vectorized comparison per run of tests on a feature
    (in slices of at most :data:`_STEP_CELLS` cells between deadline checks)."""
    out = np.empty((X.shape[0], len(tests)), dtype=bool)
    blocks = [(feature, np.not_equal if categorical else np.greater, start, stop,
               np.array([t.threshold for t in tests[start:stop]]))
              for feature, categorical, start, stop in feature_blocks(tests)]
    step = max(1, _STEP_CELLS // max(1, len(tests)))   # whole rows at a time: contiguous writes
    for lo in range(0, X.shape[0], step):
        _check(deadline, "binarization")
        rows = X[lo:lo + step]
        for feature, compare, start, stop, thresholds in blocks:
            compare(rows[:, feature][:, None], thresholds[None, :], out=out[lo:lo + step, start:stop])
    return out


def _words(bits: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """Rows of a bool matrix packed into 64-bit words: (rows, ceil(cols / 64)) uint64."""
    n, width = bits.shape
    n_words = (width + 63) // 64
    out = np.zeros((n, n_words * 8), dtype=np.uint8)
    step = max(1, _STEP_CELLS // max(1, width))
    for lo in range(0, n, step):
        _check(deadline, "binarization")
        packed = np.packbits(bits[lo:lo + step], axis=1)
        out[lo:lo + step, :packed.shape[1]] = packed
    return out.view(np.uint64)


def _first_of_equal_rows(words: np.ndarray, deadline: Deadline | None = None) -> np.ndarray:
    """For each row, the index of the first row equal to it (hash, then exact confirmation;
    the rows of hash groups that hold unequal rows are grouped exactly)."""
    digest = np.zeros(words.shape[0], dtype=np.uint64)
    every = max(1, _STEP_CELLS // 8 // max(1, words.shape[0]))
    with np.errstate(over="ignore"):
        for k in range(words.shape[1]):
            if k % every == 0:
                _check(deadline, "binarization")
            # rotate, multiply, add: the rotation breaks the linearity that let columns of one
            # feature (a few bits apart) collide under a plain multiply-add
            digest = ((digest << np.uint64(7)) | (digest >> np.uint64(57))) * np.uint64(0x9E3779B97F4A7C15) + words[:, k]
    _, first, group = np.unique(digest, return_index=True, return_inverse=True)
    rep = first[group.ravel()]
    _check(deadline, "binarization")
    step = max(1, _STEP_CELLS // 8 // max(1, words.shape[1]))
    bad = []
    for lo in range(0, len(rep), step):      # confirm the hash groups, in slices
        _check(deadline, "binarization")
        bad.append(lo + np.flatnonzero(~(words[lo:lo + step] == words[rep[lo:lo + step]]).all(axis=1)))
    bad = np.concatenate(bad)
    if len(bad):  # hash collisions: group the rows of those hash groups exactly
        group = group.ravel()
        rows = np.flatnonzero(np.isin(group, group[bad]))
        _check(deadline, "binarization")
        _, first_sub, group_sub = np.unique(words[rows], axis=0, return_index=True, return_inverse=True)
        rep = rep.copy()
        rep[rows] = rows[first_sub[group_sub.ravel()]]
    return rep


def _sums_by_code(code: np.ndarray, keys: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """The sum modulo 2**64 of the uint64 ``keys`` of the rows of each code (``0 <= code <
    n_codes``), and the rows of each code: ``np.bincount`` in floats over the keys' 32-bit halves,
    in slices of 2**20 rows so that every float sum is an exact integer (< 2**52)."""
    total = np.zeros(n_codes, dtype=np.uint64)
    rows = np.zeros(n_codes, dtype=np.int64)
    low_mask, shift, step = np.uint64(0xFFFFFFFF), np.uint64(32), 1 << 20
    for lo in range(0, len(code), step):
        c, k = code[lo:lo + step], keys[lo:lo + step]
        low = np.bincount(c, weights=(k & low_mask).astype(np.float64), minlength=n_codes).astype(np.uint64)
        high = np.bincount(c, weights=(k >> shift).astype(np.float64), minlength=n_codes).astype(np.uint64)
        total += (high << shift) + low
        rows += np.bincount(c, minlength=n_codes)
    return total, rows


def _drop_redundant(tests: list[BinaryTest], X: np.ndarray, deadline: Deadline | None = None) -> list[BinaryTest]:
    """Drop constant columns and columns equal to, or the complement of, an earlier one.

    Each column is flipped so that its first row is False (a column and its complement become
    equal) and summarised by its number of True rows and a 64-bit additive hash of them (a
    random key per row; for the thresholds of one numeric feature, suffix sums over the rows in
    value order: O(rows) per feature, no binary matrix). Columns with equal summaries are
    compared exactly; the earliest column of each group of equal columns is kept.
    """
    n = X.shape[0]
    if n == 0 or not tests:
        return list(tests)
    keys = np.random.default_rng(0x5A7D7).integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64).view(np.uint64)
    total = np.uint64(keys.sum(dtype=np.uint64))
    digest = np.empty(len(tests), dtype=np.uint64)
    size = np.empty(len(tests), dtype=np.int64)
    first_right = np.empty(len(tests), dtype=bool)   # the column's value on row 0
    with np.errstate(over="ignore"):
        for feature, categorical, start, stop in feature_blocks(tests):
            _check(deadline, "binarization")
            values = X[:, feature]
            thresholds = np.array([t.threshold for t in tests[start:stop]])
            if categorical:   # column = values != category
                for k, c in enumerate(thresholds):
                    equal = values == c
                    digest[start + k] = total - keys[equal].sum(dtype=np.uint64)
                    size[start + k] = n - int(equal.sum())
                first_right[start:stop] = values[0] != thresholds
            elif 8 * len(thresholds) < n and (np.diff(thresholds) > 0).all():  # few thresholds: no sort
                # code = the thresholds below the value; column j = values > t_j = code > j
                code = np.searchsorted(thresholds, values, side="left")
                per_code, rows_per_code = _sums_by_code(code, keys, len(thresholds) + 1)
                digest[start:stop] = np.cumsum(per_code[::-1], dtype=np.uint64)[::-1][1:]
                size[start:stop] = np.cumsum(rows_per_code[::-1])[::-1][1:]
                first_right[start:stop] = values[0] > thresholds
            else:             # column = values > threshold: a suffix of the rows in value order
                order = np.argsort(values, kind="stable")
                suffix = np.zeros(n + 1, dtype=np.uint64)
                suffix[:n] = np.cumsum(keys[order][::-1], dtype=np.uint64)[::-1]
                k0 = np.searchsorted(values[order], thresholds, side="right")
                digest[start:stop] = suffix[k0]
                size[start:stop] = n - k0
                first_right[start:stop] = values[0] > thresholds
        digest = np.where(first_right, total - digest, digest)   # flipped: row 0 is False
    size = np.where(first_right, n - size, size)
    keep = size > 0                                            # not constant
    order = np.lexsort((np.arange(len(tests)), size, digest))
    same = (digest[order][1:] == digest[order][:-1]) & (size[order][1:] == size[order][:-1])
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    for a, b in zip(starts, np.concatenate([starts[1:], [len(order)]])):
        if b - a < 2 or not keep[order[a]]:
            continue
        _check(deadline, "binarization")
        kept: list[np.ndarray] = []   # one column of each exact class met so far, the earliest
        for j in order[a:b]:                                   # ascending test index
            col = tests[j].column(X) ^ first_right[j]
            keep[j] = not any(np.array_equal(col, other) for other in kept)
            if keep[j]:
                kept.append(col)
    return [t for t, k in zip(tests, keep) if k]


def _codes(tests: list[BinaryTest], X: np.ndarray) -> np.ndarray | None:
    """Each row's code for every tested feature, such that two rows have the same binarized row
    exactly when they have the same codes: for a numeric feature the number of its thresholds
    below the value (test ``k`` is ``code > k``), for a categorical one the index of the tested
    category it equals (else the number of tested categories). None when a feature's tests are
    not one run of distinct thresholds (the binary matrix is then needed).
    """
    blocks = feature_blocks(tests)
    if len({b[0] for b in blocks}) != len(blocks):
        return None
    codes = np.empty((X.shape[0], len(blocks)), dtype=np.int32)
    for k, (feature, categorical, start, stop) in enumerate(blocks):
        values = X[:, feature]
        thresholds = np.array([t.threshold for t in tests[start:stop]])
        if categorical:
            order = np.argsort(thresholds, kind="stable")
            ordered = thresholds[order]
            if (np.diff(ordered) == 0).any():
                return None
            pos = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
            codes[:, k] = np.where(ordered[pos] == values, order[pos], len(thresholds))
        else:
            if (np.diff(thresholds) <= 0).any():
                return None
            codes[:, k] = np.searchsorted(thresholds, values, side="left")
    return codes


def _threshold_chains(tests: list[BinaryTest], n: int) -> tuple[np.ndarray, ...]:
    """:meth:`BinaryProblem.threshold_chains` of ``n`` columns with these tests (every column
    a chain of one when the tests do not describe the columns)."""
    if len(tests) != n or n == 0:
        out = [np.array([j], dtype=np.int64) for j in range(n)]
    else:
        feature = np.fromiter((t.feature for t in tests), dtype=np.int64, count=n)
        threshold = np.fromiter((t.threshold for t in tests), dtype=float, count=n)
        categorical = np.fromiter((t.category is not None for t in tests), dtype=bool, count=n)
        column = np.arange(n, dtype=np.int64)
        group = np.where(categorical, -1 - column, feature)       # a categorical test: a group of its own
        order = np.lexsort((column, threshold, group))            # by group, then threshold, then column
        cuts = np.flatnonzero(group[order][1:] != group[order][:-1]) + 1
        chains = np.split(order, cuts)
        first = np.minimum.reduceat(order, np.concatenate(([0], cuts)))
        out = [chains[i] for i in np.argsort(first, kind="stable")]
    for chain in out:
        chain.flags.writeable = False       # shared by every engine of the problem
    return tuple(out)


class BinaryProblem:
    """Distinct binarized rows with class counts: what every encoding consumes.

    Attributes
    ----------
    X : ndarray of bool, shape (m, B)
        Distinct binarized rows (True = goes right). Built on first use when the problem was
        made from the features' codes (:meth:`from_codes`): the DP reads only the codes
        (:attr:`codes`), so the rows x thresholds matrix of a large continuous set is never
        allocated for it.
    counts : ndarray of int64, shape (m, C)
        Number of original rows of each class equal to each distinct row (weighted by
        ``data.weight`` when the data carry integer weights).
    tests : list of BinaryTest
        Column ``j`` of ``X`` is ``tests[j]`` applied to the original features.
    row_of : ndarray of int, shape (n,)
        Distinct row of each original row.
    data : Dataset
        The original data.
    strategy : str
        The binarization that produced it.
    first : ndarray of int, shape (m,)
        The first original row of each distinct row.
    codes : ndarray of int32, shape (m, features) or None
        Each distinct row's code per tested feature (see :func:`_codes`), when the tests allow.
    """

    def __init__(self, X: np.ndarray | None = None, counts: np.ndarray | None = None,
                 tests: list[BinaryTest] | None = None, row_of: np.ndarray | None = None,
                 data: Dataset | None = None, strategy: str = "all", first: np.ndarray | None = None,
                 codes: np.ndarray | None = None):
        if X is None and first is None:
            raise ValueError("a BinaryProblem needs its binary rows X or the first row of each distinct row")
        self._X = X
        self.counts = counts
        self.tests = list(tests or [])
        self.row_of = row_of
        self.data = data
        self.strategy = strategy
        if first is None:
            first = np.full(counts.shape[0], -1, dtype=np.int64)
            if row_of.size:
                first[row_of[::-1]] = np.arange(row_of.size)[::-1]
        self.first = first
        self.codes = codes
        self._chains: tuple[np.ndarray, ...] | None = None

    def __repr__(self) -> str:
        return (f"BinaryProblem({self.n_distinct} distinct rows of {self.n_rows}, {self.n_binary} tests, "
                f"{self.n_classes} classes, strategy={self.strategy!r})")

    @classmethod
    def build(cls, Xb: np.ndarray, data: Dataset, tests: list[BinaryTest], strategy: str,
              deadline: Deadline | None = None) -> "BinaryProblem":
        """From the binary rows of every original row (the distinct ones kept)."""
        if Xb.shape[1] == 0:
            rep = np.zeros(Xb.shape[0], dtype=np.int64)
        else:
            rep = _first_of_equal_rows(_words(Xb, deadline), deadline)
        first, row_of, counts = cls._merge(rep, data)
        _check(deadline, "binarization")
        distinct = Xb[:1] if Xb.shape[1] == 0 else (Xb if len(first) == Xb.shape[0] else Xb[first])
        return cls(X=distinct, counts=counts, tests=tests, row_of=row_of, data=data, strategy=strategy,
                   first=first)

    @classmethod
    def from_codes(cls, codes: np.ndarray, data: Dataset, tests: list[BinaryTest], strategy: str,
                   deadline: Deadline | None = None) -> "BinaryProblem":
        """From the features' codes of every original row (:func:`_codes`): the same distinct
        rows, in the same order, as :meth:`build` on the binary rows, without the binary matrix
        (:attr:`X` is made on first use)."""
        if codes.shape[1] == 0:
            rep = np.zeros(codes.shape[0], dtype=np.int64)
        else:
            padded = np.zeros((codes.shape[0], codes.shape[1] + codes.shape[1] % 2), dtype=np.int32)
            padded[:, :codes.shape[1]] = codes
            rep = _first_of_equal_rows(padded.view(np.uint64), deadline)
        first, row_of, counts = cls._merge(rep, data)
        return cls(counts=counts, tests=tests, row_of=row_of, data=data, strategy=strategy, first=first,
                   codes=codes[first])

    @staticmethod
    def _merge(rep: np.ndarray, data: Dataset) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct rows in order of first appearance from each row's first equal row ``rep``:
        (first row of each, distinct row of each row, class counts)."""
        first = np.flatnonzero(rep == np.arange(len(rep)))
        position = np.empty(len(rep), dtype=np.int64)
        position[first] = np.arange(len(first))
        row_of = position[rep]
        counts = np.zeros((len(first), len(data.classes)), dtype=np.int64)
        np.add.at(counts, (row_of, data.y), 1 if data.weight is None else data.weight)
        return first, row_of, counts

    @property
    def X(self) -> np.ndarray:
        return self.matrix()

    def matrix(self, deadline: Deadline | None = None) -> np.ndarray:
        """:attr:`X`, built on first use: its memory checked first, ``deadline`` between slices
        (:class:`~satdt.deadline.DeadlineExpired`; on magic's 15k x 120k it takes 2-5 s)."""
        if self._X is None:
            check_memory(matrix_bytes(self.n_distinct, self.n_binary) // 2,
                         f"the {self.n_distinct} x {self.n_binary} binary matrix of the '{self.strategy}' "
                         "binarization", "use binarization='quantile' or 'tree', or the dp method")
            self._X = _columns(self.tests, self._values(), deadline)
        return self._X

    @property
    def has_matrix(self) -> bool:
        """Whether :attr:`X` is in memory (reading it may otherwise build it)."""
        return self._X is not None

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` of :attr:`X` on the distinct rows, without building :attr:`X`."""
        if self._X is not None:
            return self._X[:, j]
        return self.tests[j].column(np.asarray(self.data.X[self.first], dtype=float))

    # ------------------------------------------------------------ shapes
    @property
    def n_distinct(self) -> int:
        return self.counts.shape[0]

    @property
    def n_binary(self) -> int:
        return len(self.tests)

    @property
    def n_rows(self) -> int:
        """The weighted number of original rows (the row count without weights): the ``n`` of
        ``errors / n``."""
        return self.data.total_weight

    @property
    def n_classes(self) -> int:
        return self.counts.shape[1]

    @property
    def classes(self) -> np.ndarray:
        return self.data.classes

    @property
    def n_present_classes(self) -> int:
        """Classes with at least one training row (the leaves a consistent tree needs at least)."""
        return int((self.counts.sum(axis=0) > 0).sum())

    @property
    def column_features(self) -> np.ndarray:
        """Original feature of each binary column, int64 (n_binary,)."""
        return np.array([t.feature for t in self.tests], dtype=np.int64)

    @property
    def weights(self) -> np.ndarray:
        """Original rows per distinct row."""
        return self.counts.sum(axis=1)

    @property
    def majority(self) -> np.ndarray:
        """Most frequent class of each distinct row (smallest index on ties)."""
        return np.argmax(self.counts, axis=1)

    @property
    def min_errors(self) -> int:
        """Errors no tree can avoid: rows outvoted inside their distinct row."""
        return int((self.weights - self.counts.max(axis=1)).sum())

    # ---------------------------------------------------------- chains
    def threshold_chains(self) -> tuple[np.ndarray, ...]:
        """The binary columns partitioned into chains of nested tests: the one grouping that
        every engine reads (the DP's chain ranks, CP-SAT's chain prefixes, BinOCT's feature
        groups, the box DP's size and the engine choice).

        The numeric tests of one feature, sorted by threshold (ties by column), form one chain:
        a test is True when ``x > t``, so each column's right-going rows contain the next one's
        (nested by construction, read from the thresholds alone: no binary matrix). Every other
        column (a categorical test; every column of a problem without tests) is a chain of one.
        The chains come in the order of their first column, each an int64 array of columns.
        With ``missing="learn"`` a feature with missing values is two features of the engines'
        data (:func:`satdt.missing.augment`), hence two chains. Computed once.
        """
        if self._chains is None:
            n = self._X.shape[1] if self._X is not None else len(self.tests)
            self._chains = _threshold_chains(self.tests, n)
        return self._chains

    def conflicts(self) -> list[list[int]]:
        """Groups of original row indices identical after binarization but labelled differently."""
        bad = np.flatnonzero((self.counts > 0).sum(axis=1) > 1)
        return [np.flatnonzero(self.row_of == i).tolist() for i in bad]

    def check_consistent(self) -> None:
        """Raise :class:`ConflictError` if some rows cannot be separated by any tree."""
        groups = self.conflicts()
        if groups:
            shown = "; ".join(str(g[:6])[1:-1] + (" ..." if len(g) > 6 else "") for g in groups[:5])
            more = f" and {len(groups) - 5} more group(s)" if len(groups) > 5 else ""
            raise ConflictError(
                f"{sum(len(g) for g in groups)} rows in {len(groups)} group(s) are identical after "
                f"'{self.strategy}' binarization but have different labels (rows {shown}{more}); "
                "no tree classifies them all correctly: use a max-accuracy method instead",
                groups)

    # ---------------------------------------------------------- trees
    def errors(self, tree: Tree) -> int:
        """Weighted training errors of a tree over the binary columns (routed through the tested
        columns only when :attr:`X` is not built: no rows x thresholds matrix for one tree)."""
        right = sum(int(self.counts[rows, leaf.label].sum()) for leaf, rows in self.route(tree))
        return int(self.weights.sum()) - right

    def _values(self) -> np.ndarray:
        """The original features of each distinct row's first row: what :attr:`X` tests."""
        return np.asarray(self.data.X[self.first], dtype=float)

    def column_ones(self) -> np.ndarray:
        """Distinct rows on which each column is True, without :attr:`X` (from each feature's
        values sorted once)."""
        if self._X is not None:
            return np.count_nonzero(self._X, axis=0)
        values = self._values()
        out = np.empty(self.n_binary, dtype=np.int64)
        for feature, categorical, start, stop in feature_blocks(self.tests):
            v = np.sort(values[:, feature])
            t = np.array([test.threshold for test in self.tests[start:stop]])
            le = np.searchsorted(v, t, side="right")
            out[start:stop] = len(v) - (le - np.searchsorted(v, t, side="left") if categorical else le)
        return out

    def route(self, tree: Tree) -> list[tuple[Node, np.ndarray]]:
        """:meth:`Tree.apply` of a tree over the binary columns to the distinct rows, each split
        reading its one column from the original features when :attr:`X` is not built."""
        if self._X is not None:
            return tree.apply(self._X)
        values = self._values()
        out, stack = [], [(tree.root, np.arange(self.n_distinct))]
        while stack:
            node, rows = stack.pop()
            if node.is_leaf:
                out.append((node, rows))
                continue
            right = self.tests[node.feature].column(values[rows])
            stack.append((node.right, rows[right]))
            stack.append((node.left, rows[~right]))
        return out

    def to_original(self, tree: Tree, relabel: bool = False) -> Tree:
        """Map a tree over the binary columns (threshold 0.5) to the original features.

        The returned tree carries the class counts of the original rows at every node; with
        ``relabel`` every leaf predicts its majority class.
        """

        def rec(node: Node) -> Node:
            if node.is_leaf:
                return Node.leaf(node.label)
            test = self.tests[node.feature]
            return Node.split(test.feature, test.threshold, rec(node.left), rec(node.right),
                              category=test.category)

        out = Tree(root=rec(tree.root), classes=self.classes, feature_names=list(self.data.feature_names))
        return out.fit_counts(self.data.X, self.data.y, sample_weight=self.data.weight, relabel=relabel)

    def from_original(self, tree: Tree) -> tuple[Tree, int]:
        """Map a tree over the original features to one over the binary columns, by routing.

        Each split becomes the binary column that sends the training rows reaching it the same
        way, possibly with its two subtrees swapped (with the ``all`` binarization one always
        exists for a threshold or a one-value test; otherwise the column that agrees on the most
        rows); a split that sends every row one way is replaced by the child that gets
        them. Leaves keep their labels. Used to hand any tree (CART, DPDT, a previous result) to
        the exact engines as a warm start. Reads the original features, never :attr:`X` (on
        magic's 15k x 120k tests the matrix alone took 5 s).

        Returns
        -------
        tree : Tree
            Over the binary columns (``feature`` = column index, threshold 0.5).
        rerouted : int
            Disagreements of routing, summed over the splits (0 = every training row reaches the
            leaf it reaches in ``tree``).
        """
        data = self.data
        rerouted = 0
        n = len(self.tests)
        feature = np.fromiter((t.feature for t in self.tests), dtype=np.int64, count=n)
        threshold = np.fromiter((t.threshold for t in self.tests), dtype=float, count=n)
        categorical = np.fromiter((t.category is not None for t in self.tests), dtype=bool, count=n)
        columns = (feature, threshold, categorical)
        values = self._values()

        def rec(node: Node, rows: np.ndarray) -> Node:
            nonlocal rerouted
            if node.is_leaf:
                return Node.leaf(node.label)
            left = node.goes_left(data.X, rows)
            if left.all() or not left.any() or self.n_binary == 0:
                child = node.left if left.all() or not rows.size else node.right
                return rec(child, rows)
            # the columns of the split's own feature first (cheap, exact under `all`), then all
            column, mismatch, swapped = self._best_column(rows, left, np.flatnonzero(feature == node.feature),
                                                          values, columns)
            swap = bool(swapped < mismatch)
            rerouted += int(min(mismatch, swapped))
            goes_right = self.tests[column].column(values[self.row_of[rows]])
            # rows follow the binary column from here (that is where the mapped tree sends them)
            first, second = (node.right, node.left) if swap else (node.left, node.right)
            return Node.split(column, 0.5, rec(first, rows[~goes_right]), rec(second, rows[goes_right]))

        out = Tree(root=rec(tree.root, np.arange(data.n_rows)), classes=self.classes)
        return out, rerouted

    def _best_column(self, rows: np.ndarray, left: np.ndarray, own: np.ndarray, values: np.ndarray,
                     columns: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[int, int, int]:
        """The column that routes ``rows`` most like ``left`` (True = left), either way round:
        ``(column, rows it sends the other way, rows it sends the other way when swapped)``;
        the first such column of ``own`` (the split's feature) when one there is as good as any,
        else the first of all.

        Counts by feature from the distinct rows' ``values`` sorted once, with cumulative left /
        right weights: a numeric column (right when ``x > t``) misroutes the left rows above
        ``t`` and the right rows at or below it; a categorical one (right when ``x != c``) the
        left rows not equal to ``c`` and the right rows equal to it. No binary matrix.
        """
        feature, threshold, categorical = columns
        distinct = self.row_of[rows]
        w_left = np.bincount(distinct[left], minlength=self.n_distinct)
        w_right = np.bincount(distinct[~left], minlength=self.n_distinct)
        present = np.flatnonzero(w_left + w_right)
        w_left, w_right = w_left[present], w_right[present]
        n = len(rows)

        def mismatches(cols: np.ndarray) -> np.ndarray:
            out = np.empty(len(cols), dtype=np.int64)
            of = feature[cols]
            for f in np.unique(of):
                at = np.flatnonzero(of == f)
                v = values[present, f]
                order = np.argsort(v, kind="stable")
                v = v[order]
                cl = np.concatenate([[0], np.cumsum(w_left[order])])
                cr = np.concatenate([[0], np.cumsum(w_right[order])])
                t = threshold[cols[at]]
                le = np.searchsorted(v, t, side="right")          # rows with x <= t
                lt = np.searchsorted(v, t, side="left")           # rows with x < t
                numeric = (cl[-1] - cl[le]) + cr[le]
                equal = (cl[-1] - (cl[le] - cl[lt])) + (cr[le] - cr[lt])
                out[at] = np.where(categorical[cols[at]], equal, numeric)
            return out

        def first_best(cols: np.ndarray) -> tuple[int, int, int]:
            mismatch = mismatches(cols)
            k = int(np.argmin(np.minimum(mismatch, n - mismatch)))
            return int(cols[k]), int(mismatch[k]), int(n - mismatch[k])

        best = first_best(own) if len(own) else None
        if best is not None and min(best[1], best[2]) == 0:
            return best
        every = first_best(np.arange(self.n_binary))
        return best if best is not None and min(best[1], best[2]) <= min(every[1], every[2]) else every

    def leaf_labels(self, tree: Tree) -> Tree:
        """Give each leaf of a binary-column tree the class counts of the distinct rows it gets
        and its majority class (leaves that get no row keep their label). In place."""
        for leaf, rows in self.route(tree):
            leaf.counts = self.counts[rows].sum(axis=0)
            if leaf.counts.sum() > 0:
                leaf.label = int(np.argmax(leaf.counts))
        return tree
