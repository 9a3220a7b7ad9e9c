"""Redundant tests dropped: constant columns and columns equal to, or the complement of, an
earlier one, found from a hash of each column's rows per feature (no binary matrix), confirmed
exactly.
"""

from __future__ import annotations

import numpy as np

from ..deadline import Deadline
from .columns import BinaryTest, _check, feature_blocks


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
