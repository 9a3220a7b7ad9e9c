"""The Boolean tests of the binarization and how they read the original features: a
:class:`BinaryTest` per column (True when the row goes right), the runs of tests on one feature
(:func:`feature_blocks`), every test applied to the rows in slices between deadline checks
(:func:`_columns`), and each row's code per tested feature (:func:`_codes`), from which the
distinct rows are found without the rows x tests matrix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..deadline import Deadline

#: cells (rows x columns) handled between two checks of the deadline
_STEP_CELLS = 1 << 25


def _check(deadline: Deadline | None, what: str) -> None:
    if deadline is not None:
        deadline.check(what)


def matrix_bytes(n_rows: int, n_columns: int) -> int:
    """Peak bytes of binarizing ``n_rows`` x ``n_columns``: the bool matrix, its packed words
    and the distinct rows (at most as many as the rows)."""
    return int(n_rows) * int(n_columns) * 2 + int(n_rows) * ((int(n_columns) + 63) // 64) * 8


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


def test_arrays(tests: list[BinaryTest]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tests' features (int64), thresholds (float64) and whether each is categorical (bool)."""
    n = len(tests)
    return (np.fromiter((t.feature for t in tests), dtype=np.int64, count=n),
            np.fromiter((t.threshold for t in tests), dtype=np.float64, count=n),
            np.fromiter((t.category is not None for t in tests), dtype=bool, count=n))


def _block_bounds(feature: np.ndarray, categorical: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and stops of the runs of consecutive tests on one feature (and one kind)."""
    n = len(feature)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cuts = np.flatnonzero((feature[1:] != feature[:-1]) | (categorical[1:] != categorical[:-1])) + 1
    return np.concatenate(([0], cuts)).astype(np.int64), np.concatenate((cuts, [n])).astype(np.int64)


def feature_blocks(tests: list[BinaryTest]) -> list[tuple[int, bool, int, int]]:
    """Runs of consecutive tests on one feature: (feature, categorical, start, stop)."""
    if not tests:
        return []
    feature, _, categorical = test_arrays(tests)
    starts, stops = _block_bounds(feature, categorical)
    return list(zip(feature[starts].tolist(), categorical[starts].tolist(), starts.tolist(), stops.tolist()))


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


#: a numeric feature with at most this many tests has its codes counted from its columns (the
#: narrow features' columns built together); a wider one's codes are a search in its thresholds
_NARROW_CODES = 16


def _codes(tests: list[BinaryTest], X: np.ndarray) -> np.ndarray | None:
    """Each row's code for every tested feature, such that two rows have the same binarized row
    exactly when they have the same codes: for a numeric feature the number of its thresholds
    below the value (test ``k`` is ``code > k``), for a categorical one the index of the tested
    category it equals (else the number of tested categories). None when a feature's tests are
    not one run of distinct thresholds (the binary matrix is then needed).

    Categorical features and numeric ones with at most :data:`_NARROW_CODES` tests: their
    columns compared at once (in slices of at most ``_STEP_CELLS`` cells) and summed per feature;
    wider numeric features: ``np.searchsorted`` in their thresholds, one feature at a time.
    """
    m = len(tests)
    if m == 0:
        return np.empty((X.shape[0], 0), dtype=np.int32)
    test_feature, threshold, categorical = test_arrays(tests)
    starts, stops = _block_bounds(test_feature, categorical)
    feature, block_categorical = test_feature[starts], categorical[starts]
    if len(np.unique(feature)) != len(starts):
        return None
    block_of = np.repeat(np.arange(len(starts)), stops - starts)
    # numeric: strictly increasing within the block; categorical: no category twice
    step_ok = np.ones(m, dtype=bool)
    step_ok[1:] = (block_of[1:] != block_of[:-1]) | (threshold[1:] > threshold[:-1])
    if not step_ok[~categorical].all():
        return None
    if categorical.any():
        key = np.lexsort((threshold, block_of))
        twice = (block_of[key][1:] == block_of[key][:-1]) & (threshold[key][1:] == threshold[key][:-1])
        if (twice & categorical[key][1:]).any():
            return None
    codes = np.empty((X.shape[0], len(starts)), dtype=np.int32)
    width = stops - starts
    is_narrow = block_categorical | (width <= _NARROW_CODES)
    narrow = np.flatnonzero(is_narrow)
    for k in np.flatnonzero(~is_narrow).tolist():
        codes[:, k] = np.searchsorted(threshold[starts[k]:stops[k]], X[:, feature[k]], side="left")
    if len(narrow):
        ends = np.cumsum(width[narrow])
        tested = np.flatnonzero(np.repeat(is_narrow, width))    # the narrow blocks' tests, in order
        per_slice = max(1, _STEP_CELLS // (4 * max(1, X.shape[0])))
        a = 0
        while a < len(narrow):
            done = int(ends[a - 1]) if a else 0
            b = max(a + 1, int(np.searchsorted(ends, done + per_slice, side="right")))
            part = narrow[a:b]
            index = tested[done:ends[b - 1]]
            codes[:, part] = _narrow_codes(X, index, part, test_feature, threshold, categorical, block_of, starts,
                                           width)
            a = b
    return codes


def _narrow_codes(X: np.ndarray, index: np.ndarray, part: np.ndarray, test_feature: np.ndarray,
                  threshold: np.ndarray, categorical: np.ndarray, block_of: np.ndarray, starts: np.ndarray,
                  width: np.ndarray) -> np.ndarray:
    """:func:`_codes` of the narrow blocks ``part`` (their tests ``index``, in order), rows x
    blocks: each test's column compared at once and summed per block."""
    values = X[:, test_feature[index]]                       # (rows, tests)
    cells = (values > threshold[index]).astype(np.int32)     # numeric: the thresholds below the value
    cat = categorical[index]
    if cat.any():
        # categorical: (place - width) on the equal category, plus the width below: the place of
        # the category it equals, else the width
        tested = index[cat]
        place = (tested - starts[block_of[tested]] - width[block_of[tested]]).astype(np.int32)
        cells[:, cat] = (values[:, cat] == threshold[tested]) * place
    if len(index) > len(part):                               # some feature with several tests
        cells = np.add.reduceat(cells, np.concatenate(([0], np.cumsum(width[part])[:-1])), axis=1)
    cells += np.where(categorical[starts[part]], width[part], 0).astype(np.int32)
    return cells
