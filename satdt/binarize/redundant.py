"""Redundant tests dropped: constant columns and columns equal to, or the complement of, an
earlier one, found from a hash of each column's rows (the columns of features with few tests
built at once, the others from the rows in value order per feature), confirmed exactly.
"""

from __future__ import annotations

import numpy as np

from ..deadline import Deadline
from .columns import _STEP_CELLS, BinaryTest, _check, feature_blocks

#: a feature with at most this many tests is a narrow block: its columns are built (all the
#: narrow blocks' columns at once, in slices of at most ``_STEP_CELLS`` cells); a wider numeric
#: feature's columns are suffixes of its rows in value order (one sort, no column built)
_NARROW = 16

#: rows per float sum of 32-bit key halves: every partial sum an exact integer (< 2**52)
_ROW_SLICE = 1 << 20

#: cells (rows x tests) up to which every column is built at once and its class found by one
#: exact ``np.unique`` of the packed columns (:func:`_kept_by_columns`), no hashes: on small data
#: the hashing's many steps cost more than the columns themselves
_DIRECT_CELLS = 1 << 20


def _key_sums(keys: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The sum modulo 2**64 of the uint64 ``keys`` of the True rows of each column of the bool
    matrix ``columns`` (rows x columns): two float matrix products, one per 32-bit half of the
    keys, in slices of :data:`_ROW_SLICE` rows, so that every float sum is an exact integer."""
    total = np.zeros(columns.shape[1], dtype=np.uint64)
    low_mask, shift = np.uint64(0xFFFFFFFF), np.uint64(32)
    for lo in range(0, columns.shape[0], _ROW_SLICE):
        k = keys[lo:lo + _ROW_SLICE]
        halves = np.stack([(k & low_mask), (k >> shift)]).astype(np.float64)   # (2, rows)
        low, high = (halves @ columns[lo:lo + _ROW_SLICE]).astype(np.uint64)
        total += (high << shift) + low
    return total


def _narrow_columns(tests: list[BinaryTest], X: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The columns (rows x len(index)) of the tests ``index``, as :meth:`BinaryTest.column`:
    ``x > t`` for a numeric test, ``x != c`` for a categorical one, in one comparison each."""
    feature = np.fromiter((tests[j].feature for j in index), dtype=np.int64, count=len(index))
    threshold = np.fromiter((tests[j].threshold for j in index), dtype=np.float64, count=len(index))
    categorical = np.fromiter((tests[j].category is not None for j in index), dtype=bool, count=len(index))
    values = X[:, feature]
    out = values > threshold[None, :]
    if categorical.any():
        out[:, categorical] = values[:, categorical] != threshold[None, categorical]
    return out


def _wide_sums(values: np.ndarray, thresholds: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Key sums and True rows of the columns ``values > t`` for each ``t`` of ``thresholds``: a
    suffix of the rows in value order (NaN, never greater, sorted last and left out)."""
    n = len(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    present = n - int(np.isnan(ordered).sum())
    suffix = np.zeros(n + 1, dtype=np.uint64)
    suffix[:present] = np.cumsum(keys[order[:present]][::-1], dtype=np.uint64)[::-1]
    k0 = np.searchsorted(ordered[:present], thresholds, side="right")
    return suffix[k0], present - k0


def _first_of_equal_columns(columns: np.ndarray) -> np.ndarray:
    """Positions of the first column of each class of equal columns of the bool matrix
    ``columns`` (rows x columns): one ``np.unique`` of the columns packed into bytes (stable: its
    first occurrence is the earliest column of the class)."""
    packed = np.ascontiguousarray(np.packbits(columns, axis=0).T)   # a row of bytes per column
    _, first = np.unique(packed.view(np.dtype((np.void, packed.shape[1]))).ravel(), return_index=True)
    return first


def _kept_by_columns(tests: list[BinaryTest], X: np.ndarray) -> np.ndarray:
    """:func:`_drop_redundant`'s kept tests (a bool mask) from every column built: each flipped
    so that its first row is False, the earliest of each class of equal flipped columns kept,
    the constant ones (all False) not."""
    columns = _narrow_columns(tests, X, np.arange(len(tests)))
    columns ^= columns[:1]
    keep = np.zeros(len(tests), dtype=bool)
    keep[_first_of_equal_columns(columns)] = True
    return keep & columns.any(axis=0)


def _drop_redundant(tests: list[BinaryTest], X: np.ndarray, deadline: Deadline | None = None) -> list[BinaryTest]:
    """Drop constant columns and columns equal to, or the complement of, an earlier one.

    Each column is flipped so that its first row is False (a column and its complement become
    equal) and summarised by its number of True rows and a 64-bit additive hash of them (a
    random key per row): for the features with at most :data:`_NARROW` tests, their columns are
    built together and the hashes are matrix products; for a wider numeric feature, suffix sums
    over its rows in value order (O(rows) per feature, no column built). Columns with equal
    summaries are compared exactly, packed, a slice of groups at a time; the earliest column of
    each class of equal columns is kept. Up to :data:`_DIRECT_CELLS` cells, every column is
    built and the classes found exactly at once (:func:`_kept_by_columns`), without hashes.
    """
    n, m = X.shape[0], len(tests)
    if n == 0 or not tests:
        return list(tests)
    if n * m <= _DIRECT_CELLS:
        _check(deadline, "binarization")
        return [t for t, k in zip(tests, _kept_by_columns(tests, X).tolist()) if k]
    keys = np.random.default_rng(0x5A7D7).integers(0, np.iinfo(np.int64).max, size=n, dtype=np.int64).view(np.uint64)
    total = np.uint64(keys.sum(dtype=np.uint64))
    digest = np.empty(m, dtype=np.uint64)
    size = np.empty(m, dtype=np.int64)
    first_right = np.empty(m, dtype=bool)   # the column's value on row 0
    narrow: list[np.ndarray] = []
    _check(deadline, "binarization")   # (feature_blocks reads every test: seconds on millions)
    with np.errstate(over="ignore"):
        for feature, categorical, start, stop in feature_blocks(tests):
            if categorical or stop - start <= _NARROW:
                narrow.append(np.arange(start, stop))
                continue
            _check(deadline, "binarization")
            values = X[:, feature]
            thresholds = np.fromiter((t.threshold for t in tests[start:stop]), dtype=np.float64, count=stop - start)
            digest[start:stop], size[start:stop] = _wide_sums(values, thresholds, keys)
            first_right[start:stop] = values[0] > thresholds
        if narrow:
            index = np.concatenate(narrow)
            step = max(1, _STEP_CELLS // (8 * n))
            for lo in range(0, len(index), step):
                _check(deadline, "binarization")
                part = index[lo:lo + step]
                cols = _narrow_columns(tests, X, part)
                digest[part] = _key_sums(keys, cols)
                size[part] = cols.sum(axis=0)
                first_right[part] = cols[0]
        digest = np.where(first_right, total - digest, digest)   # flipped: row 0 is False
    size = np.where(first_right, n - size, size)
    keep = size > 0                                            # not constant
    # groups of equal (digest, size) among the non-constant columns, ascending test index within
    order = np.lexsort((np.arange(m), size, digest))
    order = order[keep[order]]
    same = (digest[order][1:] == digest[order][:-1]) & (size[order][1:] == size[order][:-1])
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    stops = np.concatenate([starts[1:], [len(order)]])
    multi = stops - starts > 1
    candidates = order[np.repeat(multi, stops - starts)]       # the members of groups of 2 or more
    ends = np.cumsum((stops - starts)[multi])                  # candidates up to each group's end
    step = max(2, _STEP_CELLS // (8 * n))                      # columns compared per slice
    a = 0
    while a < len(ends):                                       # whole groups per slice
        done = int(ends[a - 1]) if a else 0
        b = max(a + 1, int(np.searchsorted(ends, done + step, side="right")))
        _check(deadline, "binarization")
        members = candidates[done:ends[b - 1]]
        if len(members) <= step:
            cols = _narrow_columns(tests, X, members) ^ first_right[members][None, :]
            # equal columns have equal summaries, so classes never span two groups: one np.unique
            dropped = np.ones(len(members), dtype=bool)
            dropped[_first_of_equal_columns(cols)] = False   # the earliest test of each class
            keep[members[dropped]] = False
        else:                         # one group wider than a slice: its columns a slice at a time
            seen: set[bytes] = set()
            for lo in range(0, len(members), step):
                _check(deadline, "binarization")
                part = members[lo:lo + step]
                packed = np.packbits(_narrow_columns(tests, X, part) ^ first_right[part][None, :], axis=0).T
                for j, row in zip(part.tolist(), packed):
                    key = row.tobytes()
                    keep[j] = key not in seen
                    seen.add(key)
        a = b
    return [t for t, k in zip(tests, keep) if k]
